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
    return *this;
  }
};

// The end of a motif's time, for the stats: on a queue that runs ahead of
// the host (a GPU, the emulated device) the host first waits for the queue,
// so that the motif's seconds are its kernels' and not their launches'
// (one synchronization per motif; a motif's start is the previous one's
// end). The halo-wait stamps inside a motif are not synchronized: waiting
// for the interior rows there would stop the messages' progress.
inline double motif_end(device::Queue& q) {
  if (!q.runs_inline()) q.synchronize();
  return wall_time();
}

}  // namespace hplx::mxp
