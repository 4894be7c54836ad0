#include "hplmxp/lu_nopiv.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/panel_broadcast.hpp"

namespace hplx::hplmxp {
namespace {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

// Unblocked LU without pivoting of the jb x jb diagonal block: at most NB
// columns, a small share of the flops. Returns false on a zero or
// non-finite pivot (and goes on, so every process takes the same path).
bool factor_diagonal_block(long jb, float* a, long lda) {
  bool ok = true;
  for (long k = 0; k < jb; ++k) {
    const float pivot = a[k + k * lda];
    if (pivot == 0.0f || !std::isfinite(pivot)) ok = false;
    for (long i = k + 1; i < jb; ++i) a[i + k * lda] /= pivot;
    for (long j = k + 1; j < jb; ++j) {
      const float ukj = a[k + j * lda];
      for (long i = k + 1; i < jb; ++i) a[i + j * lda] -= a[i + k * lda] * ukj;
    }
  }
  return ok;
}

}  // namespace

LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& q, float* a,
                           lu::Broadcast bcast, const PanelDone& panel_done) {
  const long lda = l.lda;
  int bad = 0;
  LuNopivResult result;
  std::vector<float> diag(static_cast<std::size_t>(l.nb) * l.nb);
  // The panel, FP32 in double storage: LBCAST moves doubles.
  std::vector<double> w_store((static_cast<std::size_t>(std::max(1L, l.mloc)) * l.nb + 1) / 2);
  float* const w = reinterpret_cast<float*>(w_store.data());
  std::vector<float> u(static_cast<std::size_t>(std::max(1L, l.nloc)) * l.nb);
  for (long j0 = 0; j0 < l.n; j0 += l.nb) {
    const long jb = std::min<long>(l.nb, l.n - j0);
    const int pr = lu::owner_of(j0, l.nb, l.nprow);
    const int pc = lu::owner_of(j0, l.nb, l.npcol);
    const long i0 = lu::local_start(j0, l.nb, l.myrow, l.nprow);  // my first row >= j0
    const long i1 = lu::local_start(j0 + jb, l.nb, l.myrow, l.nprow);
    const long c0 = lu::local_start(j0, l.nb, l.mycol, l.npcol);
    const long c1 = lu::local_start(j0 + jb, l.nb, l.mycol, l.npcol);
    const long mrest = l.mloc - i0;  // my rows of the panel (the same along a process row)
    const long ldw = std::max(1L, mrest);
    const long ntrail = l.nloc - c1;
    PanelTimes times{j0, jb};
    double t = wall_time();

    if (l.mycol == pc) {
      if (l.myrow == pr) {
        float* akk = a + i0 + c0 * lda;
        if (!factor_diagonal_block(jb, akk, lda)) bad = 1;
        for (long j = 0; j < jb; ++j) std::copy_n(akk + j * lda, jb, diag.data() + j * jb);
      }
      HPLX_MPI_CHECK(MPI_Bcast(diag.data(), static_cast<int>(jb * jb), MPI_FLOAT, pr, grid.col()));
      if (l.mloc > i1)  // L21 = A21 U11^-1
        q.trsm(Side::Right, Uplo::Upper, Trans::No, Diag::NonUnit, l.mloc - i1, jb, 1.0f,
               diag.data(), jb, a + i1 + c0 * lda, lda);
      device::copy_matrix(q, mrest, jb, a + i0 + c0 * lda, lda, w, ldw);
      q.synchronize();
    }
    times.fact_s = wall_time() - t;
    t = wall_time();
    if (l.npcol > 1) lu::broadcast_row(w_store.data(), (mrest * jb + 1) / 2, bcast, pc, grid.row());
    times.bcast_s = wall_time() - t;
    t = wall_time();
    if (l.myrow == pr) {
      // U12 = L11^-1 A12; L11 is the top of the panel on this process row.
      if (ntrail > 0) {
        q.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, jb, ntrail, 1.0f, w, ldw,
               a + i0 + c1 * lda, lda);
        device::copy_matrix(q, jb, ntrail, a + i0 + c1 * lda, lda, u.data(), jb);
      }
      q.synchronize();
    }
    HPLX_MPI_CHECK(MPI_Bcast(u.data(), static_cast<int>(jb * ntrail), MPI_FLOAT, pr, grid.col()));
    if (l.mloc > i1 && ntrail > 0)  // A22 -= L21 U12
      q.gemm(Trans::No, Trans::No, l.mloc - i1, ntrail, jb, -1.0f, w + (i1 - i0), ldw, u.data(), jb,
             1.0f, a + i1 + c1 * lda, lda);
    q.synchronize();
    times.update_s = wall_time() - t;
    result.panels.push_back(times);
    if (panel_done) panel_done(j0 + jb);
  }
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, grid.all()));
  result.bad_pivot = bad != 0;
  return result;
}

}  // namespace hplx::hplmxp
