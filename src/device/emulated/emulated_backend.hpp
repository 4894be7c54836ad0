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
//   some seeds.
// - BLAS runs through OpenBLAS on the worker thread; kernels run the shared
//   bodies (launch.hpp) there.
// An error inside a queued operation is kept and rethrown by the next
// synchronize() on that queue (CUDA's sticky errors).
#pragma once

#include <cstdint>
#include <memory>

#include "device/backend.hpp"

namespace hplx::device {

struct EmulatedOptions {
  std::uint64_t seed = 1;     // of the random delays; queue i uses seed + i
  int max_delay_us = 50;      // the longest delay before an operation; 0 = none
  double delay_share = 0.25;  // the share of operations that are delayed
};

// The options from the environment: HPLX_EMULATED_SEED, HPLX_EMULATED_DELAY_US
// (defaults as above). Throws UsageError naming a malformed value.
EmulatedOptions emulated_options_from_env();

std::unique_ptr<Backend> make_emulated_backend(const EmulatedOptions& options);

}  // namespace hplx::device
