// The dag schedule's task cuts: with P > 1 the next panel's block has its
// own row swap; with Q > 1 the rest's swap runs after the next panel's
// factorization, with Q = 1 it is posted before it and completed after it
// (the early rest swap; HPLX_DAG_EARLY_SWAP=0 gives the blocking swap, split
// only with two threads); non-urgent blocks are updated in groups. Every grid of the
// job's ranks with odd N and NB (N a multiple of NB or not), group widths
// from one block to all of them, priorities on and off: the solution passes
// netlib's residual check and agrees with the bsp schedule's.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/pdgesv.hpp"
#include "lu/verify.hpp"
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

// Sets HPLX_DAG_GROUP_COLUMNS for one solve (the same on every rank).
class GroupColumns {
 public:
  explicit GroupColumns(long columns) {
    setenv("HPLX_DAG_GROUP_COLUMNS", std::to_string(columns).c_str(), 1);
  }
  ~GroupColumns() { unsetenv("HPLX_DAG_GROUP_COLUMNS"); }
  GroupColumns(const GroupColumns&) = delete;
  GroupColumns& operator=(const GroupColumns&) = delete;
};

// Solves t with bsp (DEPTH 1), then with the dag (priorities as given) on
// `threads` threads while the guard make_guard() returns is alive; the dag's
// solution must pass the residual check and agree with bsp's.
template <class MakeGuard>
void expect_dag_like_bsp(TestCase t, const ProcessGrid& grid, bool priorities, int threads,
                         MakeGuard make_guard, const std::string& what) {
  long info = 0;
  t.depth = 1;
  const double bsp = residual(t, grid, &info);
  t.schedule.kind = ScheduleKind::Dag;
  t.schedule.dag_priorities = priorities;
  double dag = 0;
  {
    const auto guard = make_guard();
    omp_set_num_threads(threads);
    dag = residual(t, grid, &info);
    omp_set_num_threads(1);
  }
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
          expect_dag_like_bsp(
              t, grid, priorities, threads, [&] { return GroupColumns(blocks * s.nb); }, what);
        }
      }
    }
  }
}

// A group width that is not a number is refused with a usage error.
// A small dag solve on one process row, which must refuse what the caller
// set in the environment with a usage error.
void expect_dag_usage_error() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  TestCase t;
  t.schedule.kind = ScheduleKind::Dag;
  t.grid = {1, size};
  t.n = 40;
  t.nb = 8;
  ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
  long info = 0;
  EXPECT_THROW(residual(t, grid, &info), UsageError);
}

TEST(LuDagCuts, BadGroupColumnsIsAUsageError) {
  setenv("HPLX_DAG_GROUP_COLUMNS", "wide", 1);
  expect_dag_usage_error();
  unsetenv("HPLX_DAG_GROUP_COLUMNS");
}

// Sets HPLX_DAG_EARLY_SWAP for one solve (the same on every rank).
class EarlySwap {
 public:
  explicit EarlySwap(const char* value) { setenv("HPLX_DAG_EARLY_SWAP", value, 1); }
  ~EarlySwap() { unsetenv("HPLX_DAG_EARLY_SWAP"); }
  EarlySwap(const EarlySwap&) = delete;
  EarlySwap& operator=(const EarlySwap&) = delete;
};

// One process column (P = ranks, the grid where the early rest swap is
// used): on and off, one and two threads, both swap algorithms (binary
// exchange's two stages and the long swap's), priorities on and off.
TEST(LuDagCuts, OneColumnEarlySwapOnAndOffPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const char* early : {"1", "0"}) {
    for (const int threads : {1, 2}) {
      for (const bool priorities : {true, false}) {
        for (const bool long_swap : {false, true}) {
          TestCase t;
          t.grid = {size, 1};
          t.n = 157;
          t.nb = 11;
          t.swap = long_swap ? SwapAlgorithm::Long : SwapAlgorithm::BinaryExchange;
          t.equilibration = priorities;  // the long swap with and without its second stage
          ProcessGrid grid(MPI_COMM_WORLD, size, 1, t.pmap);
          const std::string what =
              std::string("early=") + early + " threads=" + std::to_string(threads) +
              " priorities=" + std::to_string(priorities) + " long=" + std::to_string(long_swap);
          expect_dag_like_bsp(
              t, grid, priorities, threads, [&] { return EarlySwap(early); }, what);
        }
      }
    }
  }
}

// HPLX_DAG_EARLY_SWAP other than 0 or 1 is refused with a usage error.
TEST(LuDagCuts, BadEarlySwapIsAUsageError) {
  EarlySwap env("yes");
  expect_dag_usage_error();
}

}  // namespace
}  // namespace hplx::lu
