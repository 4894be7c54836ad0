// The whole distributed solve on every grid shape that fits the job (1x1,
// 1x2, 2x1, 1x3, 3x1, 2x2, 1x4, 4x1), both process mappings, N from 0 to a
// few hundred, NB from 1 to larger than N, every RFACT/PFACT, broadcast and
// swap, look-ahead depth 0-2, 1 or 2 threads, row-swap pipeline and split
// update on or off, L1 and U transposed or not, MPI on device memory or
// not (emulated device): every run must pass
// netlib's residual check.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <memory>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/run/verify.hpp"
#include "lu/schedules/pdgesv.hpp"
#include "tests/device/backends.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx::lu {
namespace {

// The grids of exactly `size` ranks: each rank count's run covers its own
// shapes (1x1; 1x2, 2x1; 1x3, 3x1; 1x4, 2x2, 4x1), the smaller grids being
// the smaller runs' (ranks outside a grid: RanksOutsideTheGridSitOut).
std::vector<GridShape> shapes_of(int size) {
  std::vector<GridShape> out;
  for (int p = 1; p <= size; ++p)
    if (size % p == 0) out.push_back({p, size / p});
  return out;
}

// Every grid test runs on each backend compiled in (a contract test).
class LuGrids : public testing::TestWithParam<device::BackendKind> {
 protected:
  double solve_and_check(const TestCase& t, const ProcessGrid& grid) const {
    const Context& ctx = test::test_context(GetParam());
    LocalMatrix a(ctx.device(), t.n, t.nb, grid);
    generate_matrix(ctx.device().compute(), a, grid);
    SolveOutcome out = pdgesv(ctx, a, t, grid);
    EXPECT_EQ(out.info, 0);
    return check_solution(ctx.device(), a, out.x, grid, 16.0).scaled_residual;
  }
};

TEST_P(LuGrids, EveryShapeMappingSizeAndVariantPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long ns[] = {0, 1, 2, 5, 17, 64, 131, 260};
  const int nbs[] = {1, 3, 16, 64, 300};
  const Factorization facts[] = {Factorization::Left, Factorization::Crout, Factorization::Right};
  const SwapAlgorithm swaps[] = {SwapAlgorithm::BinaryExchange, SwapAlgorithm::Long,
                                 SwapAlgorithm::Mix};
  int variant = 0, runs = 0;
  for (const GridShape& shape : shapes_of(size)) {
    for (GridOrder order : {GridOrder::RowMajor, GridOrder::ColumnMajor}) {
      ProcessGrid grid(MPI_COMM_WORLD, shape.p, shape.q, order);
      for (long n : ns) {
        for (int nb : nbs) {
          if (nb == 1 && n > 131) continue;  // one panel per column: slow, adds nothing
          ++variant;
          if (!grid.in_grid()) continue;
          TestCase t;
          t.n = n;
          t.nb = nb;
          t.grid = shape;
          t.pmap = order;
          t.rfact = facts[variant % 3];
          t.pfact = facts[(variant / 3) % 3];
          t.nbmin = 1 + variant % 4;
          t.ndiv = 2 + variant % 2;
          t.swap = swaps[variant % 3];
          t.swap_threshold = 8;
          t.bcast = static_cast<Broadcast>(variant % 6);
          t.depth = (variant / 6) % 3;
          // Two threads: look-ahead factors the next panel while a thread updates.
          omp_set_num_threads(1 + (variant / 2) % 2);
          t.schedule.swap_pipeline = (variant / 4) % 2 == 1;
          t.schedule.split = (variant / 8) % 2 == 1 ? 0.5 : 0.0;
          t.schedule.modified_long_swap = (variant / 16) % 2 == 0;
          t.l1_transposed = (variant / 5) % 2 == 0;
          t.u_transposed = (variant / 7) % 2 == 0;
          t.equilibration = (variant / 11) % 2 == 0;
          t.schedule.bcast_pipeline = (variant / 13) % 2 == 1;
          // Device backends: FACT's levels of 8 columns and more on the device.
          t.schedule.fact_device_gemm = (variant / 17) % 2 == 0 ? 8 : 0;
          // FACT on the device's queue (--fact-on device) in half the
          // variants: on the host backend its code runs on the host.
          t.schedule.fact_on = (variant / 23) % 2 == 0 ? FactOn::Device : FactOn::Host;
          // MPI on device memory (--cuda-aware-mpi on: LBCAST and the row
          // swaps) in half of those on the emulated device, whose memory
          // any MPI reads.
          t.schedule.device_mpi = GetParam() == device::BackendKind::Emulated &&
                                  t.schedule.fact_on == FactOn::Device && (variant / 29) % 2 == 0;
          const double r = solve_and_check(t, grid);
          EXPECT_LT(r, 16.0) << "grid " << shape.p << "x" << shape.q << " N=" << n << " NB=" << nb
                             << " " << variant_code(t) << " threads " << omp_get_max_threads()
                             << " FACT on the " << name_of(t.schedule.fact_on)
                             << (t.schedule.device_mpi ? ", MPI on device memory" : "");
          ++runs;
        }
      }
    }
  }
  EXPECT_GT(runs, 0);
}

TEST_P(LuGrids, RanksOutsideTheGridSitOut) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ProcessGrid grid(MPI_COMM_WORLD, 1, 1, GridOrder::RowMajor);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EXPECT_EQ(grid.in_grid(), rank == 0);
  if (!grid.in_grid()) return;
  TestCase t;
  t.n = 50;
  t.nb = 8;
  EXPECT_LT(solve_and_check(t, grid), 16.0);
}

HPLX_INSTANTIATE_OVER_BACKENDS(LuGrids);

}  // namespace
}  // namespace hplx::lu
