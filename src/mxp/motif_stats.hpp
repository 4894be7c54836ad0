// Time, flops and modelled memory traffic per motif of the solver, as the
// reference reports them (SpMV, MG with its Gauss-Seidel, restriction and
// prolongation parts, orthogonalization, vector updates). Flops follow the
// reference's model with global row and nonzero counts (flop_model.hpp);
// bytes follow the per-row model of docs/MXP.md and are this rank's.
//
// `trace`, when set, also records every kernel as a span (`--trace FILE`):
// track 0 the rank's kernels, nested (solve > SpMV / MG > level > interior
// rows, halo wait, halo rows), track 1 the halo messages from posting to
// completion, so they show beside the interior kernels they overlap.
#pragma once

#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/trace.hpp"
#include "device/queue.hpp"

namespace hplx::mxp {

inline constexpr int kTraceKernels = 0;  // track of the kernels
inline constexpr int kTraceHalo = 1;     // track of the halo messages

struct MotifStats {
  // Seconds.
  double total = 0, spmv = 0, mg = 0, gs = 0, restriction = 0, prolongation = 0, ortho = 0,
         vector = 0, halo_wait = 0;
  // Calls.
  long spmv_calls = 0, mg_calls = 0;
  // Flops (model, global).
  double flops_spmv = 0, flops_mg = 0, flops_ortho = 0, flops_vector = 0;
  // Bytes moved by this rank (model).
  double bytes_spmv = 0, bytes_gs = 0, bytes_restriction = 0, bytes_prolongation = 0,
         bytes_ortho = 0, bytes_vector = 0;

  TraceRecorder* trace = nullptr;  // not summed by +=

  // Motifs timed by a pair of timed events (MotifClock), whose seconds are
  // not added yet: settle() adds them.
  struct Pending {
    device::EventPtr start, end;
    double MotifStats::*seconds;
  };
  std::vector<Pending> pending;

  // Adds the pending motifs' seconds, after one wait for the last of them
  // (a solve's end, where the host waits anyway).
  void settle() {
    if (pending.empty()) return;
    pending.back().end->synchronize();
    for (const Pending& p : pending) this->*p.seconds += p.start->seconds_until(*p.end);
    pending.clear();
  }

  // What a replay of captured work adds (Multigrid's graphs): these
  // counts, captured once, as they are, and each pending motif timed by the
  // replay's events (device::Queue::replay) in place of the capture's
  // stand-ins (device::CapturedEvent).
  MotifStats replayed(const std::vector<device::EventPtr>& events) const {
    MotifStats r = *this;
    r.trace = nullptr;
    const auto of = [&events](const device::EventPtr& e) {
      const auto* c = dynamic_cast<const device::CapturedEvent*>(e.get());
      if (c == nullptr || c->index() >= events.size())
        throw Error("MotifStats::replayed: a pending motif's event is not one of the capture's");
      return events[c->index()];
    };
    for (Pending& p : r.pending) {
      p.start = of(p.start);
      p.end = of(p.end);
    }
    return r;
  }

  void span(const char* name, double t0, double t1, int track = kTraceKernels) const {
    if (trace) trace->span(name, track, t0, t1);
  }

  double flops_total() const { return flops_spmv + flops_mg + flops_ortho + flops_vector; }
  double bytes_mg() const { return bytes_gs + bytes_restriction + bytes_prolongation; }
  double bytes_total() const { return bytes_spmv + bytes_mg() + bytes_ortho + bytes_vector; }

  MotifStats& operator+=(const MotifStats& o) {
    total += o.total;
    spmv += o.spmv;
    mg += o.mg;
    gs += o.gs;
    restriction += o.restriction;
    prolongation += o.prolongation;
    ortho += o.ortho;
    vector += o.vector;
    halo_wait += o.halo_wait;
    spmv_calls += o.spmv_calls;
    mg_calls += o.mg_calls;
    flops_spmv += o.flops_spmv;
    flops_mg += o.flops_mg;
    flops_ortho += o.flops_ortho;
    flops_vector += o.flops_vector;
    bytes_spmv += o.bytes_spmv;
    bytes_gs += o.bytes_gs;
    bytes_restriction += o.bytes_restriction;
    bytes_prolongation += o.bytes_prolongation;
    bytes_ortho += o.bytes_ortho;
    bytes_vector += o.bytes_vector;
    pending.insert(pending.end(), o.pending.begin(), o.pending.end());
    return *this;
  }
};

// The end of a motif's time by the host's clock: on a queue that runs ahead
// of the host (a GPU, the emulated device) the host first waits for the
// queue, so that the motif's seconds are its kernels' and not their
// launches'. The halo-wait stamps inside a motif are not synchronized:
// waiting for the interior rows there would stop the messages' progress.
inline double motif_end(device::Queue& q) {
  if (!q.runs_inline()) q.synchronize();
  return wall_time();
}

// One motif's time, from the clock's making to end(). On a queue that runs
// ahead of the host (a GPU, the emulated device), without a trace: a timed
// event at each end, the seconds between them added by
// MotifStats::settle() after the solve, so that the host never waits for
// the queue to time a motif (none inside a V-cycle on one rank; a motif's
// start is where the queue finished the work before it). On an inline
// queue (its kernels run as they are called), or with a trace (whose spans
// need the host's clock): wall times, motif_end() waiting at the end.
class MotifClock {
 public:
  MotifClock(device::Queue& q, MotifStats* stats)
      : q_(q),
        stats_(stats),
        events_(stats != nullptr && stats->trace == nullptr && !q.runs_inline()),
        t0_(wall_time()) {
    if (events_) start_ = q.record_timed();
  }
  double t0() const { return t0_; }
  // The motif's end (stats must be set): its seconds go to stats->*field,
  // its span (a trace) is named `name`. Returns the host's clock then.
  double end(double MotifStats::*field, const char* name) {
    if (events_) {
      stats_->pending.push_back({start_, q_.record_timed(), field});
      return wall_time();
    }
    const double t1 = motif_end(q_);
    stats_->span(name, t0_, t1);
    stats_->*field += t1 - t0_;
    return t1;
  }

 private:
  device::Queue& q_;
  MotifStats* stats_;
  bool events_;
  double t0_;
  device::EventPtr start_;
};

}  // namespace hplx::mxp
