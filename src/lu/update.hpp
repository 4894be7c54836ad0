// UPDATE: the trailing-matrix update with a factored panel and its U rows.
#pragma once

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/panel.hpp"

namespace hplx::lu {

// On local columns [lc0, lc0 + nn): U := L11^-1 U (DTRSM), then
// A2 -= L21 U (DGEMM), and the diagonal block's process row stores U in its
// rows k .. k+jb-1. `ut` points at U transposed (nn x jb, leading dimension
// ldut; row c of it is local column lc0 + c), as returned by swap_rows; it
// is overwritten with the solved U.
void update_trailing(LocalMatrix& a, const Panel& p, double* ut, long ldut, long lc0, long nn,
                     const ProcessGrid& grid);

// The same with U in place, rows k .. k+jb-1 of local columns [lc0, lc0+nn)
// (one process row, after swap_rows_in_place).
void update_in_place(LocalMatrix& a, const Panel& p, long lc0, long nn);

}  // namespace hplx::lu
