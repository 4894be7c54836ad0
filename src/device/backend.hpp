// One implementation of the device layer: allocates memory in its spaces,
// makes queues, says what it is. Made by make_backend(); see
// docs/ARCHITECTURE.md "How to add a backend".
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/energy.hpp"
#include "device/backend_kind.hpp"
#include "device/queue.hpp"
#include "device/types.hpp"

namespace hplx::device {

class Simulation;

// Host work on a rank's own buffers (a copy, a transpose, a gather of
// rows) of `elements` doubles: copied whole rows at a time (contiguous, at
// the host's memory bandwidth), or passed over element by element (at the
// host's row-copy rate). What a simulated backend charges for it.
struct HostPass {
  enum Kind { kContiguous, kStrided };
  Kind kind = kStrided;
  double elements = 0;
  static HostPass contiguous(double elements) { return {kContiguous, elements}; }
  static HostPass strided(double elements) { return {kStrided, elements}; }
};

// What a backend counts of the costs a GPU run showed (docs/GPU.md), for
// tests that a loop's count does not grow with its length; -1 where not
// counted (the emulated device counts all).
struct DeviceCounters {
  long allocations = -1;  // Device and Pinned allocations
  // Host waits for the device: a queue's or an event's synchronize() from
  // the host (reductions' included), and frees, which wait for all queues.
  long host_waits = -1;
  // Bytes copied by queues, by direction (Host and Pinned memory are the
  // host's side).
  long long bytes_to_device = -1, bytes_to_host = -1, bytes_device_to_device = -1;
  // BLAS calls queued while their queue's SM target was set
  // (Queue::set_blas_sms).
  long blas_on_fewer_sms = -1;

  // What was counted between `before` and these (-1 stays where not counted).
  DeviceCounters since(const DeviceCounters& before) const {
    auto d = [](auto now, auto then) { return now < 0 || then < 0 ? -1 : now - then; };
    return {d(allocations, before.allocations),
            d(host_waits, before.host_waits),
            d(bytes_to_device, before.bytes_to_device),
            d(bytes_to_host, before.bytes_to_host),
            d(bytes_device_to_device, before.bytes_device_to_device),
            d(blas_on_fewer_sms, before.blas_on_fewer_sms)};
  }
};

// The host's CPU clock (the mean of this process's CPUs') and package
// temperature where Linux gives them (device/host_state.cpp).
std::string host_state();

class Backend {
 public:
  // `simulation`: the clock and models that replace computing (the sim
  // backend passes itself); null for every backend that computes. The one
  // answer to "is this a simulation", given once when the backend is made.
  explicit Backend(Simulation* simulation = nullptr) : simulation_(simulation) {}
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // One line for the run log, e.g. "host: OpenBLAS 0.3.21 (OpenMP), 2 threads".
  virtual std::string describe() const = 0;
  // Whether host code may read and write memory of `space` directly.
  virtual bool host_accessible(MemorySpace space) const = 0;
  // Raw allocation; throws SystemError naming the size when it fails.
  // Aligned to at least 64 bytes.
  virtual void* allocate(std::size_t bytes, MemorySpace space) = 0;
  virtual void deallocate(void* p, std::size_t bytes, MemorySpace space) noexcept = 0;
  // Bytes of Device memory still free (for the memory preflight).
  virtual std::size_t free_device_bytes() const = 0;
  // A GPU's streaming multiprocessors (what Queue::set_blas_sms counts); 0
  // where the backend has none.
  virtual int multiprocessors() const { return 0; }
  // A new queue; `priority`: see QueuePriority (types.hpp).
  virtual std::unique_ptr<Queue> make_queue(QueuePriority priority) = 0;
  std::unique_ptr<Queue> make_queue() { return make_queue(QueuePriority::Normal); }
  // The device's own cumulative energy counter, read before and after each
  // LU test (core/energy.hpp). The CUDA backend reads its GPU's through
  // NVML; the host and emulated backends have no device of their own, so
  // an empty `why_not` says there is nothing to measure.
  virtual EnergyCounter energy_counter() { return {}; }
  // The device's state now, for the lines that name a slow node (hplx lu
  // --preflight): its clocks, temperature and power where the backend can
  // read them (a GPU's through NVML; the host's CPU clock and package
  // temperature from Linux), e.g. "CPU 2893 MHz, 54 C"; empty where it
  // reads nothing (a simulation's).
  virtual std::string state() { return simulation_ ? std::string() : host_state(); }
  // The sim backend's clock and models (device/simulation.hpp); null for
  // every backend that computes.
  Simulation* simulation() const { return simulation_; }
  // Whether this backend's buffers hold data: false where a simulation
  // stands in (simulation()). Those buffers are never read or written: host
  // work on them is charged instead of done (charge(), device::on_host in
  // host_pass.hpp), kernels on their queues are charged by the elements
  // they would move (launch.hpp), nothing is worth reserving ahead in them,
  // and no result can be checked.
  bool holds_data() const { return simulation_ == nullptr; }
  // Charges host work that was not done (see holds_data()).
  virtual void charge(const HostPass&) {}
  // How many Device and Pinned allocations this backend has made, for tests
  // that a loop makes none (on a GPU each costs: cudaMallocHost pins pages,
  // cudaFree and cudaFreeHost wait for all the device's work); -1 where not
  // counted (the emulated device counts).
  virtual long device_allocations() const { return -1; }
  virtual DeviceCounters counters() const { return {}; }

 private:
  Simulation* simulation_;
};

// Makes the implementation `kind` (it must be compiled in: parse_backend).
std::unique_ptr<Backend> make_backend(BackendKind kind);

// The best implementation compiled in and usable on this machine: a GPU's
// where one is present, else the host.
BackendKind default_backend();

// The device libraries the backends compiled in use, e.g. "CUDA runtime
// 13.0, cuBLAS 130000" (empty for a build with host and emulated only).
std::string device_libraries();

// Whether `kind` is compiled in and can run here (a GPU backend needs its
// device); `why` gets the reason when not.
bool usable(BackendKind kind, std::string* why = nullptr);

}  // namespace hplx::device
