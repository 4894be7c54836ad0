// Wall-clock timing (MPI_Wtime resolution, monotonic).
#pragma once

#include <algorithm>
#include <chrono>

namespace hplx {

inline double wall_time() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

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
