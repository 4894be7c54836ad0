#include "lu/phases/solve.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "device/device.hpp"
#include "device/host_blas.hpp"

namespace hplx::lu {
namespace host_blas = device::host_blas;

std::vector<double> solve_upper(device::Device& dev, const LocalMatrix& a,
                                const ProcessGrid& grid) {
  const long n = a.n();
  const int nb = a.nb(), nprow = grid.nprow(), npcol = grid.npcol();
  const int myrow = grid.myrow(), mycol = grid.mycol();
  std::vector<double> x(local_count(n, nb, mycol, npcol), 0.0);
  if (n == 0) return x;
  const int b_col = owner_of(n, nb, npcol);
  const long lb = global_to_local(n, nb, npcol);
  device::Queue& q = dev.compute();
  // t: the sum of U(i, j) x_j over the solved blocks, on the device.
  device::Buffer<double> t = dev.alloc<double>(a.mp()), d_y = dev.alloc<double>(nb);
  {
    const std::vector<double> zeros(a.mp(), 0.0);
    device::copy(q, t.data(), zeros.data(), a.mp());
    q.synchronize();  // zeros goes now
  }
  std::vector<double> contrib(nb), y(nb), b(nb), u(static_cast<std::size_t>(nb) * nb);

  const long nblocks = (n + nb - 1) / nb;
  for (long blk = nblocks - 1; blk >= 0; --blk) {
    const long kk = blk * nb;
    const int w = static_cast<int>(std::min<long>(nb, n - kk));
    const int pr = owner_of(kk, nb, nprow), pc = owner_of(kk, nb, npcol);
    const long lr = global_to_local(kk, nb, nprow), lc = global_to_local(kk, nb, npcol);
    if (myrow == pr) {
      device::copy(q, contrib.data(), t.data() + lr, w);
      if (mycol == b_col) device::copy(q, b.data(), a.at(lr, lb), w);
      if (mycol == pc) device::copy_matrix(q, w, w, a.at(lr, lc), a.lda(), u.data(), w);
      q.synchronize();
      for (int i = 0; i < w; ++i) contrib[i] -= mycol == b_col ? b[i] : 0.0;
      if (npcol > 1) {
        HPLX_MPI_CHECK(MPI_Reduce(mycol == pc ? MPI_IN_PLACE : contrib.data(), contrib.data(), w,
                                  MPI_DOUBLE, MPI_SUM, pc, grid.row()));
      }
      if (mycol == pc) {
        for (int i = 0; i < w; ++i) y[i] = -contrib[i];
        host_blas::trsv(host_blas::Uplo::Upper, host_blas::Trans::No, host_blas::Diag::NonUnit, w,
                        u.data(), w, y.data(), 1);
      }
    }
    if (mycol == pc) {
      if (nprow > 1) HPLX_MPI_CHECK(MPI_Bcast(y.data(), w, MPI_DOUBLE, pr, grid.col()));
      std::copy_n(y.data(), w, x.begin() + lc);
      const long above = local_start(kk, nb, myrow, nprow);
      device::copy(q, d_y.data(), y.data(), w);
      q.gemv(device::Trans::No, above, w, 1.0, a.at(0, lc), a.lda(), d_y.data(), 1, 1.0, t.data(),
             1);
      q.synchronize();  // y is reused by the next block
    }
  }
  return x;
}

}  // namespace hplx::lu
