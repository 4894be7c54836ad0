// `hplx lu`'s phase set for the bsp look-ahead steps (bsp_steps.hpp): the
// FP64 LU with partial pivoting, netlib's phases.
//   FACT     the panel with partial pivoting (PFACT/RFACT, NBMIN, NDIV, the
//            recursion), on the host through the queue's copies or on the
//            device's queue (--fact-on)
//   LBCAST   the panel, its pivots and info along the process row
//            (PanelBroadcast: plain or pipelined)
//   RS       the pivots' row interchanges over the trailing columns and U
//            gathered on every process row (RowSwapPlan, PanelApplier)
//   UPDATE   DTRSM and DGEMM in column chunks, or in the split update's
//            sections (PanelApplier)
// The dag schedule (dag_schedule.cpp) runs the same FACT and LBCAST
// (PivotingFact) as tasks.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/context.hpp"
#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/comm/panel_broadcast.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/fact/panel_factor_device.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/update/apply_panel.hpp"
#include "lu/schedules/panel_store.hpp"

namespace hplx::lu {

class DeviceTimeline;
struct SolveWorkspace;

// A factored panel whose RS + UPDATE has reached the global columns before
// `done` and not yet the rest.
struct PendingPanel {
  Panel panel;
  RowSwapPlan plan;
  long done;
};

// FACT and LBCAST of the FP64 LU with partial pivoting, for the bsp steps
// (PivotingPhases) and the dag's tasks alike (factor_and_send.hpp).
class PivotingFact {
 public:
  using Broadcast = PanelBroadcast;
  // `device_fact`: device FACT's scratch (--fact-on device); null: FACT
  // runs on the host whatever the test asks. `team`: the threads of a
  // panel factored on its own; 0: the test's --fact-threads, or all. (The
  // dag schedule's tasks give null and 1.)
  PivotingFact(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
               DeviceFactWorkspace* device_fact, int team = 0);

  // Times the device's side of FACT (may be null).
  void set_timeline(DeviceTimeline* timeline) { timeline_ = timeline; }
  bool on_device() const { return fact_.on_device; }
  const BcastParams& bcast() const { return bcast_; }

  std::unique_ptr<PanelBroadcast> post_broadcast(Panel& panel) const;
  bool factors(const Panel& panel) const { return grid_.mycol() == panel.owner_col; }
  // FACT on `q`; finished top-level sub-panels go out as they are done
  // (broadcast pipelining), and `also` (may be empty) runs then too: the
  // dag moves its early row swap on there.
  void fact(Panel& panel, PanelBroadcast& bcast, device::Queue& q,
            const std::function<void()>& also = {});

 private:
  LocalMatrix& a_;
  const ProcessGrid& grid_;
  const FactParams fact_;    // the phases' parameters, decoded once
  const FactEngine engine_;  // what factors W's columns, chosen once
  const BcastParams bcast_;
  DeviceFactWorkspace* device_fact_;
  // A panel factored on its own may use a team (--fact-threads); beside
  // the update, or inside a task, it runs single-threaded.
  const int team_;
  DeviceTimeline* timeline_ = nullptr;
};

// A factored, received panel made ready for RS + UPDATE on `q`: W on the
// device (panel_to_device) and its interchanges planned (none where the
// pivots stayed on the device: one process row swaps in place from them).
RowSwapPlan ready_for_update(device::Queue& q, Panel& panel);

class PivotingPhases {
 public:
  using Panel = lu::Panel;
  using Factored = PendingPanel;
  using Broadcast = PanelBroadcast;
  static constexpr bool kThreadsBesideFact = true;
  static constexpr bool kSplitUpdate = true;
  static constexpr PanelApplier::Section kLeft = PanelApplier::kLeft;
  static constexpr PanelApplier::Section kRight = PanelApplier::kRight;

  // `workspace`: the panels', swaps' and device FACT's buffers, kept from
  // panel to panel.
  PivotingPhases(const Context& ctx, LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
                 SolveWorkspace& workspace);

  // Times the device's side of FACT and the update (may be null).
  void set_timeline(DeviceTimeline* timeline);
  // The queue FACT uses beside the compute queue: with FACT on the device
  // the panel queue (High priority: its short kernels go ahead of the
  // update's as the device frees room), with FACT on the host the transfer
  // queue, for the panel's columns to the host and back.
  device::Queue& fact_queue() const;
  bool fact_on_device() const { return fact_.on_device(); }
  // The first zero pivot's 1 + global column, or 0, of the panels whose
  // info reached the host; whether some panel's info stayed on the device
  // (then folded into the solve's info there: DeviceFactWorkspace).
  long info() const { return info_; }
  bool info_on_device() const { return device_info_; }

  // The phase set (bsp_steps.hpp).
  int nb() const { return a_.nb(); }
  Panel make_panel(long k);
  std::unique_ptr<PanelBroadcast> post_broadcast(Panel& panel) const {
    return fact_.post_broadcast(panel);
  }
  bool factors(const Panel& panel) const { return fact_.factors(panel); }
  void fact(Panel& panel, PanelBroadcast& bcast, device::Queue& q) { fact_.fact(panel, bcast, q); }
  PendingPanel received(Panel& panel);
  void apply(PendingPanel& p, long g0, long g1, PhaseTimes& tm, PanelBroadcast* in_flight) {
    applier_.apply(p.panel, p.plan, g0, g1, tm, in_flight);
  }
  double flops(const PendingPanel& p) const;
  void retire(PendingPanel& p);

  // Threads beside FACT.
  long begin(PendingPanel& p, long g0, long g1, PhaseTimes* tm) {
    return applier_.begin(p.panel, p.plan, g0, g1, tm);
  }
  void run_chunk(long i, PhaseTimes* tm) { applier_.run_chunk(i, tm); }
  void progress_sections() { applier_.progress_sections(); }

  // The split update.
  void start_section(PanelApplier::Section s, PendingPanel& p, long g0, long g1, PhaseTimes& tm) {
    applier_.start_section(s, p.panel, p.plan, g0, g1, tm);
  }
  bool section_started(PanelApplier::Section s) const { return applier_.section_started(s); }
  long begin_section(PanelApplier::Section s, PhaseTimes& tm) {
    return applier_.begin_section(s, tm);
  }
  void update_section(PanelApplier::Section s, PhaseTimes& tm,
                      PanelBroadcast* in_flight = nullptr) {
    applier_.update_section(s, tm, in_flight);
  }

 private:
  const Context& ctx_;
  LocalMatrix& a_;
  const ProcessGrid& grid_;
  PivotingFact fact_;
  PanelApplier applier_;
  PanelStore* panels_;
  DeviceFactWorkspace* fact_ws_;
  long info_ = 0;
  bool device_info_ = false;
};

}  // namespace hplx::lu
