// The per-iteration record of real solves on every grid that fits the job:
// one entry per panel, the same on every rank after the reduction, flops
// adding up to netlib's count, time moving forward.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/pdgesv.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx::lu {
namespace {

TEST(IterationRecordRun, OneEntryPerPanelConsistentOnEveryRank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int p = 1; p <= size; ++p) {
    for (int q = 1; p * q <= size; ++q) {
      ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
      if (!grid.in_grid()) continue;
      for (int depth : {0, 1, 2}) {
        TestCase t;
        t.n = 301;
        t.nb = 24;
        t.grid = {p, q};
        t.depth = depth;
        t.schedule.swap_pipeline = depth == 2;
        omp_set_num_threads(depth == 1 ? 2 : 1);
        LocalMatrix a(test::test_context().device(), t.n, t.nb, grid);
        generate_matrix(test::test_context().device().compute(), a, grid);
        const SolveOutcome out = pdgesv(test::test_context(), a, t, grid);
        const auto record = max_over_ranks(out.iterations, grid.all());
        const std::string where = "grid " + std::to_string(p) + "x" + std::to_string(q) +
                                  " depth " + std::to_string(depth);
        ASSERT_EQ(record.size(), 13u) << where;  // ceil(301 / 24)
        double flops = 0, last = 0;
        for (std::size_t i = 0; i < record.size(); ++i) {
          const IterationTimes& it = record[i];
          EXPECT_EQ(it.k, static_cast<long>(i)) << where;
          EXPECT_EQ(it.j, static_cast<long>(i) * 24) << where;
          EXPECT_EQ(it.n_trailing, t.n - it.j - it.jb) << where;
          EXPECT_GE(it.elapsed, last) << where;
          EXPECT_GE(it.iter, 0.0) << where;
          EXPECT_GE(it.update, 0.0) << where;
          EXPECT_GE(it.rs_comm, 0.0) << where;
          last = it.elapsed;
          flops += it.flops;
        }
        const double dn = static_cast<double>(t.n);
        EXPECT_NEAR(flops, (2.0 / 3.0) * dn * dn * dn + 1.5 * dn * dn, 1e-6 * dn * dn * dn)
            << where;
        // Rank 0's reduced record is what every rank holds.
        double mine = record.back().elapsed, root = mine;
        MPI_Bcast(&root, 1, MPI_DOUBLE, 0, grid.all());
        EXPECT_EQ(mine, root) << where;
      }
    }
  }
  omp_set_num_threads(1);
}

}  // namespace
}  // namespace hplx::lu
