// Vector kernels on a queue, in any mix of float and double (seed 002:
// mixed-precision WAXPBY and friends without host copies): the bodies of
// kernels/vector_kernels.hpp, dispatched by dispatch.hpp. Pointers are in
// the queue's memory. Local parts only; the global dot product adds an
// MPI_Allreduce. Sums are accumulated in double.
#pragma once

#include <mpi.h>

#include <cmath>

#include "core/error.hpp"
#include "mxp/dispatch.hpp"
#include "mxp/kernels/vector_kernels.hpp"

namespace hplx::mxp {

// w = alpha x + beta y.
template <class W, class X, class Y>
void waxpby(device::Queue& q, long n, double alpha, const X* x, double beta, const Y* y, W* w) {
  run_elementwise(q, n, kernels::WaxpbyBody<W, X, Y>{alpha, beta, x, y, w});
}

// y = alpha x (converting).
template <class Y, class X>
void scale_copy(device::Queue& q, long n, double alpha, const X* x, Y* y) {
  run_elementwise(q, n, kernels::ScaleCopyBody<Y, X>{alpha, x, y});
}

// y = x (converting).
template <class Y, class X>
void convert(device::Queue& q, long n, const X* x, Y* y) {
  run_elementwise(q, n, kernels::ConvertBody<Y, X>{x, y});
}

template <class T>
void scale(device::Queue& q, long n, double alpha, T* x) {
  run_elementwise(q, n, kernels::ScaleBody<T>{static_cast<T>(alpha), x});
}

template <class T>
void fill(device::Queue& q, long n, T value, T* x) {
  run_elementwise(q, n, kernels::FillBody<T>{value, x});
}

template <class X, class Y>
double local_dot(device::Queue& q, long n, const X* x, const Y* y) {
  return sum_elementwise(q, n, kernels::DotBody<X, Y>{x, y});
}

template <class X, class Y>
double global_dot(device::Queue& q, long n, const X* x, const Y* y, MPI_Comm comm) {
  double s = local_dot(q, n, x, y);
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm));
  return s;
}

template <class X>
double global_norm(device::Queue& q, long n, const X* x, MPI_Comm comm) {
  return std::sqrt(global_dot(q, n, x, x, comm));
}

}  // namespace hplx::mxp
