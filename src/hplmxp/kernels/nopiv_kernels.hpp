// HPL-MxP's kernel bodies (device/kernel_body.hpp), compiled for the host
// and, in CUDA builds, the device (gpu_instances.cu).
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::hplmxp::kernels {

// The n x n identity in FP32 (leading dimension n), one index per element:
// the right-hand side TRSM turns into a triangle's inverse.
struct Identity {
  float* a;
  long n;
  HPLX_HD void operator()(long i) const { a[i] = i % (n + 1) == 0 ? 1.0f : 0.0f; }
};

// Zeros in the rows x (n / rows) block at a (leading dimension ld), one
// index per element.
struct ZeroBlock {
  float* a;
  long rows, ld;
  HPLX_HD void operator()(long i) const { a[i % rows + (i / rows) * ld] = 0.0f; }
};

// The unblocked LU without pivoting of the n x n FP32 block at a (leading
// dimension lda): the leaf of the diagonal block's recursion
// (diagonal_block.hpp), one launch of two phases per column c:
//   0: index 0 checks the pivot A(c, c), indices 1 .. n-c-1 divide the
//      column below it by the pivot;
//   1: the rank-1 update of the block right of and below the pivot.
// A zero or non-finite pivot sets *bad to 1 and the work goes on (every
// process then takes the same path; the refinement reports the failure).
struct NopivLeaf {
  float* a;
  long lda, n;
  int* bad;

  HPLX_HD long phases() const { return 2 * n; }
  HPLX_HD long extent(long phase) const {
    const long below = n - phase / 2 - 1;
    return phase % 2 == 0 ? below + 1 : below * below;
  }
  HPLX_HD void operator()(long phase, long i) const {
    const long c = phase / 2, below = n - c - 1;
    const float pivot = a[c + c * lda];
    if (phase % 2 == 0) {
      // pivot - pivot is 0 for a finite pivot, NaN for an infinite or NaN one
      if (i == 0 && (pivot == 0.0f || !(pivot - pivot == 0.0f))) *bad = 1;
      if (i > 0) a[c + i + c * lda] /= pivot;
      return;
    }
    const long r = c + 1 + i % below, j = c + 1 + i / below;
    a[r + j * lda] -= a[r + c * lda] * a[c + j * lda];
  }
};

}  // namespace hplx::hplmxp::kernels
