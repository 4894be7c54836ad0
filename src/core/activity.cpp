#include "core/activity.hpp"

#include <algorithm>
#include <cstring>

#include "core/timer.hpp"

namespace hplx {
namespace {

constexpr const char* kNames[Activity::kPhases] = {"MATGEN", "FACT",   "LBCAST", "RS",     "UPDATE",
                                                   "SOLVE",  "VERIFY", "SETUP",  "UBCAST", "OTHER"};

}  // namespace

const char* Activity::phase_name(Phase p) {
  return kNames[p];
}

Activity::Phase Activity::phase_of(const char* name) {
  for (int p = 0; p < kOther; ++p)
    if (std::strcmp(name, kNames[p]) == 0) return static_cast<Phase>(p);
  return kOther;
}

Activity::Activity(Clock clock) : clock_(clock ? std::move(clock) : Clock(wall_time)) {
  last_ = clock_();
}

void Activity::mark_at(double t) {
  const double step = t - last_.exchange(t);
  double longest = longest_.load();
  while (step > longest && !longest_.compare_exchange_weak(longest, step)) {
  }
}

void Activity::mark() {
  if (!idle_) mark_at(clock_());
}

void Activity::begin_test(long test, long tests, std::string label, Peers peers) {
  {
    std::lock_guard lock(mutex_);
    test_ = test;
    tests_ = tests;
    label_ = std::move(label);
    peers_ = std::move(peers);
  }
  iterations_done_ = 0;
  iterations_ = 0;
  mark();
}

void Activity::set_idle(bool idle) {
  if (idle_.exchange(idle) && !idle) last_ = clock_();
}

void Activity::begin(Phase p) {
  ++running_[p];
}

void Activity::end(Phase p) {
  --running_[p];
  mark();
}

void Activity::closed_iteration(long done, long count) {
  iterations_done_ = done;
  iterations_ = count;
  mark();
}

Activity::Snapshot Activity::snapshot() const {
  Snapshot s;
  s.idle = idle_;
  s.iterations_done = iterations_done_;
  s.iterations = iterations_;
  s.last_progress = last_;
  s.longest_step = longest_;
  Peers peers;
  {
    std::lock_guard lock(mutex_);
    s.test = test_;
    s.tests = tests_;
    s.label = label_;
    peers = peers_;
  }
  bool local_only = true;
  for (int p = 0; p < kPhases; ++p) {
    if (running_[p] <= 0) continue;
    s.phases.emplace_back(kNames[p]);
    const std::vector<int>* from = nullptr;
    if (p == kLbcast) from = &peers.row;
    if (p == kFact || p == kRs || p == kUbcast) from = &peers.column;
    if (p == kSolve || p == kVerify || p == kSetup) from = &peers.grid;
    if (from) {
      local_only = false;
      s.waiting_for.insert(s.waiting_for.end(), from->begin(), from->end());
    }
  }
  // Between phases (or in local work only, whose end would be a mark): at
  // one of the grid's collectives, so any rank of it may be the one late.
  if (local_only && s.phases.empty()) s.waiting_for = peers.grid;
  std::sort(s.waiting_for.begin(), s.waiting_for.end());
  s.waiting_for.erase(std::unique(s.waiting_for.begin(), s.waiting_for.end()), s.waiting_for.end());
  std::erase(s.waiting_for, peers.me);
  return s;
}

}  // namespace hplx
