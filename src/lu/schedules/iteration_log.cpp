#include "lu/schedules/iteration_log.hpp"

#include "core/timer.hpp"

namespace hplx::lu {

IterationLog::IterationLog(const LocalMatrix& a, ProgressMeter* progress, Activity* activity)
    : IterationLog(a.n(), a.nb(), a.n() + 1, a.mycol(), a.npcol(), progress, activity) {}

IterationLog::IterationLog(long n, int nb, long end, int mycol, int npcol, ProgressMeter* progress,
                           Activity* activity)
    : n_(n),
      end_(end),
      nb_(nb),
      mycol_(mycol),
      npcol_(npcol),
      progress_(progress),
      activity_(activity),
      start_(wall_time()),
      last_(start_) {}

void IterationLog::start() {
  // One record per panel, made once: growing by doubling would hold up to
  // twice that (a 1024-rank simulation keeps 1024 records, 0.6 GB at
  // N = 500,000).
  record_.reserve(static_cast<std::size_t>((n_ + nb_ - 1) / nb_));
  start_ = last_ = wall_time();
}

void IterationLog::resume(const std::vector<IterationTimes>& earlier) {
  if (earlier.empty()) return;
  start_ -= earlier.back().elapsed;
  for (const IterationTimes& it : earlier) flops_done_ += it.flops;
}

void IterationLog::close(long k, long jb, const PhaseTimes& spent, double flops) {
  const long n = n_, next = k + jb;
  IterationTimes it;
  it.k = k / nb_;
  it.j = k;
  it.jb = jb;
  it.n_trailing = n - next;
  it.local_cols = local_cols(next);
  set_phases(it, PhaseTimes{}, spent);
  const double now = wall_time();
  it.iter = now - last_;
  it.elapsed = now - start_;
  last_ = now;
  it.flops = flops;
  flops_done_ += flops;
  record_.push_back(it);
  const long count = (n + nb_ - 1) / nb_;
  if (activity_) activity_->closed_iteration(it.k + 1, count);
  if (progress_) {
    progress_->update(flops_done_, it.k + 1, count,
                      it.elapsed > 0 ? flops_done_ / it.elapsed / 1e9 : 0.0);
  }
}

void IterationLog::extend_last(const PhaseTimes& spent, double flops) {
  if (record_.empty()) return;
  IterationTimes rest;
  set_phases(rest, PhaseTimes{}, spent);
  IterationTimes& last = record_.back();
  last.fact += rest.fact;
  last.bcast += rest.bcast;
  last.rs_comm += rest.rs_comm;
  last.rs_copy += rest.rs_copy;
  last.update += rest.update;
  last.wait += rest.wait;
  last.bcast_hidden += rest.bcast_hidden;
  last.rs_hidden += rest.rs_hidden;
  const double now = wall_time();
  last.iter += now - last_;
  last.elapsed = now - start_;
  last_ = now;
  last.flops += flops;
  flops_done_ += flops;
}

}  // namespace hplx::lu
