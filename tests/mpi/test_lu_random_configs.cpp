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
#include <sstream>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/pdgesv.hpp"
#include "lu/verify.hpp"

namespace hplx::lu {
namespace {

std::string describe(const TestCase& t, int threads) {
  std::ostringstream s;
  s << t.grid.p << "x" << t.grid.q << (t.pmap == GridOrder::RowMajor ? " row" : " col")
    << " N=" << t.n << " NB=" << t.nb << " " << variant_code(t) << " swap=" << name_of(t.swap)
    << "/" << t.swap_threshold << " align=" << t.alignment << " threads=" << threads
    << " overlap=" << t.schedule.fact_overlap << " fact_threads=" << t.schedule.fact_threads
    << " pipeline=" << t.schedule.swap_pipeline << "/" << t.schedule.swap_first << "/"
    << t.schedule.swap_growth << " split=" << t.schedule.split
    << " long_swap=" << (t.schedule.modified_long_swap ? "modified" : "netlib")
    << " L1T=" << t.l1_transposed << " UT=" << t.u_transposed << " equil=" << t.equilibration
    << " bcast_pipeline=" << t.schedule.bcast_pipeline;
  return s.str();
}

TEST(LuRandomConfigs, EveryDrawnConfigurationPasses) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::mt19937 rng(20261121);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  constexpr int kConfigs = 300;
  int ran = 0;
  for (int i = 0; i < kConfigs; ++i) {
    TestCase t;
    t.grid.p = pick(1, size);
    t.grid.q = pick(1, size / t.grid.p);
    t.pmap = pick(0, 1) ? GridOrder::RowMajor : GridOrder::ColumnMajor;
    t.n = pick(0, 160);
    t.nb = pick(1, 48);
    t.depth = pick(0, 3);
    t.bcast = static_cast<Broadcast>(pick(0, 5));
    t.swap = static_cast<SwapAlgorithm>(pick(0, 2));
    t.swap_threshold = pick(0, 80);
    t.rfact = static_cast<Factorization>(pick(0, 2));
    t.pfact = static_cast<Factorization>(pick(0, 2));
    t.nbmin = pick(1, 8);
    t.ndiv = pick(2, 4);
    t.alignment = pick(1, 16);
    t.schedule.fact_overlap = pick(0, 1) == 1;
    t.schedule.swap_pipeline = pick(0, 1) == 1;
    t.schedule.fact_threads = pick(0, 2);
    t.schedule.swap_first = pick(1, 8) / 8.0;
    t.schedule.swap_growth = 1.0 + pick(0, 4) * 0.5;
    t.schedule.split = pick(0, 1) == 1 ? pick(1, 9) / 10.0 : 0.0;
    t.schedule.modified_long_swap = pick(0, 1) == 1;
    t.l1_transposed = pick(0, 1) == 1;
    t.u_transposed = pick(0, 1) == 1;
    t.equilibration = pick(0, 1) == 1;
    t.schedule.bcast_pipeline = pick(0, 1) == 1;
    // Two threads per rank only where the job's threads fit the cores: an
    // oversubscribed MPI rank spinning in a collective waits a time slice per
    // column (the LU grid test covers 2 threads on every rank count).
    const int drawn = pick(1, 2);
    const int threads = size * drawn <= omp_get_num_procs() ? drawn : 1;

    ProcessGrid grid(MPI_COMM_WORLD, t.grid.p, t.grid.q, t.pmap);
    if (!grid.in_grid()) continue;
    omp_set_num_threads(threads);
    LocalMatrix a(t.n, t.nb, grid, t.alignment);
    generate_local(t.n, t.nb, grid.nprow(), grid.npcol(), grid.myrow(), grid.mycol(), a.data(),
                   a.lda());
    const SolveOutcome out = pdgesv(a, t, grid);
    const double r = check_solution(a, out.x, grid, 16.0).scaled_residual;
    EXPECT_EQ(out.info, 0) << describe(t, threads);
    EXPECT_LT(r, 16.0) << describe(t, threads);
    ++ran;
  }
  omp_set_num_threads(1);
  EXPECT_GT(ran, 0);
}

}  // namespace
}  // namespace hplx::lu
