#include "lu/device_timeline.hpp"

#include <algorithm>

#include "core/timer.hpp"

namespace hplx::lu {
namespace {

const char* span_name(DeviceTimeline::Kind k) {
  switch (k) {
    case DeviceTimeline::kUpdate:
      return "UPDATE";
    case DeviceTimeline::kSwap:
      return "RS";
    case DeviceTimeline::kTransfer:
      return "TRANSFER";
  }
  return "DEVICE";
}

}  // namespace

DeviceTimeline::DeviceTimeline(device::Queue& q) {
  q.synchronize();
  anchor_ = q.record();
  anchor_->synchronize();
  anchor_time_ = wall_time();
}

DeviceTimeline::Span::Span(DeviceTimeline* timeline, device::Queue& q, Kind k)
    : timeline_(q.runs_inline() ? nullptr : timeline), q_(q), kind_(k) {
  if (timeline_) start_ = q_.record();
}

DeviceTimeline::Span::~Span() {
  if (timeline_) timeline_->file(kind_, std::move(start_), q_.record());
}

void DeviceTimeline::file(Kind k, device::EventPtr start, device::EventPtr end) {
  std::lock_guard lock(mutex_);
  filed_.push_back({iteration_, k, std::move(start), std::move(end)});
}

void DeviceTimeline::close_iteration() {
  std::lock_guard lock(mutex_);
  ++iteration_;
}

void DeviceTimeline::resolve(std::vector<IterationTimes>& record, TraceRecorder* trace) {
  std::lock_guard lock(mutex_);
  const bool drawn = trace && trace->enabled();
  if (drawn && !filed_.empty()) {
    trace->set_track_name(kComputeTrack, "device compute");
    trace->set_track_name(kTransferTrack, "device transfer");
  }
  for (const Filed& f : filed_) {
    f.end->synchronize();
    const double s = std::max(0.0, f.start->seconds_until(*f.end));
    if (!record.empty()) {
      IterationTimes& it = record[std::min<std::size_t>(f.iteration, record.size() - 1)];
      (f.kind == kUpdate ? it.device_update : f.kind == kSwap ? it.device_swap : it.transfer) += s;
    }
    if (drawn) {
      const double t0 = anchor_time_ + anchor_->seconds_until(*f.start);
      trace->span(span_name(f.kind), f.kind == kTransfer ? kTransferTrack : kComputeTrack, t0,
                  t0 + s);
    }
  }
  filed_.clear();
}

}  // namespace hplx::lu
