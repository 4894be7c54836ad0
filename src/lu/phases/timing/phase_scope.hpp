// Times one phase of the LU: adds its wall time to an accumulator (the
// per-iteration record's phase totals) and, when a trace is being written,
// records it as a span on the calling thread's track (0 = the main thread,
// T = OpenMP thread T of an update team), and tells the rank's activity
// (the watchdog's view, core/activity.hpp) that the phase began and ended.
#pragma once

#include <omp.h>

#include "core/timer.hpp"
#include "core/trace.hpp"

namespace hplx::lu {

class PhaseScope {
 public:
  PhaseScope(double* acc, TraceRecorder* trace, const char* name)
      : acc_(acc),
        trace_(trace),
        activity_(trace ? trace->activity() : nullptr),
        name_(name),
        phase_(Activity::phase_of(name)),
        t0_(wall_time()) {
    if (activity_) activity_->begin(phase_);
  }
  ~PhaseScope() {
    const double t1 = wall_time();
    if (activity_) activity_->end(phase_);
    if (acc_) *acc_ += t1 - t0_;
    if (trace_ && trace_->enabled()) trace_->span(name_, omp_get_thread_num(), t0_, t1);
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  double* acc_;
  TraceRecorder* trace_;
  Activity* activity_;
  const char* name_;
  Activity::Phase phase_;
  double t0_;
};

}  // namespace hplx::lu
