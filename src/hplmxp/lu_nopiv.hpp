// The FP32 LU factorization without pivoting of the distributed matrix,
// right-looking, one NB-column panel at a time:
//   FACT: the diagonal block is factored on its owner's queue
//   (diagonal_block.hpp: STRSM, SGEMM and a kernel leaf) and, with several
//   process rows, broadcast down its process column; the column's
//   processes solve for their rows of L (STRSM);
//   LBCAST: the panel of L goes along the process rows (the LU's
//   lu::RowBroadcast, netlib's six topologies, non-blocking);
//   U: the diagonal block's process row solves for its row of U (STRSM),
//   which goes down the process columns (MPI_Bcast);
//   UPDATE: every process updates its trailing part (SGEMM).
// With look-ahead (depth 1, the default) the process column of panel k + 1
// updates that panel's columns first, factors it and starts its broadcast,
// then updates the rest of its trailing part (with several process columns
// in chunks, moving the broadcast on between them): the next panel's FACT
// and LBCAST hide behind the update. FACT runs on its own queue when one is
// given (a device's High-priority panel queue), ordered with the update's
// queue by events, so on a GPU it runs beside the update. Depth 0 finishes
// each panel's broadcast before its update.
// The broadcast moves doubles, so the FP32 panel lives in double storage
// and travels as half as many doubles (bytes are not converted).
// The matrix lives in the queue's memory (host memory on the host backend,
// device memory on the others); MPI moves host copies (device::Mirror: no
// copies at all on the host backend), and only where a message goes: on
// one process nothing of the matrix reaches the host, and the host waits
// for the queues only at the end. STRSM runs on the queue in FP32; the
// update's GEMM in FP32, or with FP16/BF16 storage (`precision`) on L21 and
// U12 rounded to 16 bits and FP32 products and sums (Queue::gemm_mixed),
// the trailing matrix staying FP32.
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

// Seconds one process spent on one panel's phases. FACT and the update: on
// queues that run inline (the host backend) the host's clock, blocking
// communication included (a process's waits show in the phase that
// waited); on the others the time the queues ran them, by events. LBCAST:
// the host's wait.
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
  // FACT's queue, of the same backend (Device::panel()); null: FACT runs on
  // the factorization's queue.
  device::Queue* fact_queue = nullptr;
  // Tests only: the update does not wait for FACT's queue (the bug the
  // emulated device must catch).
  bool omit_fact_wait = false;
};

LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& queue, float* a,
                           const FactorOptions& options = {}, const PanelDone& panel_done = {});

}  // namespace hplx::hplmxp
