// RS + UPDATE of one factored panel over a range of trailing columns.
//
// Look-ahead applies a panel in pieces: first to the next panel's columns,
// later to the rest. Every column must receive the panels in order; the
// driver keeps that invariant, this only applies one panel to one range.
//
// The update is cut into column chunks. apply() runs them in turn while a
// broadcast is in flight and the rest in one piece (BLAS threaded as
// usual); begin() + run_chunk() let several threads share them while
// another thread factors the next panel.
#pragma once

#include <memory>
#include <vector>

#include "core/grid.hpp"
#include "core/trace.hpp"
#include "lu/config.hpp"
#include "lu/iteration_record.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/comm/panel_broadcast.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/phases/update/update.hpp"

namespace hplx::lu {

// Chunks are small enough that a broadcast in flight is looked at often
// and that threads sharing the chunks finish together, large enough that
// DGEMM runs at full speed and that a chunk's columns, swapped just before
// DGEMM reads them, are still in cache. The row-swap pipeline's segments
// are updated in chunks of kChunkColumns (and calibration times the swap's
// copies in them: run/phase_timing.cpp).
constexpr long kChunkColumns = 256;

// What RS + UPDATE need of a test: U's and L1's forms, the swap, the
// row-swap pipeline's segments (--swap-pipeline, --swap-first,
// --swap-growth) and whether the split update's sections are used.
struct ApplyParams {
  Forms forms;
  SwapParams swap;
  bool swap_pipeline = false;
  double swap_first = 0.125, swap_growth = 2.0;
  bool sections = false;
};
ApplyParams apply_params(const TestCase& t);

// The global column where the split update's right section starts: a
// multiple of NB leaving about `fraction` of the columns to its right, or 0
// (no split) when that leaves no left section or no right one.
long split_column(long n, int nb, double fraction);

// The row swaps' buffers of a solve, kept from panel to panel (see
// SwapBuffers; reserved by reserve_workspace, workspace.hpp).
struct SwapWorkspace {
  SwapBuffers whole;            // apply(): one swap over all the columns it updates
  SwapBuffers pipeline[2];      // the row-swap pipeline's two segments in flight
  SwapBuffers sections[2];      // the split update's two sections
  InPlaceSwapBuffers in_place;  // one process row on a device: the plan and rows in flight
};

class PanelApplier {
 public:
  // Collective over grid.col() (duplicates it for the row-swap pipeline).
  PanelApplier(device::Queue& q, LocalMatrix& a, const ApplyParams& params, const ProcessGrid& grid,
               SwapWorkspace& buffers);

  // Swaps the panel's pivot rows into the global columns [g0, g1) and
  // updates them. Collective over grid.col() (every process of a column has
  // the same columns). When `in_flight` is given, that broadcast is moved on
  // between chunks, so it proceeds while this computes; once it is done (or
  // when none is given), the columns left are updated in one piece, as
  // netlib's HPL_pdupdate does.
  void apply(const Panel& p, const RowSwapPlan& plan, long g0, long g1, PhaseTimes& times,
             PanelBroadcast* in_flight = nullptr);

  // The same in two steps. begin() does the communication of RS (collective
  // over grid.col(), main thread only) and returns how many chunks there are;
  // run_chunk(i) swaps locally and updates chunk i, with no MPI, and may run
  // on any thread, concurrently for different i. `times`, if given, gets the
  // chunk's swap and update time.
  long begin(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
             PhaseTimes* times = nullptr);
  void run_chunk(long i, PhaseTimes* times = nullptr);

  // The split update (seed 000 III.C) keeps the row swaps of two column
  // sections in flight: each section's RS starts early (start_section) and
  // travels while other work runs; begin_section() completes it and sets up
  // its update chunks for run_chunk(), update_section() runs them too.
  // Each section has its own communicator for binary exchange's second
  // stage, so two swaps can be in flight at once. With one process row
  // there is nothing to send: the swap is done in place, chunk by chunk.
  enum Section { kLeft = 0, kRight = 1 };
  void start_section(Section s, const Panel& p, const RowSwapPlan& plan, long g0, long g1,
                     PhaseTimes& times);
  bool section_started(Section s) const { return sections_[s].p != nullptr; }
  long begin_section(Section s, PhaseTimes& times);
  void update_section(Section s, PhaseTimes& times, PanelBroadcast* in_flight = nullptr);
  // Moves on every swap in flight (call between pieces of other work).
  void progress_sections();

  // Records RS and UPDATE spans into `trace` (may be null).
  void set_trace(TraceRecorder* trace) { trace_ = trace; }
  // Times the device's side of the update (may be null: not timed).
  void set_timeline(DeviceTimeline* timeline) { timeline_ = timeline; }

 private:
  // How this test's swaps of nn local columns run (see SwapForm).
  SwapForm swap_form(long nn, MPI_Comm second = MPI_COMM_NULL) const;
  // apply() with the row-swap pipeline (P > 1, schedule.swap_pipeline).
  // Cuts [lc0_, lc0_ + nn_) into the update's chunks; returns how many.
  long plan_chunks();
  // Swaps locally and updates the columns [c, c + w) of [lc0_, lc0_ + nn_).
  void run_columns(long c, long w, PhaseTimes* times);
  void apply_pipelined(const Panel& p, const RowSwapPlan& plan, long g0, long g1, PhaseTimes& times,
                       PanelBroadcast* in_flight);

  device::Queue& q_;
  LocalMatrix& a_;
  const ApplyParams params_;
  const ProcessGrid& grid_;
  Communicator second_col_;  // the pipeline's second swap stage (see RowSwapInFlight)
  struct SectionState {
    const Panel* p = nullptr;
    long lc0 = 0, nn = 0;
    Communicator second;
    std::unique_ptr<RowSwapInFlight> swap;
  };
  const Panel* p_ = nullptr;
  long lc0_ = 0, nn_ = 0;
  std::vector<long> bounds_;  // the chunks of [lc0_, lc0_ + nn_), relative to lc0_
  bool in_place_ = false;
  SwapWorkspace& buffers_;
  double* u_ = nullptr;  // U of the chunks being run, on the device (whole's or a section's)
  SectionState sections_[2];
  TraceRecorder* trace_ = nullptr;
  DeviceTimeline* timeline_ = nullptr;
};

}  // namespace hplx::lu
