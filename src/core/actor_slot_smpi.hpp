// Per-rank state in the simulated cluster's build (HPLX_SIM_RANK): the
// ranks are SimGrid actors of one process sharing this program's data
// (SMPI without privatization, docs/SIM.md), so what a rank keeps for
// itself lives in a slot indexed by its actor id. A deque: a slot stays
// where it is while later actors' slots are added.
#pragma once

#include <simgrid/actor.h>

#include <cstddef>
#include <deque>

namespace hplx {

// The calling actor's slot of `slots`, or nullptr outside an actor.
template <class T>
T* actor_slot(std::deque<T>& slots) {
  if (sg_actor_self() == nullptr) return nullptr;
  const auto pid = static_cast<std::size_t>(sg_actor_self_get_pid());
  if (pid >= slots.size()) slots.resize(pid + 1);
  return &slots[pid];
}

}  // namespace hplx
