#include "hplmxp/triangle_inverse.hpp"

#include "device/launch.hpp"
#include "hplmxp/kernels/nopiv_kernels.hpp"

namespace hplx::hplmxp {
namespace {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

// x := T^-1 on the n x n block at x (leading dimension ldx), which holds
// the identity on entry: the leaves by TRSM (which leaves the other
// triangle's zeros exact), the rest by two GEMMs per level. The product
// between them goes, transposed, into the block of the other triangle,
// zero before and after, so that each GEMM writes where it does not read.
void invert_block(device::Queue& q, Uplo uplo, long n, const float* t, long ldt, float* x,
                  long ldx) {
  if (n <= kInverseLeafColumns) {
    q.trsm(Side::Left, uplo, Trans::No, uplo == Uplo::Lower ? Diag::Unit : Diag::NonUnit, n, n,
           1.0f, t, ldt, x, ldx);
    return;
  }
  const long n1 = n / 2, n2 = n - n1;
  float* x11 = x;
  float* x21 = x + n1;
  float* x12 = x + n1 * ldx;
  float* x22 = x + n1 + n1 * ldx;
  invert_block(q, uplo, n1, t, ldt, x11, ldx);
  invert_block(q, uplo, n2, t + n1 + n1 * ldt, ldt, x22, ldx);
  if (uplo == Uplo::Lower) {
    // X21 = -X22 (T21 X11): (T21 X11)^T = X11^T T21^T into X12 first.
    q.gemm(Trans::Yes, Trans::Yes, n1, n2, n1, 1.0f, x11, ldx, t + n1, ldt, 0.0f, x12, ldx);
    q.gemm(Trans::No, Trans::Yes, n2, n1, n2, -1.0f, x22, ldx, x12, ldx, 0.0f, x21, ldx);
    device::launch(q, n1 * n2, kernels::ZeroBlock{x12, n1, ldx});
  } else {
    // X12 = -X11 (T12 X22): (T12 X22)^T = X22^T T12^T into X21 first.
    q.gemm(Trans::Yes, Trans::Yes, n2, n1, n2, 1.0f, x22, ldx, t + n1 * ldt, ldt, 0.0f, x21, ldx);
    q.gemm(Trans::No, Trans::Yes, n1, n2, n1, -1.0f, x11, ldx, x21, ldx, 0.0f, x12, ldx);
    device::launch(q, n2 * n1, kernels::ZeroBlock{x21, n2, ldx});
  }
}

}  // namespace

void invert_triangle(device::Queue& q, Uplo uplo, long n, const float* t, long ldt,
                     float* inverse) {
  if (n <= 0) return;
  device::launch(q, n * n, kernels::Identity{inverse, n});
  invert_block(q, uplo, n, t, ldt, inverse, n);
}

}  // namespace hplx::hplmxp
