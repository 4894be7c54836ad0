// Sums of absolute values along rows and columns of a column-major block,
// as kernel bodies: the residual check's norms, computed where the matrix
// lives.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::lu::kernels {

HPLX_HD inline double magnitude(double x) {
  return x < 0 ? -x : x;
}

// out[i] = sum over j < count of |a[i * stride + j * step]|: with stride 1
// and step lda the row sums of a column-major block (one row per index),
// with stride lda and step 1 its column sums (one column per index).
struct AbsSums {
  const double* a;
  long stride, step, count;
  double* out;
  HPLX_HD void operator()(long i) const {
    double s = 0;
    for (long j = 0; j < count; ++j) s += magnitude(a[i * stride + j * step]);
    out[i] = s;
  }
};

}  // namespace hplx::lu::kernels
