// A rank's compute and memory measured as a run will use them, for the
// slow node named before the run (core/node_probes.hpp): DGEMM on the
// device's compute queue at the run's update shape, and copies within the
// device's memory. On the host backend that is OpenBLAS and the host's
// memory; on a GPU's, cuBLAS and the GPU's; on the sim backend, the
// model's charges.
#pragma once

#include <cstddef>
#include <functional>

#include "device/device.hpp"

namespace hplx::device {

// Gflop/s of C -= A B (m x k times k x n) on dev's compute queue, over
// a window of `seconds` that begins when `together` returns (every rank's
// probe at once: a barrier), after one call to warm up: the rate of its
// fastest stretch of 0.1 s.
double probe_device_gemm(Device& dev, long m, long n, long k, double seconds,
                         const std::function<void()>& together);

// GB/s (bytes read plus bytes written, per second, / 1e9) of copies of
// `bytes` within Device memory on dev's compute queue, over the same kind
// of window; on a queue that executes on the host's cores, each copy split
// among `host_threads` threads (the rank's share of its node's CPUs).
double probe_device_memory(Device& dev, std::size_t bytes, int host_threads, double seconds,
                           const std::function<void()>& together);

}  // namespace hplx::device
