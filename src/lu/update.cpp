#include "lu/update.hpp"

#include <omp.h>

#include <algorithm>
#include <utility>

#include "device/host_blas.hpp"

namespace hplx::lu {
namespace host_blas = device::host_blas;
namespace {

// C -= A B for a narrow B (the look-ahead's next panel, jb columns): BLAS
// threads split such a product poorly (about one core's rate on two), so
// outside a parallel region the rows are dealt to the threads instead, each
// calling single-threaded DGEMM on its slice.
void gemm_minus(long m, long n, long k, const double* a, long lda, const double* b, long ldb,
                bool b_transposed, double* c, long ldc) {
  const auto tb = b_transposed ? host_blas::Trans::Yes : host_blas::Trans::No;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  constexpr long kMinRowsPerThread = 256;
  if (threads > 1 && n <= 2 * k && m >= threads * kMinRowsPerThread) {
#pragma omp parallel num_threads(threads)
    {
      const long t = omp_get_thread_num();
      const long r0 = m * t / threads, r1 = m * (t + 1) / threads;
      host_blas::gemm(host_blas::Trans::No, tb, r1 - r0, n, k, -1.0, a + r0, lda, b, ldb, 1.0,
                      c + r0, ldc);
    }
    return;
  }
  host_blas::gemm(host_blas::Trans::No, tb, m, n, k, -1.0, a, lda, b, ldb, 1.0, c, ldc);
}

}  // namespace

using host_blas::Diag;
using host_blas::Side;
using host_blas::Trans;
using host_blas::Uplo;

void update_trailing(LocalMatrix& a, const Panel& p, double* u, long ldu, Forms forms, long lc0,
                     long nn, const ProcessGrid& grid) {
  const long jb = p.jb, ld = p.ld();
  if (jb == 0 || nn == 0) return;
  // L1 stored as is is L11 (lower); transposed it is L11^T (upper).
  const Uplo l1_uplo = forms.l1_transposed ? Uplo::Upper : Uplo::Lower;
  if (forms.u_transposed) {
    // U^T := U^T L11^-T, the transposed form of U := L11^-1 U.
    host_blas::trsm(Side::Right, l1_uplo, forms.l1_transposed ? Trans::No : Trans::Yes, Diag::Unit,
                    nn, jb, 1.0, p.a1(), ld, u, ldu);
  } else {
    host_blas::trsm(Side::Left, l1_uplo, forms.l1_transposed ? Trans::Yes : Trans::No, Diag::Unit,
                    jb, nn, 1.0, p.a1(), ld, u, ldu);
  }
  gemm_minus(p.m2, nn, jb, p.a2(), ld, u, ldu, forms.u_transposed, a.at(p.a2_first, lc0), a.lda());
  if (grid.myrow() == p.owner_row) {
    const long lr0 = a.row_start(p.k);
    for (long c = 0; c < nn; ++c) {
      double* col = a.at(lr0, lc0 + c);
      if (forms.u_transposed) {
        for (long r = 0; r < jb; ++r) col[r] = u[c + r * ldu];
      } else {
        std::copy_n(u + c * ldu, jb, col);
      }
    }
  }
}

void update_in_place(LocalMatrix& a, const Panel& p, bool l1_transposed, long lc0, long nn) {
  const long jb = p.jb, ld = p.ld();
  if (jb == 0 || nn == 0) return;
  double* u = a.at(a.row_start(p.k), lc0);
  host_blas::trsm(Side::Left, l1_transposed ? Uplo::Upper : Uplo::Lower,
                  l1_transposed ? Trans::Yes : Trans::No, Diag::Unit, jb, nn, 1.0, p.a1(), ld, u,
                  a.lda());
  gemm_minus(p.m2, nn, jb, p.a2(), ld, u, a.lda(), false, a.at(p.a2_first, lc0), a.lda());
}

void transpose_l1(Panel& p) {
  double* a1 = p.a1();
  const long ld = p.ld();
  for (long j = 0; j < p.jb; ++j)
    for (long i = j + 1; i < p.jb; ++i) std::swap(a1[i + j * ld], a1[j + i * ld]);
}

}  // namespace hplx::lu
