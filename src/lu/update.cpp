#include "lu/update.hpp"

#include "core/blas.hpp"

namespace hplx::lu {

using blas::Diag;
using blas::Side;
using blas::Trans;
using blas::Uplo;

void update_trailing(LocalMatrix& a, const Panel& p, double* ut, long ldut, long lc0, long nn,
                     const ProcessGrid& grid) {
  const long jb = p.jb, ld = p.ld();
  if (jb == 0 || nn == 0) return;
  // U^T := U^T L11^-T, the transposed form of U := L11^-1 U.
  blas::trsm(Side::Right, Uplo::Lower, Trans::Yes, Diag::Unit, nn, jb, 1.0, p.a1(), ld, ut, ldut);
  blas::gemm(Trans::No, Trans::Yes, p.m2, nn, jb, -1.0, p.a2(), ld, ut, ldut, 1.0,
             a.at(p.a2_first, lc0), a.lda());
  if (grid.myrow() == p.owner_row) {
    const long lr0 = a.row_start(p.k);
    for (long c = 0; c < nn; ++c)
      for (long r = 0; r < jb; ++r) *a.at(lr0 + r, lc0 + c) = ut[c + r * ldut];
  }
}

void update_in_place(LocalMatrix& a, const Panel& p, long lc0, long nn) {
  const long jb = p.jb, ld = p.ld();
  if (jb == 0 || nn == 0) return;
  double* u = a.at(a.row_start(p.k), lc0);
  blas::trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, jb, nn, 1.0, p.a1(), ld, u, a.lda());
  blas::gemm(Trans::No, Trans::No, p.m2, nn, jb, -1.0, p.a2(), ld, u, a.lda(), 1.0,
             a.at(p.a2_first, lc0), a.lda());
}

}  // namespace hplx::lu
