// Where a kernel picks its implementation: the portable kernel body
// (kernels/*.hpp, every backend) or, on the host backend, the host fast
// path (host/*.hpp: AVX2 sliced-ELL loops, vectorized element loops). Every
// kernel makes this choice once, here or in its .cpp, and runs the host
// path through queue.execute() so it stays in the queue's order.
// KernelPath::Portable forces the bodies (the tests compare both paths).
#pragma once

#include <utility>

#include "device/backend.hpp"
#include "device/launch.hpp"
#include "device/queue.hpp"
#include "mxp/host/host_loops.hpp"

namespace hplx::mxp {

enum class KernelPath { Best, Portable };

inline bool use_host_fast_path(const device::Queue& q, KernelPath path) {
  return path == KernelPath::Best && q.backend().kind() == device::BackendKind::Host;
}

// body(i) for i in [0, n) on q.
template <class Body>
void run_elementwise(device::Queue& q, long n, Body body, KernelPath path = KernelPath::Best) {
  if (n <= 0) return;
  if (use_host_fast_path(q, path))
    q.execute([n, body] { host::for_each(n, body); });
  else
    device::launch(q, n, std::move(body));
}

// The sum of body(i) over [0, n) (double), in q's order; the host waits.
template <class Body>
double sum_elementwise(device::Queue& q, long n, Body body, KernelPath path = KernelPath::Best) {
  if (n <= 0) return 0.0;
  if (use_host_fast_path(q, path)) {
    double s = 0;
    q.execute([&s, n, &body] { s = host::sum(n, body); });
    q.synchronize();
    return s;
  }
  return device::reduce_sum(q, n, std::move(body));
}

}  // namespace hplx::mxp
