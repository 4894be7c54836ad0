// The FP32 LU factorization without pivoting of the distributed matrix,
// right-looking, one NB-column panel at a time:
//   FACT: the diagonal block is factored on its owner and broadcast down its
//   process column; the column's processes solve for their rows of L
//   (STRSM);
//   LBCAST: the panel of L goes along the process rows (the LU's
//   lu::RowBroadcast, netlib's six topologies, non-blocking);
//   U: the diagonal block's process row solves for its row of U (STRSM),
//   which goes down the process columns (MPI_Bcast);
//   UPDATE: every process updates its trailing part (SGEMM).
// With look-ahead (depth 1, the default) the process column of panel k + 1
// updates that panel's columns first, factors it and starts its broadcast,
// then updates the rest of its trailing part in chunks, moving the
// broadcast on between them: the next panel's FACT and LBCAST hide behind
// the update. Depth 0 finishes each panel's broadcast before its update.
// The broadcast moves doubles, so the FP32 panel lives in double storage
// and travels as half as many doubles (bytes are not converted).
// The matrix lives in the queue's memory (host memory on the host backend,
// device memory on the others); FACT's diagonal block is factored on the
// host, and MPI moves host copies (device::Mirror: no copies at all on the
// host backend). STRSM runs on the queue in FP32; the update's GEMM in FP32,
// or with FP16/BF16 storage (`precision`) on L21 and U12 rounded to 16 bits
// and FP32 products and sums (Queue::gemm_mixed), the trailing matrix
// staying FP32.
#pragma once

#include <functional>
#include <vector>

#include "core/grid.hpp"
#include "core/trace.hpp"
#include "device/precision.hpp"
#include "device/queue.hpp"
#include "hplmxp/distributed_matrix.hpp"
#include "lu/config.hpp"

namespace hplx::hplmxp {

// Seconds one process spent on one panel's phases (blocking communication
// included, so a process's waits show in the phase that waited).
struct PanelTimes {
  long j = 0, jb = 0;
  double fact_s = 0;    // diagonal block, its broadcast down the column, L's STRSM
  double bcast_s = 0;   // waiting for the panel along the process row (LBCAST)
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

struct FactorOptions {
  lu::Broadcast bcast = lu::Broadcast::OneRingM;  // LBCAST's topology along the process rows
  int depth = 1;  // 0: no look-ahead, 1: look-ahead; other values are a usage error
  device::Precision precision = device::Precision::Fp32;  // the update's operands
  // The trace (`--trace`) and, through it, the rank's activity (the
  // watchdog's view): FACT, LBCAST and UPDATE spans, a closed iteration per
  // panel. Null: neither.
  TraceRecorder* trace = nullptr;
};

LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& queue, float* a,
                           const FactorOptions& options = {}, const PanelDone& panel_done = {});

}  // namespace hplx::hplmxp
