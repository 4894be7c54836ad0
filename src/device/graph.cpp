// Queue's capture and replay where a backend has none (host, sim), and the
// stand-ins that record_timed() gives during a capture (queue.hpp).
#include <fmt/format.h>

#include "core/error.hpp"
#include "device/backend.hpp"
#include "device/backend_kind.hpp"
#include "device/queue.hpp"

namespace hplx::device {
namespace {

[[noreturn]] void refuse_graphs(const Queue& q, const char* what) {
  throw Error(fmt::format("the {} backend's queues cannot capture work ({}); ask can_capture()",
                          name_of(q.backend().kind()), what));
}

[[noreturn]] void refuse_captured(const char* what) {
  throw Error(fmt::format(
      "{} of an event recorded during a capture: it stands for each replay's event (use the "
      "events that replay() returns)",
      what));
}

}  // namespace

bool CapturedEvent::done() const {
  refuse_captured("done()");
}
void CapturedEvent::synchronize() {
  refuse_captured("synchronize()");
}
double CapturedEvent::seconds_until(const Event&) const {
  refuse_captured("seconds_until()");
}

void Queue::begin_capture() {
  refuse_graphs(*this, "begin_capture");
}
GraphPtr Queue::end_capture() {
  refuse_graphs(*this, "end_capture");
}
std::vector<EventPtr> Queue::replay(Graph&) {
  refuse_graphs(*this, "replay");
}

}  // namespace hplx::device
