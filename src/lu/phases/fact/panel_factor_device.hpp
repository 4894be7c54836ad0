// FACT on the device (--fact-on device): the panel factorization of
// panel_factor.cpp (netlib's recursive RFACT / PFACT / NBMIN / NDIV) run
// on a queue over W's device side, as rocHPL 7 does on a GPU: the
// recursion's levels as TRSM and GEMM on the queue's BLAS, the leaf as
// kernel bodies (kernels/fact_kernels.hpp: pivot search, the pivot row
// brought to the diagonal, scaling, rank-1 update) and the queue's GEMV
// and TRSM for Left- and Crout-looking leaves. The pivots and info go
// into W's device tail, where the in-place row swap and LBCAST's packed
// form expect them.
//
// Every BLAS call and kernel of host FACT's single-threaded factorization
// is issued here with the same shapes, A1's rows apart from A2's, so the
// pivots are the host's and the values agree up to the rounding of the
// device's BLAS and of its fused multiply-adds (bitwise where both run the
// same OpenBLAS calls, as on the emulated device, the rank-1 update aside).
//
// One process in the panel's process column (P = 1): the host only
// enqueues; nothing comes back to it unless LBCAST must send the panel
// (Q > 1) or a sub-panel callback asks for one. Several (P > 1): each
// column's candidate row (magnitude, global row, row data) comes to a
// pinned buffer, the host waits for it, exchanges it over the column with
// host FACT's rule (netlib's HPL_pdmxswp) and sends the winner back to the
// queue; those waits are where MPI needs the data, and the host learns
// the pivots and info from the winners without another copy.
#pragma once

#include <mpi.h>

#include "device/backend.hpp"
#include "device/mirror.hpp"
#include "device/queue.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/panel.hpp"

namespace hplx::lu {

class DeviceTimeline;

// What device FACT works in, kept by a solve so that no panel allocates:
// the pivot search's candidates (both levels), the exchanged candidate rows (with
// pinned host sides), A1's block for its broadcast down the column, and
// the solve's info on the device.
class DeviceFactWorkspace {
 public:
  // Room for panels of up to `rows` stacked rows and nb columns on `backend`.
  void reserve(device::Backend& backend, long rows, int nb);
  // Grows (an allocation) when a panel needs more than was reserved.
  void fit(device::Backend& backend, long rows, int nb);
  // The doubles of scratch that panels of up to `rows` stacked rows and nb
  // columns need (the memory preflight counts them too).
  static long scratch_doubles(long rows, int nb);

  double* d_candidates() { return scratch_.device(); }
  double* d_stage() { return scratch_.device() + stage_at_; }
  double* h_stage() { return scratch_.data() + stage_at_; }
  double* d_best() { return scratch_.device() + best_at_; }
  double* h_best() { return scratch_.data() + best_at_; }
  double* d_block() { return scratch_.device() + block_at_; }
  double* h_block() { return scratch_.data() + block_at_; }
  long stage_at() const { return stage_at_; }
  long best_at() const { return best_at_; }
  device::Mirror<double>& scratch() { return scratch_; }

  // The first nonzero info of the panels factored on the device whose
  // info stayed there (KeepFirstInfo); zeroed by start_solve().
  void start_solve(device::Queue& q);
  double* d_solve_info() { return info_.device(); }
  // Waits for q and returns it.
  long solve_info(device::Queue& q);
  bool solve_started() const { return started_; }

 private:
  device::Backend* backend_ = nullptr;
  device::Mirror<double> scratch_, info_;
  bool started_ = false;
  long rows_ = 0;
  int nb_ = 0;
  long stage_at_ = 0, best_at_ = 0, block_at_ = 0;
};

// Factors columns [0, jb) of the stacked panel on W's device side, on q.
// The pivots and info go into W's device tail. With one process in `col`
// panel.ipiv and panel.info are left alone (the host has not seen them);
// with several they are set on the host too. `done`, when set, gets each
// finished top-level sub-panel after its columns have been copied to W's
// host side (the host waits for them).
void factor_stacked_panel_device(device::Queue& q, Panel& panel, const PanelRows& rows,
                                 const FactParams& f, MPI_Comm col, DeviceFactWorkspace& ws,
                                 const SubpanelDone& done = {});

// FACT on the panel's process column, the device counterpart of
// factor_panel (panel.hpp): the panel's columns are copied from the
// matrix into W's device side (A1 broadcast down the column through
// pinned memory when P > 1), factored there, copied back and L1
// transposed on the queue; the panel is marked as factored on the device
// (Panel::on_device) with an event on q for the queues that use it next.
// The copies between the matrix and W are timed on the device by
// `timeline` when it is not null (as transfers, like host FACT's).
// `to_host`: W, pivots and info are brought to the host side too (LBCAST
// sends them: Q > 1), and the host waits for them. Otherwise, on one
// process row, the panel's info is folded into the workspace's solve info
// on the device.
// `engine` (Device or ModelledDevice) factors W's columns.
void factor_panel_device(device::Queue& q, LocalMatrix& a, Panel& panel, const FactParams& f,
                         const ProcessGrid& grid, DeviceFactWorkspace& ws, bool to_host,
                         const SubpanelDone& done = {}, DeviceTimeline* timeline = nullptr,
                         FactEngine engine = FactEngine::Device);

// The pivots and info in W's device tail, to panel.ipiv and panel.info
// (the host waits for q): for tests and callers that need them.
void pivots_to_host(device::Queue& q, Panel& panel);

// A panel LBCAST wrote into W's device side (BcastParams::device_memory),
// on a process outside its process column: marked as on the device; with
// several process rows its pivots come to the host (the row swap's plan
// is made there), with one the panel's info is folded into the solve's on
// the device, on q.
void panel_received_on_device(device::Queue& q, Panel& panel, const ProcessGrid& grid,
                              DeviceFactWorkspace& ws);

}  // namespace hplx::lu
