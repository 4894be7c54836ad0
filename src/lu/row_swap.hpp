// RS: apply the panel's row interchanges to the trailing columns and gather
// U, the jb pivot rows, on every process of the process column.
//
// The jb sequential interchanges k+c <-> ipiv[c] are first turned into a
// plan: which (old) row becomes each row of U, and which rows below the
// diagonal block receive an old row of the block. Only rows in the plan move.
#pragma once

#include <vector>

#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/panel.hpp"

namespace hplx::lu {

struct RowSwapPlan {
  std::vector<long> u_source;  // u_source[r]: global row whose data becomes U row r
  struct Move {
    long to;   // global row >= k + jb
    int from;  // index t of the old row k + t of the diagonal block
  };
  std::vector<Move> moves;  // sorted by `to`
};

RowSwapPlan plan_row_swaps(long k, int jb, const std::vector<long>& ipiv);

// Which algorithm a test uses for `local_columns` trailing columns: netlib's
// mix takes the binary exchange up to the threshold, the long swap above.
SwapAlgorithm effective_swap(const TestCase& t, long local_columns);

// Applies the plan to local columns [lc0, lc0 + nn) of `a` and returns U in
// `ut`, stored transposed (nn x jb, leading dimension nn: row r of U is
// contiguous). Collective over grid.col().
void swap_rows(LocalMatrix& a, const Panel& p, const RowSwapPlan& plan, long lc0, long nn,
               SwapAlgorithm algorithm, const ProcessGrid& grid, std::vector<double>& ut);

// With one process row the interchanges are applied in place, in order, to
// each column [lc0, lc0 + nn) (LAPACK's dlaswp): U is then rows k .. k+jb-1
// of the matrix itself, and no copy of it is made.
void swap_rows_in_place(LocalMatrix& a, const Panel& p, long lc0, long nn);

}  // namespace hplx::lu
