// Vector kernels, in any mix of float and double (seed 002: mixed-precision
// WAXPBY and friends without host copies). Local parts only; the global
// dot product adds an MPI_Allreduce. Sums are accumulated in double.
#pragma once

#include <mpi.h>

#include <cmath>

#include "core/error.hpp"

namespace hplx::mxp {

// w = alpha x + beta y.
template <class W, class X, class Y>
void waxpby(long n, double alpha, const X* __restrict x, double beta, const Y* __restrict y,
            W* __restrict w) {
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i)
    w[i] = static_cast<W>(alpha * static_cast<double>(x[i]) + beta * static_cast<double>(y[i]));
}

// y = alpha x (converting).
template <class Y, class X>
void scale_copy(long n, double alpha, const X* __restrict x, Y* __restrict y) {
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) y[i] = static_cast<Y>(alpha * static_cast<double>(x[i]));
}

template <class T>
void scale(long n, double alpha, T* x) {
  const T a = static_cast<T>(alpha);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) x[i] *= a;
}

template <class T>
void fill(long n, T value, T* x) {
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) x[i] = value;
}

template <class X, class Y>
double local_dot(long n, const X* __restrict x, const Y* __restrict y) {
  double s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
  for (long i = 0; i < n; ++i) s += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  return s;
}

template <class X, class Y>
double global_dot(long n, const X* x, const Y* y, MPI_Comm comm) {
  double s = local_dot(n, x, y);
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm));
  return s;
}

template <class X>
double global_norm(long n, const X* x, MPI_Comm comm) {
  return std::sqrt(global_dot(n, x, x, comm));
}

}  // namespace hplx::mxp
