// The emulated device: a GPU's semantics on the CPU, to catch on machines
// without a GPU the bugs GPU code has (a missing wait between queues, a
// buffer read before the copy that fills it has run, a host buffer freed
// while a queue still needs it).
//
// - Device memory is its own allocations, not host accessible: code that
//   follows the contract reaches it only through a queue's copies, launched
//   kernel bodies and queue BLAS. BLAS operands are checked to be device
//   memory when the call is enqueued (cuBLAS reads nothing else).
// - Each queue is a worker thread running its operations in order; the
//   caller returns at once (CUDA's asynchronous launches). Events, waits
//   between queues and the host's synchronize() behave as CUDA's.
// - Before an operation the worker sleeps for a random time (seeded, per
//   queue), so that work which is ordered only by luck runs out of order in
//   some seeds. A high-priority queue (the device's panel queue) can also
//   be made slow by a fixed wait before each operation: a device on which
//   FACT outlasts the update beside it.
// - BLAS runs through OpenBLAS on the worker thread; kernels run the shared
//   bodies (launch.hpp) there.
// An error inside a queued operation is kept and rethrown by the next
// synchronize() on that queue (CUDA's sticky errors).
// - For tests, chosen waits can be dropped (DroppedWaits): how a test
//   plants the missing wait a bug would leave and shows that this device
//   catches it, without a switch in the code under test.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "device/backend.hpp"

namespace hplx::device {

struct EmulatedOptions {
  std::uint64_t seed = 1;          // of the random delays; queue i uses seed + i
  int max_delay_us = 50;           // the longest delay before an operation; 0 = none
  double delay_share = 0.25;       // the share of operations that are delayed
  int high_priority_delay_us = 0;  // a wait before every operation of a High queue
};

// The options from the environment: HPLX_EMULATED_SEED, HPLX_EMULATED_DELAY_US,
// HPLX_EMULATED_HIGH_PRIORITY_DELAY_US (defaults as above). Throws UsageError
// naming a malformed value.
EmulatedOptions emulated_options_from_env();

std::unique_ptr<Backend> make_emulated_backend(const EmulatedOptions& options);

// Fault injection, for tests only: while a DroppedWaits lives, the waits it
// names return at once, as if the code had not made them, while the work
// they would have waited for still runs on its queue, late by the random
// delays. A test plants a missing wait this way and checks that the race
// shows (tests/mpi/test_emulated_catches_missing_wait.cpp). When it goes,
// those waits work again. The queues must be the emulated device's (Error
// otherwise); one that goes first just drops nothing more.
class DroppedWaits {
 public:
  // The next `count` host synchronize() calls of `q` (the queue's, not its
  // events'; each a host wait that is then not counted).
  [[nodiscard]] static DroppedWaits next_synchronizes(Queue& q, int count = 1);
  // Every wait(event) that `waiter` makes on an event `recorder` recorded
  // (other queues' waits on them, and the host's, still wait).
  [[nodiscard]] static DroppedWaits waits_on_events_of(Queue& waiter, Queue& recorder);

  DroppedWaits(DroppedWaits&&) noexcept = default;
  DroppedWaits& operator=(DroppedWaits&&) noexcept = default;
  DroppedWaits(const DroppedWaits&) = delete;
  DroppedWaits& operator=(const DroppedWaits&) = delete;

  // How many waits it has dropped so far: a test checks that its planted
  // bug was reached.
  long dropped() const { return dropped_->load(); }

 private:
  DroppedWaits(std::shared_ptr<void> active, std::shared_ptr<const std::atomic<long>> dropped)
      : active_(std::move(active)), dropped_(std::move(dropped)) {}
  // Its end takes the rule off its queue (defined here, so that code which
  // only names this type in a build without the emulated device links).
  std::shared_ptr<void> active_;
  std::shared_ptr<const std::atomic<long>> dropped_;
};

}  // namespace hplx::device
