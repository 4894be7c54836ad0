// The dag schedule (--schedule dag): configurations drawn at random (grid
// shape and mapping, N, NB, broadcast, swap, factorization, storage forms,
// broadcast pipelining, priorities on or off, one or two threads) must all
// pass netlib's residual check, and the per-iteration record must have one
// entry per panel with a running clock. The generator is seeded the same on
// every rank, so all ranks draw the same configurations.
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

struct Result {
  long info = 0;
  double residual = 0;
  SolveOutcome out;
};

Result solve(const TestCase& t, const ProcessGrid& grid) {
  LocalMatrix a(test::test_context().device(), t.n, t.nb, grid, t.alignment);
  generate_matrix(test::test_context().device().compute(), a, grid);
  Result r;
  r.out = pdgesv(test::test_context(), a, t, grid);
  r.info = r.out.info;
  r.residual =
      check_solution(test::test_context().device(), a, r.out.x, grid, 16.0).scaled_residual;
  return r;
}

TEST(LuDag, EveryDrawnConfigurationPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::mt19937 rng(20261121 + 4);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  constexpr int kConfigs = 150;
  int ran = 0;
  for (int i = 0; i < kConfigs; ++i) {
    TestCase t;
    t.schedule.kind = ScheduleKind::Dag;
    draw_common(t, pick, size, 40);  // DEPTH is ignored by the dag schedule
    draw_forms(t, pick);
    t.schedule.dag_priorities = pick(0, 1) == 1;
    const int threads = draw_threads(pick, size);

    ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
    if (!grid.in_grid()) continue;
    omp_set_num_threads(threads);
    const Result r = solve(t, grid);
    EXPECT_EQ(r.info, 0) << describe(t, threads);
    EXPECT_LT(r.residual, 16.0) << describe(t, threads);
    const long panels = (t.n + t.nb - 1) / t.nb;
    ASSERT_EQ(static_cast<long>(r.out.iterations.size()), panels) << describe(t, threads);
    double last = 0;
    for (const IterationTimes& it : r.out.iterations) {
      EXPECT_GE(it.elapsed, last) << describe(t, threads);
      last = it.elapsed;
    }
    ++ran;
  }
  omp_set_num_threads(1);
  EXPECT_GT(ran, 0);
}

// Every grid of the job's ranks, two threads per rank (tasks really run
// concurrently, MPI from whichever thread holds the chain), with and
// without priorities: the solution passes, as the bsp schedule's does.
TEST(LuDag, EveryGridWithTwoThreadsPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int p = 1; p <= size; ++p) {
    if (size % p != 0) continue;
    for (bool priorities : {true, false}) {
      TestCase t;
      t.schedule.kind = ScheduleKind::Dag;
      t.schedule.dag_priorities = priorities;
      t.grid = {p, size / p};
      t.n = 200;
      t.nb = 16;
      t.bcast = Broadcast::OneRingM;
      ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
      omp_set_num_threads(2);
      const Result dag = solve(t, grid);
      t.schedule.kind = ScheduleKind::Bsp;
      t.depth = 1;
      const Result bsp = solve(t, grid);
      omp_set_num_threads(1);
      EXPECT_EQ(dag.info, 0);
      EXPECT_LT(dag.residual, 16.0) << p << "x" << size / p << " priorities=" << priorities;
      // Same pivots, same arithmetic up to the order of rounding: residuals agree.
      EXPECT_NEAR(dag.residual, bsp.residual, 0.5);
    }
  }
}

// A singular matrix: the dag schedule reports the first zero pivot's
// column, like the bsp one.
TEST(LuDag, ZeroMatrixReportsInfo) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  TestCase t;
  t.schedule.kind = ScheduleKind::Dag;
  t.grid = {1, size};
  t.n = 40;
  t.nb = 8;
  ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
  LocalMatrix a(test::test_context().device(), t.n, t.nb, grid, t.alignment);
  std::fill_n(a.data(), a.lda() * a.nq(), 0.0);
  const SolveOutcome dag = pdgesv(test::test_context(), a, t, grid);
  std::fill_n(a.data(), a.lda() * a.nq(), 0.0);
  t.schedule.kind = ScheduleKind::Bsp;
  const SolveOutcome bsp = pdgesv(test::test_context(), a, t, grid);
  EXPECT_GT(dag.info, 0);
  EXPECT_EQ(dag.info, bsp.info);
}

// The back substitution runs once after either factorization, timed in the
// record's solve phase (it was lost, 0, while each schedule timed its own).
TEST(LuDag, BothSchedulesTimeTheBackSubstitution) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (ScheduleKind kind : {ScheduleKind::Dag, ScheduleKind::Bsp}) {
    TestCase t;
    t.schedule.kind = kind;
    t.grid = {1, size};
    t.n = 600;
    t.nb = 32;
    ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
    LocalMatrix a(test::test_context().device(), t.n, t.nb, grid, t.alignment);
    generate_matrix(test::test_context().device().compute(), a, grid);
    const SolveOutcome out = pdgesv(test::test_context(), a, t, grid);
    EXPECT_EQ(out.info, 0);
    EXPECT_GT(out.phases.solve, 0.0) << (kind == ScheduleKind::Dag ? "dag" : "bsp");
  }
}

}  // namespace
}  // namespace hplx::lu
