// The device's side of the LU's per-iteration record and trace (seed 000
// Fig. 7): how long the compute queue ran the update and the in-place row
// swaps, and the transfer queue the look-ahead panel's copies, timed by
// events the queues reach before and after that work (CUDA events on a
// GPU), not by the host, which only queues it.
//
// A Span files a pair of events under the iteration in progress; nothing is
// read until resolve(), after the factorization, when every event is done.
// On queues that run inline (the host backend) no span records anything:
// there the host phases are the device's.
#pragma once

#include <mutex>
#include <vector>

#include "core/trace.hpp"
#include "device/queue.hpp"
#include "lu/iteration_record.hpp"

namespace hplx::lu {

class DeviceTimeline {
 public:
  enum Kind { kUpdate, kSwap, kTransfer };

  // Anchors the device's clock to the host's: `q` is synchronized and an
  // event recorded on it is taken to be reached now.
  explicit DeviceTimeline(device::Queue& q);

  // Work queued on `q` between construction and destruction, of kind `k`.
  // `timeline` may be null (nothing timed).
  class Span {
   public:
    Span(DeviceTimeline* timeline, device::Queue& q, Kind k);
    ~Span();
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

   private:
    DeviceTimeline* timeline_;
    device::Queue& q_;
    Kind kind_;
    device::EventPtr start_;
  };

  // Spans from now on belong to the next iteration of the record.
  void close_iteration();

  // Once the queues have reached every event: adds each span's seconds to
  // its iteration (spans after the last close go to the last iteration)
  // and, when the trace is on, draws it on the "device compute" or "device
  // transfer" track.
  void resolve(std::vector<IterationTimes>& record, TraceRecorder* trace);

  // The trace's tracks for the device's queues.
  static constexpr int kComputeTrack = 1000, kTransferTrack = 1001;

 private:
  struct Filed {
    long iteration;
    Kind kind;
    device::EventPtr start, end;
  };
  void file(Kind k, device::EventPtr start, device::EventPtr end);

  device::EventPtr anchor_;
  double anchor_time_;
  std::mutex mutex_;
  long iteration_ = 0;
  std::vector<Filed> filed_;
};

}  // namespace hplx::lu
