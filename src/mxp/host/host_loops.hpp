// The host backend's loop for element-wise kernel bodies (vector updates,
// dot products): each thread copies the body into a local first, so the
// compiler sees its pointers and scalars as loop invariants that no store
// can change, and the loop vectorizes (`omp simd`; with a shared body the
// stores through w[i] might alias the body's members). Same bodies, same
// results per element; sums may associate differently (simd reduction).
#pragma once

#include <omp.h>

namespace hplx::mxp::host {

// Indices below which threads are not worth waking.
inline constexpr long kGrain = 4096;

template <class Body>
void for_each(long n, const Body& body) {
  if (n >= 2 * kGrain && !omp_in_parallel()) {
#pragma omp parallel
    {
      const Body b = body;
#pragma omp for simd schedule(static)
      for (long i = 0; i < n; ++i) b(i);
    }
  } else {
    const Body b = body;
#pragma omp simd
    for (long i = 0; i < n; ++i) b(i);
  }
}

template <class Body>
double sum(long n, const Body& body) {
  double s = 0;
  if (n >= 2 * kGrain && !omp_in_parallel()) {
#pragma omp parallel reduction(+ : s)
    {
      const Body b = body;
      const long t = omp_get_thread_num(), nt = omp_get_num_threads();
      const long lo = n * t / nt, hi = n * (t + 1) / nt;
#pragma omp simd reduction(+ : s)
      for (long i = lo; i < hi; ++i) s += b(i);
    }
  } else {
    const Body b = body;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < n; ++i) s += b(i);
  }
  return s;
}

}  // namespace hplx::mxp::host
