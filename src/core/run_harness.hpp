// What every benchmark run of hplx (lu, hpl-mxp) keeps around its tests,
// written once: the JSON record on disk after every test and marked
// interrupted on SIGINT or SIGTERM (LiveRecord), the trace of every rank
// (TraceRecorder), what this rank is doing (Activity) and the watchdog
// that watches it, and the caller's context with them. The run's own
// output and the record's contents are the caller's.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/activity.hpp"
#include "core/context.hpp"
#include "core/grid.hpp"
#include "core/live_record.hpp"
#include "core/trace.hpp"
#include "core/watchdog.hpp"

namespace hplx {

class RunHarness {
 public:
  struct Options {
    std::string command;  // "hplx lu": the trace's and the watchdog's name for the run
    std::string say;      // how its lines on stderr begin: "hplx", "hplx hpl-mxp"
    std::string json_path, trace_path;  // --json, --trace ("": none)
    std::optional<double> watchdog_s;   // --watchdog (unset: automatic)
    bool quiet = false;                 // --quiet: no progress lines
    std::vector<std::string> argv;
    long planned = 0;  // the tests the run will run
  };

  // Collective over ctx.world() only in close().
  RunHarness(const Context& ctx, Options options);
  RunHarness(const RunHarness&) = delete;
  RunHarness& operator=(const RunHarness&) = delete;

  // The caller's context with the trace, the activity and, on the rank
  // that prints (rank 0, not --quiet), stderr as its log.
  const Context& context() const { return ctx_; }
  TraceRecorder& trace() { return trace_; }

  // The next test begins on `grid`: what the watchdog names (`label`) and
  // whom this rank waits for. A rank outside the grid sits the test out:
  // false.
  bool begin_test(const ProcessGrid& grid, const std::string& label);

  // The record after `done` tests, on disk (the rank that writes it only).
  void keep(const nlohmann::json& record, long done);

  // The end of the run: the trace written (collective), the record finished
  // (`record` on the root; null elsewhere or without one), and the root's
  // `status` told to every rank; returns it.
  int close(const nlohmann::json* record, long done, int status);

 private:
  const Options options_;
  const bool root_;
  LiveRecord live_;
  Activity activity_;
  TraceRecorder trace_;      // tells activity_ its phases, so it is gone before it
  const Watchdog watchdog_;  // watches activity_, so it is made after it and gone before it
  Context ctx_;
  long index_ = 0;
};

}  // namespace hplx
