// The dag schedule's task cuts: with P > 1 (and Q > 1 or two threads) the
// next panel's block has its own row swap and the rest's swap runs after
// the next panel's factorization; non-urgent blocks are updated in groups. Every grid of the
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

namespace hplx::lu {
namespace {

double residual(const TestCase& t, const ProcessGrid& grid, long* info) {
  LocalMatrix a(t.n, t.nb, grid, t.alignment);
  generate_local(t.n, t.nb, grid.nprow(), grid.npcol(), grid.myrow(), grid.mycol(), a.data(),
                 a.lda());
  const SolveOutcome out = pdgesv(a, t, grid);
  *info = out.info;
  return check_solution(a, out.x, grid, 16.0).scaled_residual;
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
          // One process column splits the swap only with more than one
          // thread: the first shape runs two threads even where that
          // oversubscribes the cores, so both cuts are tested on every grid.
          const bool two = s.nb == 13 || size * 2 <= omp_get_num_procs();
          const int threads = two ? 2 : 1;
          const std::string what =
              std::to_string(p) + "x" + std::to_string(q) + " N=" + std::to_string(s.n) +
              " NB=" + std::to_string(s.nb) + " group=" + std::to_string(blocks) +
              " priorities=" + std::to_string(priorities) + " threads=" + std::to_string(threads);
          long info = 0;
          t.depth = 1;
          const double bsp = residual(t, grid, &info);
          t.schedule.kind = ScheduleKind::Dag;
          t.schedule.dag_priorities = priorities;
          double dag = 0;
          {
            GroupColumns group(blocks * s.nb);
            omp_set_num_threads(threads);
            dag = residual(t, grid, &info);
            omp_set_num_threads(1);
          }
          EXPECT_EQ(info, 0) << what;
          EXPECT_LT(dag, 16.0) << what;
          EXPECT_NEAR(dag, bsp, 0.5) << what;
        }
      }
    }
  }
}

// A group width that is not a number is refused with a usage error.
TEST(LuDagCuts, BadGroupColumnsIsAUsageError) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  TestCase t;
  t.schedule.kind = ScheduleKind::Dag;
  t.grid = {1, size};
  t.n = 40;
  t.nb = 8;
  ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
  setenv("HPLX_DAG_GROUP_COLUMNS", "wide", 1);
  long info = 0;
  EXPECT_THROW(residual(t, grid, &info), UsageError);
  unsetenv("HPLX_DAG_GROUP_COLUMNS");
}

}  // namespace
}  // namespace hplx::lu
