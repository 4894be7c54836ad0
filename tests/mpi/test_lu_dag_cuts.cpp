// The dag schedule's task cuts: with P > 1 the next panel's block has its
// own row swap; with Q > 1 the rest's swap runs after the next panel's
// factorization, with Q = 1 it is posted before it and completed after it
// (the early rest swap; dag_early_swap off gives the blocking swap, split
// only with two threads); non-urgent blocks are updated in groups. Every grid of the
// job's ranks with odd N and NB (N a multiple of NB or not), group widths
// from one block to all of them, priorities on and off: the solution passes
// netlib's residual check and agrees with the bsp schedule's.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <string>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/run/verify.hpp"
#include "lu/schedules/pdgesv.hpp"
#include "random_test_case.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx::lu {
namespace {

double residual(const TestCase& t, const ProcessGrid& grid, long* info) {
  LocalMatrix a(test::test_context().device(), t.n, t.nb, grid, t.alignment);
  generate_matrix(test::test_context().device().compute(), a, grid);
  const SolveOutcome out = pdgesv(test::test_context(), a, t, grid);
  *info = out.info;
  return check_solution(test::test_context().device(), a, out.x, grid, 16.0).scaled_residual;
}

// Solves t with bsp (DEPTH 1), then with the dag (priorities as given, t's
// dag_group_columns and dag_early_swap) on `threads` threads; the dag's
// solution must pass the residual check and agree with bsp's.
void expect_dag_like_bsp(TestCase t, const ProcessGrid& grid, bool priorities, int threads,
                         const std::string& what) {
  long info = 0;
  t.depth = 1;
  const double bsp = residual(t, grid, &info);
  t.schedule.kind = ScheduleKind::Dag;
  t.schedule.dag_priorities = priorities;
  omp_set_num_threads(threads);
  const double dag = residual(t, grid, &info);
  omp_set_num_threads(1);
  EXPECT_EQ(info, 0) << what;
  EXPECT_LT(dag, 16.0) << what;
  EXPECT_NEAR(dag, bsp, 0.5) << what;
}

TEST(LuDagCuts, EveryGridGroupAndSwapPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct Shape {
    long n;
    int nb;
  };
  // 13 x 17 = 221: the last block holds only b; the others end mid-block.
  const Shape shapes[] = {{221, 13}, {157, 11}, {95, 7}};
  for (int p = 1; p <= size; ++p) {
    const int q = size / p;
    for (const Shape& s : shapes) {
      for (const long blocks : {1L, 2L, 3L, 100L}) {
        for (const bool priorities : {true, false}) {
          TestCase t;
          t.grid = {p, q};
          t.n = s.n;
          t.nb = s.nb;
          t.swap = blocks == 3 ? SwapAlgorithm::BinaryExchange : SwapAlgorithm::Long;
          t.bcast = priorities ? Broadcast::OneRingM : Broadcast::LongM;
          ProcessGrid grid(MPI_COMM_WORLD, p, q, t.pmap);
          if (!grid.in_grid()) continue;
          // The first shape runs two threads even where that oversubscribes
          // the cores, so one and two threads are tested on every grid.
          const bool two = s.nb == 13 || size * 2 <= omp_get_num_procs();
          const int threads = two ? 2 : 1;
          const std::string what =
              std::to_string(p) + "x" + std::to_string(q) + " N=" + std::to_string(s.n) +
              " NB=" + std::to_string(s.nb) + " group=" + std::to_string(blocks) +
              " priorities=" + std::to_string(priorities) + " threads=" + std::to_string(threads);
          t.schedule.dag_group_columns = blocks * s.nb;
          expect_dag_like_bsp(t, grid, priorities, threads, what);
        }
      }
    }
  }
}

// One process column (P = ranks, the grid where the early rest swap is
// used): on and off, one and two threads, both swap algorithms (binary
// exchange's two stages and the long swap's), priorities on and off.
TEST(LuDagCuts, OneColumnEarlySwapOnAndOffPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const bool early : {true, false}) {
    for (const int threads : {1, 2}) {
      for (const bool priorities : {true, false}) {
        for (const bool long_swap : {false, true}) {
          TestCase t;
          t.grid = {size, 1};
          t.n = 157;
          t.nb = 11;
          t.swap = long_swap ? SwapAlgorithm::Long : SwapAlgorithm::BinaryExchange;
          t.equilibration = priorities;  // the long swap with and without its second stage
          t.schedule.dag_early_swap = early;
          ProcessGrid grid(MPI_COMM_WORLD, size, 1, t.pmap);
          const std::string what = std::string("early=") + (early ? "on" : "off") +
                                   " threads=" + std::to_string(threads) +
                                   " priorities=" + std::to_string(priorities) +
                                   " long=" + std::to_string(long_swap);
          expect_dag_like_bsp(t, grid, priorities, threads, what);
        }
      }
    }
  }
}

}  // namespace
}  // namespace hplx::lu
