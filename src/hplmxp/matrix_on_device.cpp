#include "hplmxp/matrix_on_device.hpp"

#include "core/error.hpp"
#include "device/launch.hpp"
#include "device/mirror.hpp"
#include "hplmxp/kernels/matgen_kernels.hpp"
#include "hplmxp/mcg.hpp"

namespace hplx::hplmxp {

void generate_matrix_float(device::Queue& q, const Layout& l, const ProcessGrid& grid, float* a,
                           double diagonal_scale) {
  const kernels::LocalBlocks at{l.n,    l.nb,    l.nprow, l.npcol,
                                l.myrow, l.mycol, l.mloc,  l.nloc};
  const kernels::GenerateFloatRuns runs{at, a, l.lda};
  device::launch(q, l.nloc * runs.runs_per_column(), runs, 64);
  device::Mirror<double> sums(q.backend());
  sums.resize(std::max(1L, l.mloc));
  device::launch(q, l.mloc,
                 kernels::OffDiagonalSums{at, mcg_state_after(static_cast<std::uint64_t>(l.n)),
                                          sums.device()},
                 16);
  sums.to_host(q);
  q.synchronize();
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(l.mloc), MPI_DOUBLE,
                               MPI_SUM, grid.row()));
  sums.to_device(q);
  device::launch(q, l.mloc, kernels::SetDiagonal{at, sums.device(), diagonal_scale, a, l.lda}, 1024);
  q.synchronize();  // `sums` goes out of scope
}

}  // namespace hplx::hplmxp
