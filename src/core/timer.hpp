// Wall-clock timing.
#pragma once

#include <algorithm>

namespace hplx {

// Seconds on a monotonic clock (core/wall_time.cpp). In the simulated
// cluster's build (hplx sim) it is SimGrid's simulated clock instead
// (core/wall_time_smpi.cpp), so every phase time a run records is the
// simulation's: the rank's own time, which counts the computations it
// still owes its clock (defer_work).
double wall_time();

// The simulated cluster's build only (core/wall_time_smpi.cpp): a rank
// owes its clock `seconds` of computation, paid (slept) before it next
// meets the other ranks, in an MPI call. An in-order rank's kernels between
// two MPI calls cost the simulator one event instead of one each, and no
// one can tell: until then its time is seen only by itself (wall_time()).
void defer_work(double seconds);

// Pays what the rank owes (defer_work) before an MPI call: HPLX_MPI_CHECK
// calls it. Nothing outside the simulated build.
void pay_deferred_work();

// Accumulates the time spent inside scopes: `{ ScopedTimer t(acc); ... }`.
class ScopedTimer {
 public:
  explicit ScopedTimer(double& acc) : acc_(acc), start_(wall_time()) {}
  ~ScopedTimer() { acc_ += wall_time() - start_; }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double& acc_;
  double start_;
};

// The timeline of one non-blocking communication, to tell how much of it
// other work hid: it is in flight from start() until its completion is first
// seen; `waited` is the part the caller spent blocked on it and `busy` the
// part spent on its own packing while in flight. The rest was hidden.
struct CommTiming {
  double started = 0, completed = 0, waited = 0, busy = 0;
  void start() { started = wall_time(); }
  void complete() {
    if (completed == 0) completed = wall_time();
  }
  double in_flight() const { return completed > started ? completed - started : 0.0; }
  double hidden() const { return std::max(0.0, in_flight() - waited - busy); }
};

}  // namespace hplx
