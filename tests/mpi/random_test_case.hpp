// Random LU test cases for the randomized tests (bsp and dag schedules):
// the fields every schedule shares are drawn here, in a fixed order, so each
// test draws the same configurations on every rank from the same seed.
#pragma once

#include <omp.h>

#include <sstream>
#include <string>

#include "lu/config.hpp"

namespace hplx::lu {

// Grid shape and mapping, N, NB (1 .. max_nb), DEPTH, broadcast, swap and
// its threshold, RFACT, PFACT, NBMIN, NDIV, alignment.
template <class Pick>
void draw_common(TestCase& t, Pick& pick, int size, int max_nb) {
  t.grid.p = pick(1, size);
  t.grid.q = pick(1, size / t.grid.p);
  t.pmap = pick(0, 1) ? GridOrder::RowMajor : GridOrder::ColumnMajor;
  t.n = pick(0, 160);
  t.nb = pick(1, max_nb);
  t.depth = pick(0, 3);
  t.bcast = static_cast<Broadcast>(pick(0, 5));
  t.swap = static_cast<SwapAlgorithm>(pick(0, 2));
  t.swap_threshold = pick(0, 80);
  t.rfact = static_cast<Factorization>(pick(0, 2));
  t.pfact = static_cast<Factorization>(pick(0, 2));
  t.nbmin = pick(1, 8);
  t.ndiv = pick(2, 4);
  t.alignment = pick(1, 16);
}

// The swap order, the L1/U storage forms, equilibration, broadcast pipelining.
template <class Pick>
void draw_forms(TestCase& t, Pick& pick) {
  t.schedule.modified_long_swap = pick(0, 1) == 1;
  t.l1_transposed = pick(0, 1) == 1;
  t.u_transposed = pick(0, 1) == 1;
  t.equilibration = pick(0, 1) == 1;
  t.schedule.bcast_pipeline = pick(0, 1) == 1;
}

// One or two threads per rank, two only where the job's threads fit the
// cores: an oversubscribed MPI rank spinning in a collective waits a time
// slice per column (the grid tests cover 2 threads on every rank count).
template <class Pick>
int draw_threads(Pick& pick, int size) {
  const int drawn = pick(1, 2);
  return size * drawn <= omp_get_num_procs() ? drawn : 1;
}

inline std::string describe(const TestCase& t, int threads) {
  std::ostringstream s;
  s << (t.schedule.kind == ScheduleKind::Dag ? "dag " : "bsp ") << t.grid.p << "x" << t.grid.q
    << (t.pmap == GridOrder::RowMajor ? " row" : " col") << " N=" << t.n << " NB=" << t.nb << " "
    << variant_code(t) << " swap=" << name_of(t.swap) << "/" << t.swap_threshold
    << " align=" << t.alignment << " threads=" << threads << " overlap=" << t.schedule.fact_overlap
    << " fact_threads=" << t.schedule.fact_threads << " pipeline=" << t.schedule.swap_pipeline
    << "/" << t.schedule.swap_first << "/" << t.schedule.swap_growth
    << " split=" << t.schedule.split
    << " long_swap=" << (t.schedule.modified_long_swap ? "modified" : "netlib")
    << " L1T=" << t.l1_transposed << " UT=" << t.u_transposed << " equil=" << t.equilibration
    << " bcast_pipeline=" << t.schedule.bcast_pipeline
    << " priorities=" << t.schedule.dag_priorities;
  return s.str();
}

}  // namespace hplx::lu
