#include "lu/schedules/pdgesv.hpp"

#include <omp.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <vector>

#include "core/activity.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "lu/phases/apply_panel.hpp"
#include "lu/phases/device_timeline.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/panel_broadcast.hpp"
#include "lu/phases/panel_factor_device.hpp"
#include "lu/phases/phase_scope.hpp"
#include "lu/phases/row_swap.hpp"
#include "lu/phases/solve.hpp"
#include "lu/schedules/dag_schedule.hpp"
#include "lu/schedules/iteration_log.hpp"
#include "lu/schedules/look_ahead.hpp"
#include "lu/schedules/workspace.hpp"

namespace hplx::lu {
namespace {

// A factored panel whose RS + UPDATE has reached the global columns before
// `done` and not yet the rest.
struct PendingPanel {
  Panel panel;
  RowSwapPlan plan;
  long done;
};

// hplx lu's steps of the look-ahead schedule (look_ahead.hpp): FACT with
// partial pivoting, LBCAST with the pivots, RS + UPDATE in FP64.
//
// With d > 0 and more than one thread, steps 2 and 3 run at the same time:
// the main thread factors and starts the broadcast (all MPI stays on it)
// while the other threads take the update's column chunks, and the main
// thread joins them when it is done. FACT, mostly BLAS-2 that one core does
// as fast as several, then costs almost nothing.
//
// On a device (a GPU, or the emulated one) steps 2 and 3 swap places, as in
// seed 000's Fig. 3: step 3's RS runs and its update is queued on the
// compute queue, and while the device works through it the host factors the
// new panel, whose columns step 1 brought up to date: they travel on the
// transfer queue, which waits for step 1 only, not for step 3.
//
// The split update (seed 000 III.C, --split F) cuts step 3 at the global
// column S: the right section [S, N] keeps about F of the columns while the
// left one [next, S) shrinks. The right section's swap for a panel starts as
// soon as the panel's pivots are known and the section holds the previous
// panel's update, so it travels while the left section is updated; the left
// section's swap starts before FACT and travels while the right section is
// updated. When the left section is empty the iterations are plain again.
class LuDriver {
 public:
  LuDriver(const Context& ctx, LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
           SolveWorkspace& workspace)
      : ctx_(ctx),
        a_(a),
        t_(t),
        grid_(grid),
        fact_(fact_params(t)),
        bcast_(bcast_params(t)),
        applier_(ctx.device().compute(), a, apply_params(t), grid, workspace.swaps),
        panels_(&workspace.panels),
        fact_ws_(&workspace.fact),
        n_(a.n()),
        end_(a.n() + 1),
        depth_(static_cast<std::size_t>(t.depth)),
        // Threads beside FACT share the update only where queue work runs
        // on the calling thread (the host backend's queue).
        concurrent_fact_(t.schedule.fact_overlap && depth_ > 0 && omp_get_max_threads() > 1 &&
                         ctx.device().compute().runs_inline()),
        // Where queue work runs elsewhere, the host is free while it does.
        fact_beside_device_(t.schedule.fact_overlap && depth_ > 0 &&
                            !ctx.device().compute().runs_inline()),
        fact_team_(t.schedule.fact_threads > 0 ? t.schedule.fact_threads : omp_get_max_threads()),
        // FACT on the device's queue (--fact-on device).
        fact_on_device_(fact_.on_device),
        split_(split_column(a.n(), a.nb(), t.schedule.split)),
        trace_(ctx.trace()),
        log_(a, ctx.progress(), ctx.activity()) {
    applier_.set_trace(trace_);
  }

  SolveOutcome run() {
    device::Queue& compute = ctx_.device().compute();
    // A device's own clock times its side of each iteration.
    if (!compute.runs_inline()) {
      timeline_ = std::make_unique<DeviceTimeline>(compute, trace_ && trace_->enabled());
      applier_.set_timeline(timeline_.get());
    }
    if (fact_on_device_) {
      // The solve's info, where panels' infos stay on the device; FACT may
      // run on the panel queue, which then starts after the zeroing.
      fact_ws_->start_solve(compute);
      if (!compute.runs_inline()) fact_queue().wait(compute.record());
    }
    log_.start();
    const device::DeviceCounters before = a_.backend().counters();
    LookAhead<LuDriver>(*this, n_, a_.nb(), end_, depth_, log_).run();
    out_.loop = a_.backend().counters().since(before);
    if (device_info_) {
      fact_queue().synchronize();
      const long info = fact_ws_->solve_info(compute);
      if (out_.info == 0) out_.info = info;
    }
    out_.iterations = log_.take();
    if (timeline_) {
      compute.synchronize();
      fact_queue().synchronize();
      timeline_->resolve(out_.iterations, trace_);
    }
    if (ctx_.progress()) ctx_.progress()->finish();
    ScopedTimer timer(tm().solve);
    ActivityScope solving(ctx_.activity(), Activity::kSolve);
    out_.x = solve_upper(ctx_.device(), a_, grid_);
    return std::move(out_);
  }

  // The schedule's steps (look_ahead.hpp).
  using Factored = PendingPanel;
  PhaseTimes& times() { return out_.phases; }
  Panel make_panel(long k) { return lu::make_panel(a_, k, grid_, panels_, fact_on_device_); }
  void apply(PendingPanel& p, long g1) { applier_.apply(p.panel, p.plan, p.done, g1, tm()); }

  PendingPanel factor(Panel& panel) {
    std::unique_ptr<PanelBroadcast> bcast;
    factor_and_send(panel, bcast);
    return receive_panel(panel, bcast);
  }

  PendingPanel overlap(PendingPanel& oldest, Panel& panel, long next) {
    std::unique_ptr<PanelBroadcast> bcast;
    if (next < split_) {
      start_sections(oldest, next);
      finish_section(applier_.kRight, panel, bcast);
    } else {
      finish_beside_fact(oldest, panel, bcast);
    }
    return receive_panel(panel, bcast);
  }

  void after_overlap(PendingPanel& second, long next) {
    if (next >= split_) return;
    // The right section's swap of the panel that finishes next goes now,
    // hidden by the left section's update.
    if (next + a_.nb() < split_)
      applier_.start_section(applier_.kRight, second.panel, second.plan, split_, end_, tm());
    applier_.update_section(applier_.kLeft, tm());
  }

  void finish(PendingPanel& p) {
    if (p.done < split_) {
      start_sections(p, p.done);
      applier_.update_section(applier_.kRight, tm());
      applier_.update_section(applier_.kLeft, tm());
    } else {
      applier_.apply(p.panel, p.plan, p.done, end_, tm());
    }
  }

  double flops(const PendingPanel& p) const { return panel_flops(n_, p.panel.k, p.panel.jb); }

  // The panel's update is done, or queued behind the host: its buffer goes
  // back, reused once the queues are past that update. A simulated
  // device's buffers hold no data and none are reserved
  // (PanelStore::reserve): one is reused at once, where waiting on its
  // events would stall the simulated host as the real run, with DEPTH + 2
  // reserved, does not.
  void retire(PendingPanel& p) {
    std::vector<device::EventPtr> ready;
    if (!ctx_.device().compute().runs_inline() && !a_.backend().simulation())
      ready = {ctx_.device().compute().record(), fact_queue().record()};
    panels_->give(std::move(p.panel.w), std::move(ready));
  }

  void closed() {
    if (timeline_) timeline_->close_iteration();
  }

 private:
  PhaseTimes& tm() { return out_.phases; }

  // 2. FACT on the panel's process column, then LBCAST starts.
  // With broadcast pipelining, finished sub-panels leave during FACT. The
  // panel's columns go to the host and back on `q`.
  void factor_and_send(Panel& panel, std::unique_ptr<PanelBroadcast>& bcast) {
    factor_and_send(panel, bcast, ctx_.device().compute());
  }
  void factor_and_send(Panel& panel, std::unique_ptr<PanelBroadcast>& bcast, device::Queue& q) {
    {
      PhaseScope phase(&tm().bcast, trace_, "LBCAST");
      bcast = std::make_unique<PanelBroadcast>(panel, bcast_, grid_);
    }
    if (grid_.mycol() == panel.owner_col && fact_on_device_) {
      PhaseScope phase(&tm().fact, trace_, "FACT");
      PanelBroadcast* send = bcast.get();
      // The host waits for a sub-panel only where the broadcast sends it.
      SubpanelDone done;
      if (send->pipelined())
        done = [send](long first, long end) { send->subpanel_done(first, end); };
      // LBCAST sends W's host side, or its device side where MPI reads
      // device memory (BcastParams::device_memory): then only the queue
      // is waited for.
      const bool sends = grid_.npcol() > 1;
      factor_panel_device(q, a_, panel, fact_, grid_, *fact_ws_, sends && !bcast_.device_memory,
                          done, timeline_.get());
      if (sends && bcast_.device_memory) q.synchronize();  // MPI reads W's device side
    } else if (grid_.mycol() == panel.owner_col) {
      PhaseScope phase(&tm().fact, trace_, "FACT");
      PanelBroadcast* send = bcast.get();
      factor_panel(
          q, a_, panel, fact_, grid_, omp_in_parallel() ? 1 : fact_team_,
          [send](long first, long end) { send->subpanel_done(first, end); }, timeline_.get());
    }
    PhaseScope phase(&tm().bcast, trace_, "LBCAST");
    bcast->send_rest();
  }

  // 4. LBCAST completes (receivers unpack the pivots); the panel joins the
  // waiting ones.
  PendingPanel receive_panel(Panel& panel, std::unique_ptr<PanelBroadcast>& bcast) {
    {
      PhaseScope phase(&tm().bcast, trace_, "LBCAST");
      bcast->finish();
      tm().wait += bcast->timing().waited;
      tm().bcast_hidden += bcast->timing().hidden();
      bcast.reset();
    }
    if (bcast_.device_memory && grid_.npcol() > 1 && grid_.mycol() != panel.owner_col)
      panel_received_on_device(ctx_.device().compute(), panel, grid_, *fact_ws_);
    if (!panel.pivots_on_host)
      device_info_ = true;  // folded into the solve's info on the device
    else if (out_.info == 0)
      out_.info = panel.info;
    panel_to_device(ctx_.device().compute(), panel);
    // One process row swaps in place from the device's pivots (no plan).
    RowSwapPlan plan =
        panel.pivots_on_host ? plan_row_swaps(panel.k, panel.jb, panel.ipiv) : RowSwapPlan{};
    const long next = panel.k + panel.jb;
    return {std::move(panel), std::move(plan), next};
  }

  // Steps 2 and 3 without the split: the oldest panel over all the rest.
  void finish_beside_fact(PendingPanel& oldest, Panel& panel,
                          std::unique_ptr<PanelBroadcast>& bcast) {
    if (applier_.section_started(applier_.kRight))
      throw Error("split update: a right-section swap is pending in a plain iteration");
    if (concurrent_fact_) {
      const long chunks = applier_.begin(oldest.panel, oldest.plan, oldest.done, end_, &tm());
      chunks_beside_fact(chunks, panel, bcast);
    } else if (fact_beside_device_) {
      device::Queue& copies = panel_after_step_1();
      applier_.apply(oldest.panel, oldest.plan, oldest.done, end_, tm());
      factor_and_send(panel, bcast, copies);
    } else {
      factor_and_send(panel, bcast);
      applier_.apply(oldest.panel, oldest.plan, oldest.done, end_, tm(), bcast.get());
    }
  }

  // Both sections' swaps of `p` on their way: the right one unless it
  // already is, then the left one [next, S).
  void start_sections(const PendingPanel& p, long next) {
    if (!applier_.section_started(applier_.kRight))
      applier_.start_section(applier_.kRight, p.panel, p.plan, split_, end_, tm());
    applier_.start_section(applier_.kLeft, p.panel, p.plan, next, split_, tm());
  }

  // Steps 2 and 3 for one section whose swap is on its way.
  void finish_section(PanelApplier::Section s, Panel& panel,
                      std::unique_ptr<PanelBroadcast>& bcast) {
    if (concurrent_fact_) {
      chunks_beside_fact(applier_.begin_section(s, tm()), panel, bcast);
    } else if (fact_beside_device_) {
      device::Queue& copies = panel_after_step_1();
      applier_.update_section(s, tm());
      factor_and_send(panel, bcast, copies);
    } else {
      factor_and_send(panel, bcast);
      applier_.update_section(s, tm(), bcast.get());
    }
  }

  // The queue FACT uses beside the compute queue: with FACT on the
  // device the panel queue (High priority: its short kernels go ahead of
  // the update's as the device frees room), with FACT on the host the
  // transfer queue, for the panel's columns to the host and back.
  device::Queue& fact_queue() const {
    return fact_on_device_ ? ctx_.device().panel() : ctx_.device().transfer();
  }

  // FACT's queue, waiting for step 1, queued on the compute queue so far,
  // and for nothing queued there later. (factor_panel waits for its copies
  // back before it returns; device FACT leaves an event, Panel::factored,
  // for the queues that use the panel next.)
  device::Queue& panel_after_step_1() {
    device::Queue& q = fact_queue();
    q.wait(ctx_.device().compute().record());
    return q;
  }

  // The main thread factors and starts the broadcast while the other
  // threads run the update chunks the applier was set up with; then it
  // joins them, moving the communications on between its chunks.
  void chunks_beside_fact(long chunks, Panel& panel, std::unique_ptr<PanelBroadcast>& bcast) {
    std::atomic<long> next_chunk{0};
    std::exception_ptr failure;
    std::vector<PhaseTimes> chunk_times(omp_get_max_threads());
    const double start = wall_time();
#pragma omp parallel
    {
      const int me = omp_get_thread_num();
      if (me == 0) {
        try {
          factor_and_send(panel, bcast);
        } catch (...) {
          failure = std::current_exception();
        }
      }
      for (long i; (i = next_chunk++) < chunks;) {
        if (me == 0 && bcast) {
          bcast->progress();
          applier_.progress_sections();
        }
        applier_.run_chunk(i, &chunk_times[me]);
      }
    }
    if (failure) std::rethrow_exception(failure);
    // The update ran from the start of the region to its last chunk, beside
    // FACT: charge that wall time to it, split between the row copies and
    // DTRSM + DGEMM as the threads' own clocks saw them.
    PhaseTimes sum;
    for (const PhaseTimes& c : chunk_times) {
      sum.swap += c.swap;
      sum.update += c.update;
    }
    const double wall = wall_time() - start;
    const double copy_share = sum.swap + sum.update > 0 ? sum.swap / (sum.swap + sum.update) : 0;
    tm().swap += wall * copy_share;
    tm().swap_copy += wall * copy_share;
    tm().update += wall * (1 - copy_share);
  }

  const Context& ctx_;
  LocalMatrix& a_;
  const TestCase& t_;
  const ProcessGrid& grid_;
  const FactParams fact_;  // the phases' parameters, decoded once
  const BcastParams bcast_;
  PanelApplier applier_;
  PanelStore* panels_;
  DeviceFactWorkspace* fact_ws_;
  const long n_, end_;  // the trailing columns include b: end = n + 1
  const std::size_t depth_;
  const bool concurrent_fact_;
  const bool fact_beside_device_;
  // A panel factored on its own may use a team (--fact-threads); beside
  // the update it runs single-threaded on the main thread.
  const int fact_team_;
  const bool fact_on_device_;
  bool device_info_ = false;  // some panel's info stayed on the device
  const long split_;          // the right section's first global column; 0: no split
  SolveOutcome out_;
  TraceRecorder* trace_;
  IterationLog log_;
  std::unique_ptr<DeviceTimeline> timeline_;  // on a device backend
};

}  // namespace

SolveOutcome pdgesv(const Context& ctx, LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
                    SolveWorkspace* workspace) {
  if (t.schedule.kind == ScheduleKind::Dag) {
    if (!ctx.device().compute().runs_inline())
      throw UsageError(
          "the dag schedule runs on the host backend only (its tasks share the host's cores)");
    return pdgesv_dag(ctx, a, t, grid);
  }
  SolveWorkspace own;
  return LuDriver(ctx, a, t, grid, workspace ? *workspace : own).run();
}

}  // namespace hplx::lu
