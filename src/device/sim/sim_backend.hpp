// The sim implementation of the device layer: the ranks of `hplx sim` run
// the real drivers inside SimGrid's SMPI (one process, every rank an actor
// on a simulated host), and this backend computes nothing.
//
// - Device memory is address space without pages (touching it faults, so
//   code that reads the matrix outside the device layer is caught at
//   once). Host and pinned memory are real, lazily backed: small buffers
//   private (pivots, counts), large ones (MPI's panels and rows) SMPI's
//   shared memory, one set of pages for every rank, whose message copies
//   SMPI skips, but for their last 64 KiB (a panel's pivots).
// - Every queue operation (GEMM, TRSM, GEMV, copies, kernel bodies) costs
//   the time the SimModel gives for its shape. On a CPU rank (model.gpu
//   false) the queue runs inline: the rank's simulated core is busy for
//   that long. On a GPU rank each queue keeps the simulated time it is
//   busy until; the host goes on at once, events carry the time their
//   queue reaches them, and waiting for one (an event's or the queue's
//   synchronize) sleeps the rank until then, so the schedules' overlap of
//   host and device work is simulated as it would run.
// - Host work the drivers do on data is charged by Simulation::host_work.
// Only the SMPI build (HPLX_SIM) compiles this folder.
#pragma once

#include <memory>

#include "device/backend.hpp"
#include "device/sim_model.hpp"

namespace hplx::device {

std::unique_ptr<Backend> make_sim_backend(const SimModel& model);

}  // namespace hplx::device
