#include "hplmxp/triangular_solve.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "device/mirror.hpp"
#include "lu/block_cyclic.hpp"

namespace hplx::hplmxp {
namespace {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

// Block [j0, j0 + jb) of x, solved on process (pr, pc), to every process:
// along the owner's process row, then down every process column.
void share_block(const ProcessGrid& grid, int pr, int pc, float* block, long jb) {
  if (grid.myrow() == pr)
    HPLX_MPI_CHECK(MPI_Bcast(block, static_cast<int>(jb), MPI_FLOAT, pc, grid.row()));
  HPLX_MPI_CHECK(MPI_Bcast(block, static_cast<int>(jb), MPI_FLOAT, pr, grid.col()));
}

}  // namespace

void solve_lu(const Layout& l, const ProcessGrid& grid, device::Queue& q, const float* lu,
              const float* b, float* x) {
  const long lda = l.lda;
  std::copy_n(b, l.n, x);
  // x in the order of my local columns, filled as blocks are solved; the
  // partial products; the block being solved. Host copies for MPI, the
  // queue's memory for BLAS (the same memory on the host backend).
  device::Mirror<float> xloc(q.backend()), partial(q.backend()), block(q.backend());
  xloc.assign(std::max(1L, l.nloc), 0.0f);
  xloc.to_device(q);
  partial.resize(l.nb);
  block.resize(l.nb);
  std::vector<float> total(static_cast<std::size_t>(l.nb));
  const long nblocks = (l.n + l.nb - 1) / l.nb;

  auto step = [&](long k, bool lower) {
    const long j0 = k * l.nb;
    const long jb = std::min<long>(l.nb, l.n - j0);
    const int pr = lu::owner_of(j0, l.nb, l.nprow);
    const int pc = lu::owner_of(j0, l.nb, l.npcol);
    const long c0 = lu::local_start(j0, l.nb, l.mycol, l.npcol);
    const long c1 = lu::local_start(j0 + jb, l.nb, l.mycol, l.npcol);
    if (l.myrow == pr) {
      const long i0 = lu::local_start(j0, l.nb, l.myrow, l.nprow);
      // Columns already solved: left of the block for L, right of it for U.
      const long cfirst = lower ? 0 : c1;
      const long count = lower ? c0 : l.nloc - c1;
      if (count > 0) {
        q.gemv(Trans::No, jb, count, 1.0f, lu + i0 + cfirst * lda, lda, xloc.device() + cfirst, 1,
               0.0f, partial.device(), 1);
        partial.to_host(q, 0, jb);
        q.synchronize();
      } else {
        std::fill_n(partial.data(), jb, 0.0f);
      }
      HPLX_MPI_CHECK(MPI_Reduce(partial.data(), total.data(), static_cast<int>(jb), MPI_FLOAT,
                                MPI_SUM, pc, grid.row()));
      if (l.mycol == pc) {
        for (long t = 0; t < jb; ++t) block[t] = x[j0 + t] - total[t];
        block.to_device(q, 0, jb);
        q.trsm(Side::Left, lower ? Uplo::Lower : Uplo::Upper, Trans::No,
               lower ? Diag::Unit : Diag::NonUnit, jb, 1, 1.0f, lu + i0 + c0 * lda, lda,
               block.device(), jb);
        block.to_host(q, 0, jb);
        q.synchronize();
        std::copy_n(block.data(), jb, x + j0);
      }
    }
    share_block(grid, pr, pc, x + j0, jb);
    if (l.mycol == pc) {
      std::copy_n(x + j0, jb, xloc.data() + c0);
      xloc.to_device(q, c0, jb);
      q.synchronize();
    }
  };
  for (long k = 0; k < nblocks; ++k) step(k, true);
  std::fill(xloc.begin(), xloc.end(), 0.0f);
  xloc.to_device(q);
  for (long k = nblocks - 1; k >= 0; --k) step(k, false);
  q.synchronize();
}

void solve_lu_on_queue(const Layout& l, const ProcessGrid& grid, device::Queue& q, const float* lu,
                       float* x) {
  if (l.nprow * l.npcol == 1) {
    if (l.n == 0) return;
    q.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, l.n, 1, 1.0f, lu, l.lda, x, l.n);
    q.trsm(Side::Left, Uplo::Upper, Trans::No, Diag::NonUnit, l.n, 1, 1.0f, lu, l.lda, x, l.n);
    return;
  }
  std::vector<float> host(static_cast<std::size_t>(l.n));
  device::copy(q, host.data(), x, l.n);
  q.synchronize();
  solve_lu(l, grid, q, lu, host.data(), host.data());
  device::copy(q, x, host.data(), l.n);
  q.synchronize();  // `host` goes out of scope
}

}  // namespace hplx::hplmxp
