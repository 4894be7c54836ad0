#include "lu/phases/update/update.hpp"

#include <utility>

#include "device/launch.hpp"
#include "lu/kernels/row_kernels.hpp"

namespace hplx::lu {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

void update_trailing(device::Queue& q, LocalMatrix& a, const Panel& p, double* u, long ldu,
                     Forms forms, long lc0, long nn, const ProcessGrid& grid) {
  const long jb = p.jb, ld = p.ld();
  if (jb == 0 || nn == 0) return;
  // L1 stored as is is L11 (lower); transposed it is L11^T (upper).
  const Uplo l1_uplo = forms.l1_transposed ? Uplo::Upper : Uplo::Lower;
  if (forms.u_transposed) {
    // U^T := U^T L11^-T, the transposed form of U := L11^-1 U.
    q.trsm(Side::Right, l1_uplo, forms.l1_transposed ? Trans::No : Trans::Yes, Diag::Unit, nn, jb,
           1.0, p.d_a1(), ld, u, ldu);
  } else {
    q.trsm(Side::Left, l1_uplo, forms.l1_transposed ? Trans::Yes : Trans::No, Diag::Unit, jb, nn,
           1.0, p.d_a1(), ld, u, ldu);
  }
  q.gemm(Trans::No, forms.u_transposed ? Trans::Yes : Trans::No, p.m2, nn, jb, -1.0, p.d_a2(), ld,
         u, ldu, 1.0, a.at(p.a2_first, lc0), a.lda());
  if (grid.myrow() == p.owner_row) {
    double* rows = a.at(a.row_start(p.k), lc0);
    if (forms.u_transposed)
      device::launch(q, nn, kernels::StoreTransposedU{u, ldu, p.jb, rows, a.lda()});
    else
      device::copy_matrix(q, jb, nn, u, ldu, rows, a.lda());
  }
}

void update_in_place(device::Queue& q, LocalMatrix& a, const Panel& p, bool l1_transposed, long lc0,
                     long nn) {
  const long jb = p.jb, ld = p.ld();
  if (jb == 0 || nn == 0) return;
  double* u = a.at(a.row_start(p.k), lc0);
  q.trsm(Side::Left, l1_transposed ? Uplo::Upper : Uplo::Lower,
         l1_transposed ? Trans::Yes : Trans::No, Diag::Unit, jb, nn, 1.0, p.d_a1(), ld, u, a.lda());
  q.gemm(Trans::No, Trans::No, p.m2, nn, jb, -1.0, p.d_a2(), ld, u, a.lda(), 1.0,
         a.at(p.a2_first, lc0), a.lda());
}

}  // namespace hplx::lu
