// Times one phase of the LU: adds its wall time to an accumulator (the
// per-iteration record's phase totals) and, when a trace is being written,
// records it as a span on the calling thread's track (0 = the main thread,
// T = OpenMP thread T of an update team).
#pragma once

#include <omp.h>

#include "core/timer.hpp"
#include "core/trace.hpp"

namespace hplx::lu {

class PhaseScope {
 public:
  PhaseScope(double* acc, TraceRecorder* trace, const char* name)
      : acc_(acc), trace_(trace), name_(name), t0_(wall_time()) {}
  ~PhaseScope() {
    const double t1 = wall_time();
    if (acc_) *acc_ += t1 - t0_;
    if (trace_ && trace_->enabled()) trace_->span(name_, omp_get_thread_num(), t0_, t1);
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  double* acc_;
  TraceRecorder* trace_;
  const char* name_;
  double t0_;
};

}  // namespace hplx::lu
