// Launching kernel bodies (kernel_body.hpp) on a queue.
//
// launch(q, n, body) runs body(i) for every i in [0, n), in q's order.
// Queues that execute on the host (host, emulated) run it as a host loop,
// over OpenMP threads when there is enough work and no parallel region is
// active (a body called from a worker thread runs on that thread alone).
// A simulated queue (sim) runs nothing and charges the launch's modelled
// time. A device queue runs the same body compiled for the device: the GPU
// backend (CUDA or HIP) defines launch_on_device() and reduce_on_device()
// (device/gpu/launch_gpu.cuh), and each library that launches bodies
// instantiates them for its bodies in kernels/gpu_instances.cu (a body
// missing there is a link error of a GPU build, never a silent host
// fallback). A build without a device backend throws instead.
#pragma once

#include <omp.h>

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#include "device/backend.hpp"
#include "device/compiled_backends.hpp"
#include "device/kernel_body.hpp"
#include "device/queue.hpp"

namespace hplx::device {

[[noreturn]] void throw_no_device_kernel(const Queue& q);

// Defined for device queues by the GPU backend, for the bodies listed in
// the kernels' gpu_instances.cu files.
template <class Body>
void launch_on_device(Queue& q, long n, const Body& body);
template <class Body>
double reduce_on_device(Queue& q, long n, const Body& body);
template <class Body>
void launch_phased_on_device(Queue& q, const Body& body, int blocks);

// body(i) for i in [0, n) on the calling thread, split over the OpenMP
// team when n >= 2 * grain and no parallel region is active. Each thread
// runs its own copy of the body: its pointers and sizes are then locals no
// store can change, and the compiler keeps them in registers.
template <class Body>
void host_for(long n, const Body& body, long grain) {
  if (n >= 2 * grain && !omp_in_parallel()) {
#pragma omp parallel
    {
      const Body local = body;
#pragma omp for schedule(static)
      for (long i = 0; i < n; ++i) local(i);
    }
  } else {
    const Body local = body;
    for (long i = 0; i < n; ++i) local(i);
  }
}

// The matrix elements a body moves per index, for a simulated queue's
// charge: one, unless the body says otherwise with a member
// `double moved_per_index() const` (a body over column blocks moves rows x
// columns of them).
template <class Body, class = void>
struct MovesPerIndex {
  static double of(const Body&) { return 1.0; }
};
template <class Body>
struct MovesPerIndex<Body, std::void_t<decltype(std::declval<const Body&>().moved_per_index())>> {
  static double of(const Body& b) { return b.moved_per_index(); }
};
// And how it moves them: RowCopy::Swap, unless the body says otherwise with
// a member `RowCopy row_copy() const`.
template <class Body, class = void>
struct RowCopyOf {
  static RowCopy of(const Body&) { return RowCopy::Swap; }
};
template <class Body>
struct RowCopyOf<Body, std::void_t<decltype(std::declval<const Body&>().row_copy())>> {
  static RowCopy of(const Body& b) { return b.row_copy(); }
};
template <class Body>
void simulate(Queue& q, long n, const Body& body) {
  q.simulate_kernel(static_cast<double>(n) * MovesPerIndex<Body>::of(body),
                    RowCopyOf<Body>::of(body));
}

// `grain`: indices below which threads are not worth waking.
template <class Body>
void launch(Queue& q, long n, Body body, long grain = 4096) {
  if (n <= 0) return;
  if (!q.backend().holds_data()) return simulate(q, n, body);
  if (!q.executes_on_host()) {
    if constexpr (kGpuCompiled)
      launch_on_device(q, n, body);
    else
      throw_no_device_kernel(q);
    return;
  }
  q.execute([n, body = std::move(body), grain] { host_for(n, body, grain); });
}

// A body of phases with a barrier between each, as one launch
// (launch_phased): `HPLX_HD long phases() const`, `HPLX_HD long
// extent(long phase) const` and `HPLX_HD void operator()(long phase, long
// i) const` for i in [0, extent(phase)). Phase p + 1 sees every write of
// phase p. PhaseOf is one phase as a plain body.
template <class Body>
struct PhaseOf {
  Body body;
  long phase;
  void operator()(long i) const { body(phase, i); }
};

// Runs every phase of `body` in q's order, as one kernel: on a GPU one
// cooperative launch of at most `blocks` blocks (0: as many as the device
// holds at once) whose threads meet at a grid-wide barrier between phases,
// instead of a launch per phase; on the host the phases' loops in turn; on
// a simulated queue one launch's overhead and every phase's elements.
template <class Body>
void launch_phased(Queue& q, Body body, int blocks = 0, long grain = 4096) {
  const long phases = body.phases();
  if (phases <= 0) return;
  if (!q.backend().holds_data()) {
    double elements = 0;
    for (long p = 0; p < phases; ++p) elements += static_cast<double>(body.extent(p));
    return q.simulate_kernel(elements, RowCopyOf<Body>::of(body));
  }
  if (!q.executes_on_host()) {
    if constexpr (kGpuCompiled)
      launch_phased_on_device(q, body, blocks);
    else
      throw_no_device_kernel(q);
    return;
  }
  q.execute([body = std::move(body), phases, grain] {
    for (long p = 0; p < phases; ++p) host_for(body.extent(p), PhaseOf<Body>{body, p}, grain);
  });
}

// Indices per partial sum of a reduction on the host.
inline constexpr long kReduceChunk = 4096;

// The sum over i in [0, n) of body(i) for a queue that executes on the
// host: each chunk of kReduceChunk indices summed in index order (chunks
// over the OpenMP team), then the chunks' sums in chunk order. The order of
// additions depends on n alone: the same sum on any number of threads and
// from one run to the next.
template <class Body>
double sum_in_chunks(long n, const Body& body) {
  const long chunks = (n + kReduceChunk - 1) / kReduceChunk;
  auto chunk_sum = [n](const Body& b, long c) {
    const long end = std::min(n, (c + 1) * kReduceChunk);
    double s = 0;
    for (long i = c * kReduceChunk; i < end; ++i) s += b(i);
    return s;
  };
  if (chunks == 1) return chunk_sum(body, 0);
  std::vector<double> sums(static_cast<std::size_t>(chunks));
  if (!omp_in_parallel()) {
#pragma omp parallel
    {
      const Body local = body;
#pragma omp for schedule(static)
      for (long c = 0; c < chunks; ++c) sums[c] = chunk_sum(local, c);
    }
  } else {
    for (long c = 0; c < chunks; ++c) sums[c] = chunk_sum(body, c);
  }
  double s = 0;
  for (const double v : sums) s += v;
  return s;
}

// The sum over i in [0, n) of body(i) (a double), in q's order; the host
// waits for it (a reduction ends where its value is needed). The same n
// gives the same sum every run (each backend adds in a fixed order).
template <class Body>
double reduce_sum(Queue& q, long n, Body body) {
  double s = 0;
  if (n <= 0) return s;
  if (!q.backend().holds_data()) {  // no data: the sum of nothing
    simulate(q, n, body);
    return s;
  }
  if (!q.executes_on_host()) {
    if constexpr (kGpuCompiled)
      return reduce_on_device(q, n, body);
    else
      throw_no_device_kernel(q);
  }
  q.execute([&s, n, &body] { s = sum_in_chunks(n, body); });
  q.synchronize();
  return s;
}

}  // namespace hplx::device
