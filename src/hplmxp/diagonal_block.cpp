#include "hplmxp/diagonal_block.hpp"

#include "device/launch.hpp"
#include "hplmxp/kernels/nopiv_kernels.hpp"
#include "lu/phases/fact/recursive_steps.hpp"

namespace hplx::hplmxp {

void factor_diagonal_block(device::Queue& q, long n, float* a, long lda, int* bad) {
  using device::Diag;
  using device::Side;
  using device::Trans;
  using device::Uplo;
  if (n <= 0) return;
  if (n <= kLeafColumns) {
    // One block: a leaf's phases are too small to share across the GPU.
    device::launch_phased(q, kernels::NopivLeaf{a, lda, n, bad}, 1);
    return;
  }
  const long n1 = lu::recursion_part(n, kLeafColumns, 2), n2 = n - n1;
  float* a12 = a + n1 * lda;
  float* a21 = a + n1;
  float* a22 = a + n1 + n1 * lda;
  factor_diagonal_block(q, n1, a, lda, bad);
  q.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, n1, n2, 1.0f, a, lda, a12, lda);
  q.trsm(Side::Right, Uplo::Upper, Trans::No, Diag::NonUnit, n2, n1, 1.0f, a, lda, a21, lda);
  q.gemm(Trans::No, Trans::No, n2, n2, n1, -1.0f, a21, lda, a12, lda, 1.0f, a22, lda);
  factor_diagonal_block(q, n2, a22, lda, bad);
}

}  // namespace hplx::hplmxp
