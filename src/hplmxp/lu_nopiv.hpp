// The FP32 LU factorization without pivoting of the distributed matrix,
// right-looking, one NB-column panel at a time (no look-ahead yet):
//   the diagonal block is factored on its owner and broadcast down its
//   process column; the column's processes solve for their rows of L
//   (STRSM); the panel of L goes along the process rows and the diagonal
//   block's process row solves for its row of U (STRSM), which goes down the
//   process columns; every process updates its trailing part (SGEMM).
// The broadcasts are plain MPI_Bcast on the grid's row and column
// communicators, not the LU's LBCAST topologies (src/lu/lbcast.*), which
// carry the pivoting LU's FP64 panel and its pivots in one message.
// BLAS runs on `queue` in FP32; the matrix must be host memory (the host
// backend's queue).
#pragma once

#include "core/grid.hpp"
#include "device/queue.hpp"
#include "hplmxp/distributed_matrix.hpp"

namespace hplx::hplmxp {

struct LuNopivResult {
  // A pivot was zero or not finite somewhere: the factors are not usable
  // (the refinement then fails to converge; reported, not thrown). The
  // same on every process.
  bool bad_pivot = false;
};

// Factors `a` (layout l, lda l.lda) in place into unit lower L and upper U.
// Collective over the grid.
LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& queue,
                           float* a);

}  // namespace hplx::hplmxp
