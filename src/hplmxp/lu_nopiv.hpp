// The FP32 LU factorization without pivoting of the distributed matrix,
// right-looking, one NB-column panel at a time (no look-ahead yet):
//   the diagonal block is factored on its owner and broadcast down its
//   process column; the column's processes solve for their rows of L
//   (STRSM); the panel of L goes along the process rows and the diagonal
//   block's process row solves for its row of U (STRSM), which goes down the
//   process columns; every process updates its trailing part (SGEMM).
// The panel's trip along the process row is the LU's LBCAST
// (lu::broadcast_row, netlib's six topologies, blocking): it moves doubles,
// so the FP32 panel lives in double storage and travels as half as many
// doubles (bytes are not converted). The diagonal block and U go down the
// process columns by MPI_Bcast. No look-ahead: the broadcast completes
// before the update.
// BLAS runs on `queue` in FP32; the matrix must be host memory (the host
// backend's queue).
#pragma once

#include <functional>
#include <vector>

#include "core/grid.hpp"
#include "device/queue.hpp"
#include "hplmxp/distributed_matrix.hpp"
#include "lu/config.hpp"

namespace hplx::hplmxp {

// Seconds one process spent on one panel's phases (blocking communication
// included, so a process's waits show in the phase that waited).
struct PanelTimes {
  long j = 0, jb = 0;
  double fact_s = 0;    // diagonal block, its broadcast down the column, L's STRSM
  double bcast_s = 0;   // the panel along the process row (LBCAST)
  double update_s = 0;  // U's STRSM, U down the columns, the trailing SGEMM
};

struct LuNopivResult {
  // A pivot was zero or not finite somewhere: the factors are not usable
  // (the refinement then fails to converge; reported, not thrown). The
  // same on every process.
  bool bad_pivot = false;
  std::vector<PanelTimes> panels;  // this process's own times
};

// Factors `a` (layout l, lda l.lda) in place into unit lower L and upper U.
// Collective over the grid.
// Called after each panel with the global column where it ends.
using PanelDone = std::function<void(long)>;

// `bcast`: the panel broadcast's topology along the process rows.
LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& queue, float* a,
                           lu::Broadcast bcast = lu::Broadcast::OneRingM,
                           const PanelDone& panel_done = {});

}  // namespace hplx::hplmxp
