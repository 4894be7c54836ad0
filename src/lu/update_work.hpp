// The work of one process's trailing updates over a factorization, from
// the block-cyclic layout alone: what the slow-rank line divides each
// rank's update time by, so that a rank that owns more of the matrix (on
// 2 x 2 at N = 1000, NB = 128, rank (1, 1) does 34% more than rank (0, 0))
// is not named for doing more.
#pragma once

#include <algorithm>

#include "lu/block_cyclic.hpp"

namespace hplx::lu {

// Flops of the updates process (myrow, mycol) of a p x q grid does while
// an n x n matrix with `cols` columns (HPL's n + 1: the right-hand side
// rides along) is factored in nb-column panels: at each panel, as
// update_trailing, the DTRSM of its block row of U (jb x jb into jb x its
// trailing columns) and the DGEMM of its trailing rows x columns x jb.
inline double update_flops(long n, long cols, int nb, int myrow, int mycol, int p, int q) {
  const long my_rows = local_count(n, nb, myrow, p);
  const long my_cols = local_count(cols, nb, mycol, q);
  double flops = 0;
  for (long j = 0; j < n; j += nb) {
    const long jb = std::min<long>(nb, n - j);
    const double rows = static_cast<double>(my_rows - local_start(j + jb, nb, myrow, p));
    const double trailing = static_cast<double>(my_cols - local_start(j + jb, nb, mycol, q));
    flops += static_cast<double>(jb) * jb * trailing + 2.0 * rows * trailing * jb;
  }
  return flops;
}

}  // namespace hplx::lu
