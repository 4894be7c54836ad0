// The work of one process's trailing updates over a factorization, from
// the block-cyclic layout alone: what the slow-rank line divides each
// rank's update time by, so that a rank that owns more of the matrix (on
// 2 x 2 at N = 1000, NB = 128, rank (1, 1) does 34% more than rank (0, 0))
// is not named for doing more.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "core/grid.hpp"
#include "core/slow_ranks.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/iteration_record.hpp"

namespace hplx::lu {

// Flops of the updates process (myrow, mycol) of a p x q grid does while
// an n x n matrix with `cols` columns (HPL's n + 1: the right-hand side
// rides along) is factored in nb-column panels: at each panel, as
// update_trailing, the DTRSM of its block row of U (jb x jb into jb x its
// trailing columns) and the DGEMM of its trailing rows x columns x jb.
// The same for each panel, in order.
inline std::vector<double> update_flops_by_panel(long n, long cols, int nb, int myrow, int mycol,
                                                 int p, int q) {
  const long my_rows = local_count(n, nb, myrow, p);
  const long my_cols = local_count(cols, nb, mycol, q);
  std::vector<double> flops;
  for (long j = 0; j < n; j += nb) {
    const long jb = std::min<long>(nb, n - j);
    const double rows = static_cast<double>(my_rows - local_start(j + jb, nb, myrow, p));
    const double trailing = static_cast<double>(my_cols - local_start(j + jb, nb, mycol, q));
    flops.push_back(static_cast<double>(jb) * jb * trailing + 2.0 * rows * trailing * jb);
  }
  return flops;
}

inline double update_flops(long n, long cols, int nb, int myrow, int mycol, int p, int q) {
  const std::vector<double> f = update_flops_by_panel(n, cols, nb, myrow, mycol, p, q);
  return std::accumulate(f.begin(), f.end(), 0.0);
}

// The rank's update seconds and flops in each of the run's parts
// (core/slow_ranks.hpp), from its own iteration record `its` (a panel
// each) and its panels' flops: with look-ahead of depth d, panel i's
// update is finished in iteration i + d (the last one for the panels
// finished after the last). Nothing where the record does not hold a
// panel each.
inline void split_into_parts(const std::vector<IterationTimes>& its,
                             const std::vector<double>& panel_flops, int depth, RankTotals& t) {
  const std::size_t count = its.size();
  if (count == 0 || count != panel_flops.size()) return;
  auto part = [count](std::size_t i) { return i * kRunParts / count; };
  for (std::size_t i = 0; i < count; ++i) {
    t.part_update[part(i)] += its[i].update;
    t.part_flops[part(std::min(count - 1, i + static_cast<std::size_t>(std::max(0, depth))))] +=
        panel_flops[i];
  }
}

// A rank's totals for the slow-rank line (core/slow_ranks.hpp) after
// factoring an n x n matrix with `cols` columns on `grid` at look-ahead
// `depth`: its phase totals, its update flops, and both by part of the
// run from its iteration record.
inline RankTotals rank_totals(const PhaseTimes& mine, const std::vector<IterationTimes>& its,
                              long n, long cols, int nb, const ProcessGrid& grid, int depth) {
  const std::vector<double> panels =
      update_flops_by_panel(n, cols, nb, grid.myrow(), grid.mycol(), grid.nprow(), grid.npcol());
  RankTotals t{mine.update, mine.fact, mine.wait,
               std::accumulate(panels.begin(), panels.end(), 0.0)};
  split_into_parts(its, panels, depth, t);
  return t;
}

}  // namespace hplx::lu
