// The FP32 LU factorization without pivoting of the distributed matrix,
// right-looking, one NB-column panel at a time, on the steps `hplx lu`
// runs (lu/schedules/bsp_steps.hpp over lu/schedules/look_ahead.hpp) with
// HPL-MxP's phase set:
//   FACT: the diagonal block is factored on its owner's queue
//   (diagonal_block.hpp: STRSM, SGEMM and a kernel leaf) and, with several
//   process rows, broadcast down its process column; the column's
//   processes solve for their rows of L (STRSM);
//   LBCAST: the FP32 panel of L goes along the process rows (the LU's
//   lu::BasicRowBroadcast, netlib's six topologies, non-blocking);
//   RS + UPDATE of a range of columns: the diagonal block's process row
//   solves for its row of U there (STRSM), which goes down the process
//   columns (MPI_Bcast; no rows to swap), then every process updates its
//   part of the range (SGEMM).
// With look-ahead of depth d (1 by default) the panels' updates reach the
// next panel's columns first; then, as in `hplx lu`, where queue work runs
// on the host the panel is factored and its broadcast started while other
// threads take the oldest waiting panel's update of the rest in column
// chunks (with one thread, after FACT, and with several process columns
// the broadcast moved on between the chunks), and on a device the
// oldest's update is queued first and FACT runs beside it on its own queue
// (a device's High-priority panel queue when one is given), ordered with
// the update's queue by events. Either way FACT and LBCAST hide behind the
// update.
// The matrix lives in the queue's memory (host memory on the host backend,
// device memory on the others); MPI moves host copies (device::Mirror: no
// copies at all on the host backend), and only where a message goes: on
// one process nothing of the matrix reaches the host, and the host waits
// for the queues only at the end. STRSM runs on the queue in FP32; the
// update's GEMM in FP32, or with FP16/BF16 storage (`precision`) on L21 and
// U12 rounded to 16 bits and FP32 products and sums (Queue::gemm_mixed),
// the trailing matrix staying FP32.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/progress.hpp"
#include "core/trace.hpp"
#include "device/backend.hpp"
#include "device/buffer.hpp"
#include "device/precision.hpp"
#include "device/queue.hpp"
#include "hplmxp/distributed_matrix.hpp"
#include "lu/checkpoint/checkpointer.hpp"
#include "lu/config.hpp"
#include "lu/iteration_record.hpp"
#include "lu/schedules/pdgesv.hpp"

namespace hplx::hplmxp {

struct LuNopivResult {
  // A pivot was zero or not finite somewhere: the factors are not usable
  // (the refinement then fails to converge; reported, not thrown). The
  // same on every process.
  bool bad_pivot = false;
  lu::PhaseTimes phases;  // this process's totals
  // This process's record, one iteration per panel (lu/iteration_record.hpp):
  // FACT, LBCAST, RS (U's solve and broadcast) and UPDATE by the host's
  // clock, blocking communication included; where the queues run behind
  // the host, device_fact and device_update by events, the seconds the
  // queues ran them.
  std::vector<lu::IterationTimes> iterations;
};

// The panel's triangular solves, L21 = A21 U11^-1 and U12 = L11^-1 A12
// (--panel-solve):
// - Trsm: STRSMs of the tall and wide blocks;
// - Inverse: GEMMs (SGEMM) by the diagonal block's triangles, inverted once
//   per panel by a TRSM on the identity: on a GPU STRSM of a panel runs at
//   a fraction of SGEMM's rate;
// - InverseTf32: the same GEMMs multiplied in TF32 (Queue::gemm_tf32, on a
//   GPU's tensor cores), so that beside a 16-bit update the panel's solves
//   run near the update's rate rather than at FP32's; their products are
//   as coarse as TF32's 10 fraction bits, which the 16-bit update rounds
//   L21 and U12 to anyway.
enum class PanelSolve { Trsm, Inverse, InverseTf32 };
// "trsm", "inverse", "inverse-tf32"; and back (UsageError naming the value).
const char* name_of(PanelSolve s);
PanelSolve parse_panel_solve(const std::string& text);

struct NopivBuffers;  // nopiv_phases.hpp

// The factorization's buffers (the diagonal block, U's rows of a column
// range, DEPTH + 1 panels used in turn, the 16-bit operands, the inverted
// triangles), made before the clock starts so that nothing is allocated
// while the LU runs (as `hplx lu`'s SolveWorkspace). For one layout,
// depth, precision and panel solve; a negative depth is a usage error.
class NopivWorkspace {
 public:
  NopivWorkspace(const Layout& l, device::Backend& backend, int depth, device::Precision precision,
                 PanelSolve solve = PanelSolve::Trsm);
  ~NopivWorkspace();
  NopivWorkspace(const NopivWorkspace&) = delete;
  NopivWorkspace& operator=(const NopivWorkspace&) = delete;
  bool fits(const Layout& l, int depth, device::Precision precision, PanelSolve solve) const;
  NopivBuffers& buffers() { return *b_; }

 private:
  std::unique_ptr<NopivBuffers> b_;
};

struct FactorOptions {
  lu::Broadcast bcast = lu::Broadcast::OneRingM;  // LBCAST's topology along the process rows
  int depth = 1;  // panels factored ahead of the update (>= 0; negative: a usage error)
  device::Precision precision = device::Precision::Fp32;  // the update's operands
  // How L21 = A21 U11^-1 and U12 = L11^-1 A12 are solved (--panel-solve).
  PanelSolve panel_solve = PanelSolve::Trsm;
  // The trace (`--trace`) and, through it, the rank's activity (the
  // watchdog's view): FACT, LBCAST, UBCAST and UPDATE spans, a closed
  // iteration per panel. Null: neither.
  TraceRecorder* trace = nullptr;
  // The live record (one rank's): updated after every panel. Null: none.
  ProgressMeter* progress = nullptr;
  // FACT's queue, of the same backend (Device::panel()); null: FACT runs on
  // the factorization's queue.
  device::Queue* fact_queue = nullptr;
  // The update beside FACT on this many SMs where fewer than
  // `update_sms_below` rows are left (0: every SM; every iteration), as
  // hplx lu's (lu::BspOptions, --update-sms).
  int update_sms = 0;
  long update_sms_below = 0;
  // Buffers made before the clock (for this layout, depth and precision);
  // null: factor_nopiv makes them.
  NopivWorkspace* workspace = nullptr;
  // --checkpoint and --resume (lu/checkpoint/): the loop goes on from
  // `resume`'s column and saves through `writer` (both may be null).
  lu::SolveCheckpoints checkpoints = {};
};

// The FP32 matrix `lu` (layout l) as a checkpoint holds it.
lu::CheckpointMatrix checkpoint_view(const Layout& l, device::Buffer<float>& lu);

// Factors `a` (layout l, lda l.lda) in place into unit lower L and upper U.
// Collective over the grid.
LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& queue, float* a,
                           const FactorOptions& options = {});

}  // namespace hplx::hplmxp
