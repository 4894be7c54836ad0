// UPDATE: the trailing-matrix update with a factored panel and its U rows,
// as BLAS on a device queue (DTRSM, DGEMM) and a kernel body (U stored
// back into the matrix rows).
#pragma once

#include "core/grid.hpp"
#include "device/queue.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/panel.hpp"

namespace hplx::lu {

// The storage forms of HPL.dat lines 28-29: the panel's L1 (L11, unit
// lower) kept as is or transposed (transpose_l1 after FACT), and U kept
// nn x jb (transposed: row r of U contiguous) or jb x nn. The arithmetic is
// the same; only the BLAS calls' operands change.
struct Forms {
  bool l1_transposed = true;
  bool u_transposed = true;
};

// On local columns [lc0, lc0 + nn): U := L11^-1 U (DTRSM), then
// A2 -= L21 U (DGEMM), and the diagonal block's process row stores U in its
// rows k .. k+jb-1. `u` points at U's first column (local column lc0) in the
// form forms.u_transposed says, leading dimension ldu, as returned by
// swap_rows; it is overwritten with the solved U.
void update_trailing(device::Queue& q, LocalMatrix& a, const Panel& p, double* u, long ldu,
                     Forms forms, long lc0, long nn, const ProcessGrid& grid);

// Where column c of a U buffer holding nn columns starts, and its leading
// dimension.
inline double* u_column(double* u, long c, long nn, int jb, bool u_transposed) {
  return u_transposed ? u + c : u + c * jb;
}
inline long u_ld(long nn, int jb, bool u_transposed) {
  return u_transposed ? nn : jb;
}

// The same with U in place, rows k .. k+jb-1 of local columns [lc0, lc0+nn)
// (one process row, after swap_rows_in_place).
void update_in_place(device::Queue& q, LocalMatrix& a, const Panel& p, bool l1_transposed, long lc0,
                     long nn);

}  // namespace hplx::lu
