// What this rank is doing now, as the watchdog (core/watchdog.hpp) sees it:
// the test and iteration under way, the phases begun and not yet ended (on
// any thread), whom those phases wait for, and when the rank last made
// progress. Progress is any mark: a phase ended, an iteration closed, a test
// began. The time between two marks is a step; the longest step so far is
// what an automatic watchdog limit is derived from.
//
// Written by the run's threads (the main thread, OpenMP workers, the dag
// schedule's tasks), read by the watchdog's thread at any moment: every field
// is atomic or behind a mutex, and no call blocks for long.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace hplx {

class Activity {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic

  // The phases a rank can be in. Which peers each waits for:
  //   LBCAST       the ranks of my process row (the panel comes along it)
  //   FACT, RS, UBCAST the ranks of my process column (pivot search, row
  //                swap; HPL-MxP's row of U going down the columns)
  //   SOLVE, VERIFY, SETUP the whole grid (back substitution, residual
  //                norms; HPL-MxP's generator, whose diagonal sums and norm
  //                are collectives)
  //   MATGEN, UPDATE nobody (local work)
  // A name not listed counts as OTHER, local work.
  enum Phase : int {
    kMatgen,
    kFact,
    kLbcast,
    kRs,
    kUpdate,
    kSolve,
    kVerify,
    kSetup,
    kUbcast,
    kOther,
    kPhases
  };
  static const char* phase_name(Phase p);
  static Phase phase_of(const char* name);

  // The world ranks of the current grid's parts, this rank's among them.
  struct Peers {
    int me = 0;
    std::vector<int> row, column, grid;
  };

  struct Snapshot {
    bool idle = false;                         // sitting out: waiting for tests this rank is not in
    long test = 0, tests = 0;                  // test `test` (1-based) of `tests`; 0: none yet
    std::string label;                         // the test, e.g. "WR11C2R4 N=3000 NB=192 P=1 Q=2"
    long iterations_done = 0, iterations = 0;  // of the test under way
    std::vector<std::string> phases;           // begun, not ended, in Phase order
    std::vector<int> waiting_for;              // world ranks, ascending, not me
    double last_progress = 0;                  // clock time of the last mark
    double longest_step = 0;                   // seconds between two marks, so far
  };

  explicit Activity(Clock clock = {});  // unset clock: hplx::wall_time

  // A new test (a mark): its place in the run, its label and its grid.
  void begin_test(long test, long tests, std::string label, Peers peers);
  // Sitting out tests of a grid this rank is not in, blocked in the next
  // collective until the others finish: the watchdog does not count it.
  // Leaving idleness restarts the clock without counting the idle time as
  // a step.
  void set_idle(bool idle);

  void begin(Phase p);
  void end(Phase p);  // a mark
  // Iteration `done` of `count` of the test's factorization closed (a mark).
  void closed_iteration(long done, long count);
  void mark();

  Snapshot snapshot() const;
  double now() const { return clock_(); }

 private:
  void mark_at(double t);

  Clock clock_;
  std::array<std::atomic<int>, kPhases> running_{};
  std::atomic<long> iterations_done_{0}, iterations_{0};
  std::atomic<double> last_;
  std::atomic<double> longest_{0};
  std::atomic<bool> idle_{false};
  mutable std::mutex mutex_;  // guards the test's description
  long test_ = 0, tests_ = 0;
  std::string label_;
  Peers peers_;
};

// Marks a phase of the activity (may be null) for a scope.
class ActivityScope {
 public:
  ActivityScope(Activity* a, Activity::Phase p) : a_(a), p_(p) {
    if (a_) a_->begin(p_);
  }
  ~ActivityScope() {
    if (a_) a_->end(p_);
  }
  ActivityScope(const ActivityScope&) = delete;
  ActivityScope& operator=(const ActivityScope&) = delete;

 private:
  Activity* a_;
  Activity::Phase p_;
};

}  // namespace hplx
