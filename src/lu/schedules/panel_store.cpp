#include "lu/schedules/panel_store.hpp"

#include <algorithm>
#include <iterator>

namespace hplx::lu {

void PanelStore::reserve(const LocalMatrix& a, int count) {
  if (!a.backend().holds_data()) return;
  // W's largest size: ld = NB + all local rows, NB columns, the tail.
  const long most = (a.nb() + a.mp()) * static_cast<long>(a.nb()) + a.nb() + 1;
  for (int i = 0; i < count; ++i) {
    device::Mirror<double> w(a.backend());
    w.assign(most, 0.0);
    give(std::move(w));
  }
}

bool PanelStore::Kept::done() const {
  return std::all_of(ready.begin(), ready.end(), [](const auto& e) { return e->done(); });
}

device::Mirror<double> PanelStore::take(std::vector<device::EventPtr>* pending) {
  if (free_.empty()) return {};
  auto it = std::find_if(free_.rbegin(), free_.rend(), [](const Kept& k) { return k.done(); });
  Kept kept = std::move(it != free_.rend() ? *it : free_.front());
  free_.erase(it != free_.rend() ? std::next(it).base() : free_.begin());
  for (device::EventPtr& e : kept.ready) {
    if (e->done()) continue;
    if (pending)
      pending->push_back(std::move(e));
    else
      e->synchronize();
  }
  return std::move(kept.w);
}

}  // namespace hplx::lu
