#include "core/watchdog.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "core/live_record.hpp"

namespace hplx {
namespace {

std::string rank_list(const std::vector<int>& ranks) {
  constexpr std::size_t kShown = 8;
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < std::min(ranks.size(), kShown); ++i)
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > kShown) s += fmt::format(" and {} more", ranks.size() - kShown);
  return s;
}

std::string where(const Activity::Snapshot& s) {
  if (s.test == 0) return "before the first test";
  std::string w = fmt::format("test {} of {} ({})", s.test, s.tests, s.label);
  if (s.iterations > 0)
    w += fmt::format(", iteration {} of {}", std::min(s.iterations_done + 1, s.iterations),
                     s.iterations);
  else
    w += ", before its first iteration closed";
  if (!s.phases.empty()) {
    w += ", in ";
    for (std::size_t i = 0; i < s.phases.size(); ++i) w += (i ? " + " : "") + s.phases[i];
  } else {
    w += ", between phases";
  }
  return w;
}

// The grace period after the first word: long enough for the other ranks,
// stalled at about the same moment, to say theirs.
double grace_s(double limit) {
  return std::clamp(limit / 4, 1.0, 10.0);
}

void sleep_s(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

void fire_and_abort(const WatchdogOptions& o, const std::string& verdict, double limit) {
  std::fprintf(stderr, "%s: watchdog: %s; ending the job with exit status %d\n", o.command.c_str(),
               verdict.c_str(), kWatchdogExitStatus);
  std::fflush(stderr);
  // The record keeps this reason: the SIGTERM the launcher sends next must
  // not overwrite it.
  LiveRecord::stand_down();
  if (!o.record_path.empty())
    mark_record_interrupted(o.record_path,
                            "watchdog: " + verdict + "; the test in progress was lost");
  sleep_s(grace_s(limit));
  // MPI_Abort from this thread while the main one is blocked in MPI: Open
  // MPI's ends the job (every rank, stopped ones included). Should an MPI
  // not return from it, the backstop ends this process, and the launcher
  // the rest.
  std::thread([] {
    sleep_s(10);
    _exit(kWatchdogExitStatus);
  }).detach();
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, kWatchdogExitStatus);
  _exit(kWatchdogExitStatus);
}

}  // namespace

double watchdog_limit(const WatchdogOptions& o, double longest_step_s) {
  if (o.limit_s) return std::max(0.0, *o.limit_s);
  return std::max(o.floor_s, o.factor * longest_step_s);
}

std::optional<std::string> watchdog_verdict(const WatchdogOptions& o, const Activity::Snapshot& s,
                                            double now, double limit) {
  const double quiet = now - s.last_progress;
  if (limit <= 0 || s.idle || quiet <= limit) return std::nullopt;
  std::string v = fmt::format(
      "rank {} has made no progress for {:.1f} s (limit {:.3g} s{}): {}", o.rank, quiet, limit,
      o.limit_s ? ", --watchdog" : ", 20x its longest step, at least 60 s", where(s));
  if (!s.waiting_for.empty())
    v += "; waiting for " + rank_list(s.waiting_for);
  else if (!s.phases.empty())
    v += "; in local work, not waiting for another rank";
  return v;
}

Watchdog::Watchdog(const Activity& activity, WatchdogOptions options, OnFire on_fire)
    : activity_(activity), options_(std::move(options)), on_fire_(std::move(on_fire)) {
  if (!on_fire_)
    on_fire_ = [o = options_](const std::string& verdict, double limit) {
      fire_and_abort(o, verdict, limit);
    };
  if (watchdog_limit(options_, 0) > 0) thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    const Activity::Snapshot s = activity_.snapshot();
    const double limit = watchdog_limit(options_, s.longest_step);
    if (auto verdict = watchdog_verdict(options_, s, activity_.now(), limit)) {
      lock.unlock();
      on_fire_(*verdict, limit);
      return;
    }
    // Checked ten times per limit, at least once a second.
    wake_.wait_for(lock, std::chrono::duration<double>(std::min(1.0, limit / 10)),
                   [this] { return stop_; });
  }
}

}  // namespace hplx
