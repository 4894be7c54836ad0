// The context of a run: what the LU, the MxP and calibration use, made once
// by the app (or a test) and passed explicitly; there are no globals.
//
//   world     the communicator the run spans (grids are cut from it)
//   threads   the thread plan: OpenMP and BLAS threads per rank, applied in
//             one place (core/threads.hpp)
//   device    the device layer's backend and its queues, library handles
//             and workspaces (device/device.hpp; core only holds it, so
//             core does not depend on the device layer)
//   trace     spans of the phases (Chrome trace events), or null
//   progress  the progress line, on one rank, or null
//   log       where the run's progress messages go: stderr on the rank
//             that prints them, null on the others and with --quiet
//   activity  what this rank is doing now, for the watchdog, or null
#pragma once

#include <mpi.h>

#include <cstdio>
#include <memory>

#include "core/threads.hpp"

namespace hplx {

namespace device {
class Device;
}
class TraceRecorder;
class ProgressMeter;
class Activity;

class Context {
 public:
  Context(MPI_Comm world, ThreadPlan threads, std::shared_ptr<device::Device> device)
      : world_(world), threads_(std::move(threads)), device_(std::move(device)) {}

  MPI_Comm world() const { return world_; }
  const ThreadPlan& threads() const { return threads_; }
  device::Device& device() const { return *device_; }
  TraceRecorder* trace() const { return trace_; }
  ProgressMeter* progress() const { return progress_; }
  Activity* activity() const { return activity_; }
  std::FILE* log() const { return log_; }

  void set_trace(TraceRecorder* t) { trace_ = t; }
  void set_progress(ProgressMeter* p) { progress_ = p; }
  void set_activity(Activity* a) { activity_ = a; }
  void set_log(std::FILE* f) { log_ = f; }

 private:
  MPI_Comm world_;
  ThreadPlan threads_;
  std::shared_ptr<device::Device> device_;
  TraceRecorder* trace_ = nullptr;
  ProgressMeter* progress_ = nullptr;
  Activity* activity_ = nullptr;
  std::FILE* log_ = nullptr;
};

}  // namespace hplx
