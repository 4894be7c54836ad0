// Chrome trace event recorder (`--trace FILE`): where each rank and thread
// spent its time, viewable in Perfetto (ui.perfetto.dev) and chrome://tracing.
//
// Every rank records spans {name, track, t0, t1} with t0/t1 in seconds from
// TraceRecorder::now(), which is hplx::wall_time() (steady_clock): the clock
// the LU driver already times its phases with, safe to read from worker
// threads (which must not call MPI under MPI_THREAD_FUNNELED), and the same
// clock for every process of a node. write() gathers all ranks' spans to rank
// 0 and writes one JSON file in the Trace Event Format:
//   {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": metadata}
// with one complete event ("ph": "X") per span, "ts"/"dur" in microseconds
// from the earliest span of the run, "pid" = MPI rank (named "rank R"),
// "tid" = track (named by set_track_name, default "main" for 0 and
// "worker T" for T > 0).
//
// Track convention of the LU driver: 0 = the rank's main thread (FACT,
// LBCAST, RS, and UPDATE when it runs there); 1, 2, ... = update worker
// threads. Span names: FACT, LBCAST, RS, UPDATE, TRANSFER, WAIT, or any other.
// Spans on one track should nest (a span inside another, never a partial
// overlap); the viewers draw nested spans as a stack.
//
// A recorder also tells the rank's Activity (core/activity.hpp), when one
// is attached, which phases are under way: what the watchdog reports. The
// LU's PhaseScope goes through it, so every phase is seen by both.
//
// A disabled recorder costs one branch per span(). An enabled one takes a
// mutex per span, so several OpenMP threads can record at once; the LU
// driver records a handful of spans per iteration, which is nothing next to
// an iteration's milliseconds.
#pragma once

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/activity.hpp"
#include "core/timer.hpp"

namespace hplx {

class TraceRecorder {
 public:
  explicit TraceRecorder(bool enabled = false) : enabled_(enabled) {}
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  bool enabled() const { return enabled_; }

  // The clock spans are measured with (seconds, monotonic, any thread).
  static double now() { return wall_time(); }

  // Records a span [t0, t1] (seconds from now()) on `track` of this rank.
  // `name` is copied. Thread-safe.
  void span(const char* name, int track, double t0, double t1) {
    if (enabled_) record(name, track, t0, t1);
  }

  // The activity that phases begun and ended are reported to (may be null).
  void set_activity(Activity* a) { activity_ = a; }
  Activity* activity() const { return activity_; }

  // Names a track of this rank in the viewer ("main", "update worker 1").
  void set_track_name(int track, const std::string& name);

  // The number of spans recorded on this rank.
  size_t size() const;

  // Collective over `comm`: gathers every rank's spans to rank 0, which
  // writes `path` atomically (write_text_atomically), one event per line.
  // `metadata` goes under "otherData" (e.g. the run's parameters). Ranks of
  // `comm` on another node than rank 0 have their clocks aligned to rank 0's
  // at a barrier; ranks on rank 0's node share its clock and are not
  // shifted. Nothing happens when the recorder is disabled (on every rank
  // alike). Throws SystemError on rank 0 when the file cannot be written.
  void write(const std::string& path, MPI_Comm comm, const nlohmann::json& metadata) const;

 private:
  struct Span {
    int name;  // index into names_
    int track;
    double t0, t1;
  };
  void record(const char* name, int track, double t0, double t1);
  int name_index(const char* name);  // with mutex_ held

  bool enabled_;
  Activity* activity_ = nullptr;
  mutable std::mutex mutex_;
  std::vector<Span> spans_;
  std::vector<std::string> names_;
  std::map<int, std::string> track_names_;
};

// Records the span from construction to destruction:
//   { TraceScope s(trace, "FACT", 0); factor(...); }
class TraceScope {
 public:
  TraceScope(TraceRecorder& trace, const char* name, int track)
      : trace_(trace),
        name_(name),
        track_(track),
        t0_(trace.enabled() ? TraceRecorder::now() : 0.0) {}
  ~TraceScope() {
    if (trace_.enabled()) trace_.span(name_, track_, t0_, TraceRecorder::now());
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  TraceRecorder& trace_;
  const char* name_;
  int track_;
  double t0_;
};

// The Trace Event Format document for already-gathered spans; write() uses
// it on rank 0, tests use it directly. `ranks[r]` holds rank r's spans as
// {"names": [...], "tracks": {"T": "name"}, "spans": [[name, track, t0, t1], ...]}.
nlohmann::json make_chrome_trace(const std::vector<nlohmann::json>& ranks,
                                 const nlohmann::json& metadata);

}  // namespace hplx
