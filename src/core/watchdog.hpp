// The watchdog: a rank that has made no progress (core/activity.hpp) for
// longer than its limit says where it was and whom it was waiting for, marks
// the run record interrupted, and ends the whole job with exit status 3.
//
// A rank stopped by SIGSTOP, a lost network link or a hung library call
// leaves every other rank blocked in MPI with no word; each rank's watchdog
// thread watches its own activity, so every rank that can still speak says
// where it stopped, the one that cannot (it may be rank 0) is the one the
// others name. After the first says so it waits a grace period (a quarter of
// the limit, 1 to 10 s) so the others can say it too, then calls MPI_Abort
// (and, should that not return within 10 s, _exit) with kWatchdogExitStatus.
//
// The limit: `--watchdog SECONDS` fixes it; 0 turns the watchdog off; by
// default it is 20x the longest step so far, at least 60 s, so it grows with
// the run: a healthy run's step (an iteration's phase, the matrix
// generation, a test's check) stays far below it.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/activity.hpp"

namespace hplx {

inline constexpr int kWatchdogExitStatus = 3;

struct WatchdogOptions {
  std::optional<double> limit_s;  // unset: automatic; 0: off
  double floor_s = 60;            // automatic: at least this...
  double factor = 20;             // ...and this many times the longest step
  std::string record_path;        // the run record to mark interrupted, or empty
  int rank = 0;                   // this process's rank in the world
  std::string command = "hplx";   // says who speaks, e.g. "hplx lu"
};

// The limit in seconds for a run whose longest step so far took
// `longest_step_s`; 0 when the watchdog is off.
double watchdog_limit(const WatchdogOptions& o, double longest_step_s);

// What the rank says when it fires, or nothing while `s` is within `limit`
// (idle ranks and a limit of 0 never fire). One line, e.g.
//   hplx lu: watchdog: rank 0 has made no progress for 3.1 s (limit 3 s):
//   test 2 of 8 (WR11C2R4 N=3000 ...), iteration 7 of 16, in LBCAST; waiting
//   for rank 1
std::optional<std::string> watchdog_verdict(const WatchdogOptions& o, const Activity::Snapshot& s,
                                            double now, double limit);

class Watchdog {
 public:
  // What firing does: by default print the verdict on stderr, mark the
  // record interrupted, wait the grace period and abort the job. Tests pass
  // their own.
  using OnFire = std::function<void(const std::string& verdict, double limit)>;

  // Starts the watchdog's thread unless the limit is 0 (off).
  Watchdog(const Activity& activity, WatchdogOptions options, OnFire on_fire = {});
  ~Watchdog();  // stops the thread
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  bool enabled() const { return thread_.joinable(); }

 private:
  void watch();

  const Activity& activity_;
  WatchdogOptions options_;
  OnFire on_fire_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace hplx
