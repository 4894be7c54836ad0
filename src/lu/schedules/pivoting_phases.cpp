#include "lu/schedules/pivoting_phases.hpp"

#include <omp.h>

#include "core/flops.hpp"
#include "lu/phases/fact/fact_model.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/schedules/workspace.hpp"

namespace hplx::lu {

PivotingFact::PivotingFact(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
                           DeviceFactWorkspace* device_fact, int team)
    : a_(a),
      grid_(grid),
      fact_([&] {
        FactParams f = fact_params(t);
        f.on_device = f.on_device && device_fact != nullptr;
        return f;
      }()),
      engine_(fact_engine(fact_.on_device, a.backend())),
      bcast_(bcast_params(t)),
      device_fact_(device_fact),
      team_(team > 0                      ? team
            : t.schedule.fact_threads > 0 ? t.schedule.fact_threads
                                          : omp_get_max_threads()) {}

std::unique_ptr<PanelBroadcast> PivotingFact::post_broadcast(Panel& panel) const {
  return std::make_unique<PanelBroadcast>(panel, bcast_, grid_);
}

// On the host the panel's columns go to the host and back on `q`.
void PivotingFact::fact(Panel& panel, PanelBroadcast& bcast, device::Queue& q,
                        const std::function<void()>& also) {
  // At each finished top-level sub-panel: only where the broadcast sends it
  // or `also` asks (device FACT's host then waits for it).
  SubpanelDone done;
  if (bcast.pipelined() || also)
    done = [send = &bcast, &also](long first, long end) {
      send->subpanel_done(first, end);
      if (also) also();
    };
  if (!fact_.on_device) {
    factor_panel(q, a_, panel, fact_, grid_, omp_in_parallel() ? 1 : team_, done, timeline_,
                 engine_);
    return;
  }
  // LBCAST sends W's host side, or its device side where MPI reads device
  // memory (BcastParams::device_memory): then only the queue is waited for.
  const bool sends = grid_.npcol() > 1;
  factor_panel_device(q, a_, panel, fact_, grid_, *device_fact_, sends && !bcast_.device_memory,
                      done, timeline_, engine_);
  if (sends && bcast_.device_memory) q.synchronize();  // MPI reads W's device side
}

RowSwapPlan ready_for_update(device::Queue& q, Panel& panel) {
  panel_to_device(q, panel);
  // One process row swaps in place from the device's pivots (no plan).
  return panel.pivots_on_host ? plan_row_swaps(panel.k, panel.jb, panel.ipiv) : RowSwapPlan{};
}

PivotingPhases::PivotingPhases(const Context& ctx, LocalMatrix& a, const TestCase& t,
                               const ProcessGrid& grid, SolveWorkspace& workspace)
    : ctx_(ctx),
      a_(a),
      grid_(grid),
      fact_(a, t, grid, &workspace.fact),
      applier_(ctx.device().compute(), a, apply_params(t), grid, workspace.swaps),
      panels_(&workspace.panels),
      fact_ws_(&workspace.fact) {
  applier_.set_trace(ctx.trace());
}

void PivotingPhases::set_timeline(DeviceTimeline* timeline) {
  fact_.set_timeline(timeline);
  applier_.set_timeline(timeline);
}

device::Queue& PivotingPhases::fact_queue() const {
  return fact_.on_device() ? ctx_.device().panel() : ctx_.device().transfer();
}

Panel PivotingPhases::make_panel(long k) {
  return lu::make_panel(
      a_, k, grid_,
      [this](std::vector<device::EventPtr>* pending) { return panels_->take(pending); },
      fact_.on_device());
}

// Receivers unpack the pivots (PanelBroadcast::finish did); the panel goes
// to the device and its interchanges are planned.
PendingPanel PivotingPhases::received(Panel& panel) {
  device::Queue& compute = ctx_.device().compute();
  if (fact_.bcast().device_memory && grid_.npcol() > 1 && grid_.mycol() != panel.owner_col)
    panel_received_on_device(compute, panel, grid_, *fact_ws_);
  if (!panel.pivots_on_host)
    device_info_ = true;  // folded into the solve's info on the device
  else if (info_ == 0)
    info_ = panel.info;
  RowSwapPlan plan = ready_for_update(compute, panel);
  const long next = panel.k + panel.jb;
  return {std::move(panel), std::move(plan), next};
}

double PivotingPhases::flops(const PendingPanel& p) const {
  return panel_flops(a_.n(), p.panel.k, p.panel.jb);
}

// The panel's buffer goes back, reused once the queues are past its
// update (PanelStore::give).
void PivotingPhases::retire(PendingPanel& p) {
  std::vector<device::EventPtr> ready;
  if (!ctx_.device().compute().runs_inline())
    ready = {ctx_.device().compute().record(), fact_queue().record()};
  panels_->give(std::move(p.panel.w), std::move(ready));
}

}  // namespace hplx::lu
