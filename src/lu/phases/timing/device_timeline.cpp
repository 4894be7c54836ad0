#include "lu/phases/timing/device_timeline.hpp"

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
    case DeviceTimeline::kFact:
      return "FACT";
  }
  return "DEVICE";
}

}  // namespace

DeviceTimeline::DeviceTimeline(device::Queue& q, bool keep_spans) : keep_spans_(keep_spans) {
  q.synchronize();
  anchor_ = q.record_timed();
  anchor_->synchronize();
  anchor_time_ = wall_time();
}

DeviceTimeline::Span::Span(DeviceTimeline* timeline, device::Queue& q, Kind k)
    : timeline_(q.runs_inline() ? nullptr : timeline), q_(q), kind_(k) {
  if (timeline_) start_ = q_.record_timed();
}

DeviceTimeline::Span::~Span() {
  if (timeline_) timeline_->file(kind_, std::move(start_), q_.record_timed());
}

void DeviceTimeline::file(Kind k, device::EventPtr start, device::EventPtr end) {
  std::lock_guard lock(mutex_);
  filed_.push_back({iteration_, k, std::move(start), std::move(end)});
}

void DeviceTimeline::close_iteration() {
  std::lock_guard lock(mutex_);
  ++iteration_;
  read_reached(false);
}

std::size_t DeviceTimeline::unread() const {
  std::lock_guard lock(mutex_);
  return filed_.size();
}

void DeviceTimeline::read(const Filed& f) {
  const double s = std::max(0.0, f.start->seconds_until(*f.end));
  if (sums_.size() <= static_cast<std::size_t>(f.iteration)) sums_.resize(f.iteration + 1);
  sums_[f.iteration][f.kind] += s;
  if (keep_spans_) drawn_.push_back({f.kind, anchor_->seconds_until(*f.start), s});
}

void DeviceTimeline::read_reached(bool wait) {
  std::erase_if(filed_, [&](const Filed& f) {
    if (wait && !f.end->done()) f.end->synchronize();
    if (!f.end->done()) return false;
    read(f);
    return true;
  });
}

void DeviceTimeline::resolve(std::vector<IterationTimes>& record, TraceRecorder* trace) {
  std::lock_guard lock(mutex_);
  read_reached(true);
  if (!record.empty())
    for (std::size_t i = 0; i < sums_.size(); ++i) {
      IterationTimes& it = record[std::min(i, record.size() - 1)];
      it.device_update += sums_[i][kUpdate];
      it.device_swap += sums_[i][kSwap];
      it.transfer += sums_[i][kTransfer];
      it.device_fact += sums_[i][kFact];
    }
  sums_.clear();
  if (trace && trace->enabled() && !drawn_.empty()) {
    trace->set_track_name(kComputeTrack, "device compute");
    trace->set_track_name(kTransferTrack, "device transfer");
    for (const Drawn& d : drawn_) {
      const double t0 = anchor_time_ + d.start;
      const int track = d.kind == kTransfer ? kTransferTrack
                        : d.kind == kFact   ? kPanelTrack
                                            : kComputeTrack;
      if (track == kPanelTrack) trace->set_track_name(kPanelTrack, "device panel");
      trace->span(span_name(d.kind), track, t0, t0 + d.seconds);
    }
  }
  drawn_.clear();
}

}  // namespace hplx::lu
