// The device's side of the LU's per-iteration record and trace (seed 000
// Fig. 7): how long the compute queue ran the update and the in-place row
// swaps, the transfer queue the look-ahead panel's copies and the panel
// queue a FACT that runs on the device (HPL-MxP's), timed by
// events the queues reach before and after that work (CUDA events on a
// GPU), not by the host, which only queues it.
//
// A Span files a pair of events under the iteration in progress. At each
// close_iteration() the spans whose events the queue has reached are read
// and let go: each iteration keeps three sums (and, for a trace, each span's
// times), not its events, which a long run would pile up (a simulated
// 64-GPU run files about 26 spans per rank and iteration; a 512-GPU one ran
// out of 23 GiB). resolve(), after the factorization, reads the rest. On
// queues that run inline (the host backend) no span records anything:
// there the host phases are the device's.
#pragma once

#include <array>
#include <mutex>
#include <vector>

#include "core/trace.hpp"
#include "device/queue.hpp"
#include "lu/iteration_record.hpp"

namespace hplx::lu {

class DeviceTimeline {
 public:
  enum Kind { kUpdate, kSwap, kTransfer, kFact };

  // Anchors the device's clock to the host's: `q` is synchronized and an
  // event recorded on it is taken to be reached now. With `keep_spans` each
  // span's times are kept for resolve() to draw.
  DeviceTimeline(device::Queue& q, bool keep_spans);

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

  // Spans from now on belong to the next iteration of the record; those the
  // queues have reached are read now.
  void close_iteration();

  // Spans filed and not yet read (the tests' window on the above).
  std::size_t unread() const;

  // Once the queues have reached every event: adds each span's seconds to
  // its iteration (spans after the last close go to the last iteration)
  // and, when the trace is on and spans were kept, draws each on the
  // "device compute" or "device transfer" track.
  void resolve(std::vector<IterationTimes>& record, TraceRecorder* trace);

  // The trace's tracks for the device's queues.
  static constexpr int kComputeTrack = 1000, kTransferTrack = 1001, kPanelTrack = 1002;

 private:
  struct Filed {
    long iteration;
    Kind kind;
    device::EventPtr start, end;
  };
  struct Drawn {
    Kind kind;
    double start, seconds;  // start: seconds after the anchor
  };
  void file(Kind k, device::EventPtr start, device::EventPtr end);
  // Reads a span whose end the queue has reached.
  void read(const Filed& f);
  // Reads the spans the queues have reached (all of them with `wait`).
  void read_reached(bool wait);

  device::EventPtr anchor_;
  double anchor_time_;
  bool keep_spans_;
  mutable std::mutex mutex_;
  long iteration_ = 0;
  std::vector<Filed> filed_;                 // not yet read
  std::vector<std::array<double, 4>> sums_;  // seconds by iteration and Kind
  std::vector<Drawn> drawn_;                 // with keep_spans_
};

}  // namespace hplx::lu
