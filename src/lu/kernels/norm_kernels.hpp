// Sums of absolute values along rows and columns of a column-major block,
// as kernel bodies: the residual check's norms, computed where the matrix
// lives.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::lu::kernels {

HPLX_HD inline double magnitude(double x) {
  return x < 0 ? -x : x;
}

// out[i] = sum_j |a(i, j)| over j < cols; one row per index.
struct RowAbsSums {
  const double* a;
  long lda, cols;
  double* out;
  HPLX_HD void operator()(long i) const {
    double s = 0;
    for (long j = 0; j < cols; ++j) s += magnitude(a[i + j * lda]);
    out[i] = s;
  }
};

// out[j] = sum_i |a(i, j)| over i < rows; one column per index.
struct ColumnAbsSums {
  const double* a;
  long lda, rows;
  double* out;
  HPLX_HD void operator()(long j) const {
    double s = 0;
    for (long i = 0; i < rows; ++i) s += magnitude(a[i + j * lda]);
    out[j] = s;
  }
};

}  // namespace hplx::lu::kernels
