#include "hplmxp/lu_nopiv.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "hplmxp/nopiv_phases.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/phases/timing/phase_scope.hpp"
#include "lu/schedules/bsp_steps.hpp"
#include "lu/schedules/checkpoint_boundary.hpp"
#include "lu/schedules/iteration_log.hpp"
#include "lu/schedules/look_ahead.hpp"

namespace hplx::hplmxp {

const char* name_of(PanelSolve s) {
  return s == PanelSolve::Trsm ? "trsm" : s == PanelSolve::Inverse ? "inverse" : "inverse-tf32";
}

PanelSolve parse_panel_solve(const std::string& text) {
  for (PanelSolve s : {PanelSolve::Trsm, PanelSolve::Inverse, PanelSolve::InverseTf32})
    if (text == name_of(s)) return s;
  throw UsageError("--panel-solve '" + text + "': allowed: trsm, inverse, inverse-tf32");
}

NopivWorkspace::NopivWorkspace(const Layout& l, device::Backend& backend, int depth,
                               device::Precision precision, PanelSolve solve) {
  if (depth < 0) throw UsageError("--depth " + std::to_string(depth) + ": allowed: 0 or more");
  b_ = std::make_unique<NopivBuffers>(l, backend, depth, precision, solve != PanelSolve::Trsm);
}
NopivWorkspace::~NopivWorkspace() = default;

bool NopivWorkspace::fits(const Layout& l, int depth, device::Precision precision,
                          PanelSolve solve) const {
  return b_->mloc == l.mloc && b_->nloc == l.nloc && b_->nb == l.nb &&
         b_->w.size() == static_cast<std::size_t>(depth) + 1 && b_->precision == precision &&
         (b_->u11_inverse.size() == 0) == (solve == PanelSolve::Trsm);
}

LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& q, float* a,
                           const FactorOptions& opt) {
  if (opt.depth < 0)
    throw UsageError("--depth " + std::to_string(opt.depth) + ": allowed: 0 or more");
  std::unique_ptr<NopivWorkspace> own;
  NopivWorkspace* ws = opt.workspace;
  if (ws == nullptr) {
    own =
        std::make_unique<NopivWorkspace>(l, q.backend(), opt.depth, opt.precision, opt.panel_solve);
    ws = own.get();
  } else if (!ws->fits(l, opt.depth, opt.precision, opt.panel_solve)) {
    throw Error(
        "factor_nopiv: the workspace was made for another layout, depth, precision or panel "
        "solve");
  }
  device::Queue& fq = opt.fact_queue ? *opt.fact_queue : q;
  // A device's own clock times its side of each panel.
  std::unique_ptr<lu::DeviceTimeline> timeline;
  if (!q.runs_inline())
    timeline = std::make_unique<lu::DeviceTimeline>(q, opt.trace && opt.trace->enabled());
  NopivPhases phases(l, grid, q, a, opt, timeline.get(), ws->buffers());
  lu::BspOptions o;
  o.end = l.n;
  o.depth_ahead = opt.depth > 0;
  o.n = l.n;
  o.update_sms = opt.update_sms;
  o.update_sms_below = opt.update_sms_below;
  lu::BspSteps<NopivPhases> steps(phases, q, fq, o, opt.trace, timeline.get());
  lu::IterationLog log(l.n, l.nb, l.n, l.mycol, l.npcol, opt.progress,
                       opt.trace ? opt.trace->activity() : nullptr);
  log.start();
  const lu::LoopState* resume = opt.checkpoints.resume;
  const long from = lu::resume_loop(steps, log, resume);
  // No pivots to carry; the state's `info` is whether one was bad on this
  // rank so far (1) or not (0), so that a resumed run still says so even
  // where no later pivot shows it (a bad one's inf or NaN usually reaches
  // the later panels' pivots too).
  std::optional<lu::LoopBoundary<lu::BspSteps<NopivPhases>>> boundary;
  if (opt.checkpoints.writer)
    boundary.emplace(*opt.checkpoints.writer, steps, log, resume,
                     [&] { return phases.bad_so_far(fq) ? 1L : 0L; });
  lu::LookAhead<lu::BspSteps<NopivPhases>>(steps, l.n, l.nb, l.n,
                                           static_cast<std::size_t>(opt.depth), log)
      .run(from, boundary ? &*boundary : nullptr);
  if (opt.checkpoints.writer) opt.checkpoints.writer->finish();
  LuNopivResult result;
  int bad = phases.finish_queues(fq) || (resume && resume->info != 0) ? 1 : 0;
  result.phases = steps.times();
  result.iterations = log.take();
  if (timeline) timeline->resolve(result.iterations, opt.trace);
  if (resume)
    result.iterations.insert(result.iterations.begin(), resume->iterations.begin(),
                             resume->iterations.end());
  if (opt.progress) opt.progress->finish();
  {  // every rank learns whether a pivot was bad: the whole grid waits
    lu::PhaseScope phase(nullptr, opt.trace, "SOLVE");
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, grid.all()));
  }
  result.bad_pivot = bad != 0;
  return result;
}

lu::CheckpointMatrix checkpoint_view(const Layout& l, device::Buffer<float>& lu) {
  lu::CheckpointMatrix m;
  m.data = lu.data();
  m.element = sizeof(float);
  m.rows = l.mloc;
  m.cols = l.nloc;
  m.ld = l.lda;
  m.nb = l.nb;
  m.mycol = l.mycol;
  m.npcol = l.npcol;
  m.backend = lu.backend();
  return m;
}

}  // namespace hplx::hplmxp
