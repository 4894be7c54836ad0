// A few hundred configurations drawn at random from everything a run can
// choose (grid shape and mapping, N, NB, DEPTH, broadcast, swap and its
// threshold, RFACT, PFACT, NBMIN, NDIV, alignment, threads, FACT overlap,
// row-swap pipeline and its segment widths):
// every one must pass netlib's residual check. The generator is seeded the
// same on every rank, so all ranks draw the same configurations.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <random>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/run/verify.hpp"
#include "lu/schedules/pdgesv.hpp"
#include "random_test_case.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx::lu {
namespace {

TEST(LuRandomConfigs, EveryDrawnConfigurationPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::mt19937 rng(20261121);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  constexpr int kConfigs = 300;
  int ran = 0;
  for (int i = 0; i < kConfigs; ++i) {
    TestCase t;
    draw_common(t, pick, size, 48);
    t.schedule.fact_overlap = pick(0, 1) == 1;
    t.schedule.swap_pipeline = pick(0, 1) == 1;
    t.schedule.fact_threads = pick(0, 2);
    t.schedule.swap_first = pick(1, 8) / 8.0;
    t.schedule.swap_growth = 1.0 + pick(0, 4) * 0.5;
    t.schedule.split = pick(0, 1) == 1 ? pick(1, 9) / 10.0 : 0.0;
    draw_forms(t, pick);
    const int threads = draw_threads(pick, size);

    ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
    if (!grid.in_grid()) continue;
    omp_set_num_threads(threads);
    LocalMatrix a(test::test_context().device(), t.n, t.nb, grid, t.alignment);
    generate_matrix(test::test_context().device().compute(), a, grid);
    const SolveOutcome out = pdgesv(test::test_context(), a, t, grid);
    const double r =
        check_solution(test::test_context().device(), a, out.x, grid, 16.0).scaled_residual;
    EXPECT_EQ(out.info, 0) << describe(t, threads);
    EXPECT_LT(r, 16.0) << describe(t, threads);
    ++ran;
  }
  omp_set_num_threads(1);
  EXPECT_GT(ran, 0);
}

}  // namespace
}  // namespace hplx::lu
