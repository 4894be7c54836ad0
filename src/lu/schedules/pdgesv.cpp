#include "lu/schedules/pdgesv.hpp"

#include <memory>
#include <optional>
#include <vector>

#include "core/activity.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "lu/schedules/checkpoint_boundary.hpp"
#include "lu/phases/solve.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/schedules/bsp_steps.hpp"
#include "lu/schedules/dag_schedule.hpp"
#include "lu/schedules/iteration_log.hpp"
#include "lu/schedules/look_ahead.hpp"
#include "lu/schedules/pivoting_phases.hpp"
#include "lu/schedules/workspace.hpp"

namespace hplx::lu {
namespace {

// hplx lu's factorization: the bsp look-ahead steps (bsp_steps.hpp) over
// the FP64 LU's phases with partial pivoting (pivoting_phases.hpp).
class LuDriver {
 public:
  LuDriver(const Context& ctx, LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
           SolveWorkspace& workspace, const SolveCheckpoints& checkpoints)
      : checkpoints_(checkpoints),
        ctx_(ctx),
        a_(a),
        t_(t),
        grid_(grid),
        phases_(ctx, a, t, grid, workspace),
        fact_ws_(&workspace.fact),
        log_(a, ctx.progress(), ctx.activity()) {}

  SolveOutcome factor() {
    device::Queue& compute = ctx_.device().compute();
    TraceRecorder* trace = ctx_.trace();
    // A device's own clock times its side of each iteration.
    if (!compute.runs_inline()) {
      timeline_ = std::make_unique<DeviceTimeline>(compute, trace && trace->enabled());
      phases_.set_timeline(timeline_.get());
    }
    if (phases_.fact_on_device()) {
      // The solve's info, where panels' infos stay on the device; FACT may
      // run on the panel queue, which then starts after the zeroing.
      fact_ws_->start_solve(compute);
      if (!compute.runs_inline()) phases_.fact_queue().wait(compute.record());
    }
    BspOptions o;
    o.end = a_.n() + 1;  // the trailing columns include b
    o.split = split_column(a_.n(), a_.nb(), t_.schedule.split);
    o.fact_overlap = t_.schedule.fact_overlap;
    o.depth_ahead = t_.depth > 0;
    o.n = a_.n();
    o.update_sms = phases_.fact_on_device() ? t_.schedule.update_sms : 0;
    o.update_sms_below = t_.schedule.update_sms_below;
    BspSteps<PivotingPhases> steps(phases_, compute, phases_.fact_queue(), o, trace,
                                   timeline_.get());
    log_.start();
    const LoopState* resume = checkpoints_.resume;
    const long from = resume_loop(steps, log_, resume);
    std::optional<LoopBoundary<BspSteps<PivotingPhases>>> boundary;
    if (checkpoints_.writer)
      boundary.emplace(*checkpoints_.writer, steps, log_, resume, [this] { return info_so_far(); });
    const device::DeviceCounters before = a_.backend().counters();
    LookAhead<BspSteps<PivotingPhases>>(steps, a_.n(), a_.nb(), o.end,
                                        static_cast<std::size_t>(t_.depth), log_)
        .run(from, boundary ? &*boundary : nullptr);
    if (checkpoints_.writer) checkpoints_.writer->finish();
    out_.loop = a_.backend().counters().since(before);
    out_.phases = steps.times();
    out_.info = info_so_far();
    out_.iterations = log_.take();
    if (timeline_) {
      compute.synchronize();
      phases_.fact_queue().synchronize();
      timeline_->resolve(out_.iterations, trace);
    }
    if (resume)
      out_.iterations.insert(out_.iterations.begin(), resume->iterations.begin(),
                             resume->iterations.end());
    return std::move(out_);
  }

 private:
  // The first zero pivot's 1 + column so far (a resumed run's first), or
  // 0; where panels' infos stay on the device, after its work so far.
  long info_so_far() {
    if (checkpoints_.resume && checkpoints_.resume->info != 0) return checkpoints_.resume->info;
    long info = phases_.info();
    if (phases_.info_on_device()) {
      phases_.fact_queue().synchronize();
      const long on_device = fact_ws_->solve_info(ctx_.device().compute());
      if (info == 0) info = on_device;
    }
    return info;
  }

  const SolveCheckpoints checkpoints_;
  const Context& ctx_;
  LocalMatrix& a_;
  const TestCase& t_;
  const ProcessGrid& grid_;
  PivotingPhases phases_;
  DeviceFactWorkspace* fact_ws_;
  SolveOutcome out_;
  IterationLog log_;
  std::unique_ptr<DeviceTimeline> timeline_;  // on a device backend
};

}  // namespace

SolveOutcome pdgesv(const Context& ctx, LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
                    SolveWorkspace* workspace, const SolveCheckpoints& checkpoints) {
  const bool dag = t.schedule.kind == ScheduleKind::Dag;
  if (dag && !ctx.device().compute().runs_inline())
    throw UsageError(
        "the dag schedule runs on the host backend only (its tasks share the host's cores)");
  if (dag && (checkpoints.writer || checkpoints.resume))
    throw UsageError(
        "--checkpoint and --resume work with the bsp schedule (the default), not "
        "--schedule dag");
  SolveWorkspace own;
  SolveOutcome out =
      dag ? factor_dag(ctx, a, t, grid)
          : LuDriver(ctx, a, t, grid, workspace ? *workspace : own, checkpoints).factor();
  // The back substitution, after either factorization.
  if (ctx.progress()) ctx.progress()->finish();
  {
    ScopedTimer timer(out.phases.solve);
    ActivityScope solving(ctx.activity(), Activity::kSolve);
    out.x = solve_upper(ctx.device(), a, grid);
  }
  return out;
}

}  // namespace hplx::lu
