// The panels' W buffers a solve keeps from one panel to the next.
#pragma once

#include <deque>
#include <vector>

#include "device/mirror.hpp"
#include "device/queue.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

// Panels' W buffers kept from one panel to the next: a solve takes one for
// each panel and gives it back once the panel's update is queued, instead of
// allocating and faulting in a new (local rows + NB) x NB buffer per panel.
// On 1x1 and 1x2 at N = 10000 (about 15 MiB each) the first two FACTs took
// 65-105 ms against 15-26 ms later, mostly for that. On a GPU a new panel
// also cost a cudaMallocHost (page-locking about 1 GB at N = 123904, NB =
// 1024) and a cudaFree and cudaFreeHost, which wait for all the device's
// work: FACT then ran after the update instead of beside it (docs/GPU.md).
// Where queues run behind the host, a buffer comes back with events on the
// queues that read it and is reused once they are done.
class PanelStore {
 public:
  // `count` buffers for any panel of a, their host pages touched (none
  // where a's buffers hold no data: nothing to fault in).
  void reserve(const LocalMatrix& a, int count);
  // A kept buffer (the last one given back whose queue work is done, or
  // else the oldest), or an empty one. The oldest's work not yet done is
  // waited for by the host, or, where `pending` is given, left in it for
  // the queue that writes the buffer first to wait for.
  device::Mirror<double> take(std::vector<device::EventPtr>* pending = nullptr);
  // `ready`: events recorded after the queue work that reads `w` (none where
  // that work is done when it returns). They guard the buffer's data; one
  // that holds none (Mirror::holds_data) is free at once.
  void give(device::Mirror<double> w, std::vector<device::EventPtr> ready = {}) {
    if (!w.holds_data()) ready.clear();
    free_.push_back({std::move(w), std::move(ready)});
  }

 private:
  struct Kept {
    device::Mirror<double> w;
    std::vector<device::EventPtr> ready;
    bool done() const;
  };
  std::deque<Kept> free_;  // oldest first
};

}  // namespace hplx::lu
