// Wall-clock timing (MPI_Wtime resolution, monotonic).
#pragma once

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

}  // namespace hplx
