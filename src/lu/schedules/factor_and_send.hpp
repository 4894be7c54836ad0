// Step 2 of every schedule, for any LU's FACT and LBCAST (a phase set of
// bsp_steps.hpp, or PivotingFact in the dag's tasks): LBCAST's receives
// posted, FACT on the panel's process column, then LBCAST's sends (with
// broadcast pipelining the finished sub-panels have left during FACT),
// each timed into the phase totals and the trace.
#pragma once

#include <memory>
#include <utility>

#include "core/trace.hpp"
#include "device/queue.hpp"
#include "lu/iteration_record.hpp"
#include "lu/phases/timing/phase_scope.hpp"

namespace hplx::lu {

// `fact_args` go to f.fact after the panel, its broadcast and `q`.
template <class Fact, class Panel, class... FactArgs>
std::unique_ptr<typename Fact::Broadcast> factor_and_send(Fact& f, Panel& panel, device::Queue& q,
                                                          PhaseTimes& tm, TraceRecorder* trace,
                                                          FactArgs&&... fact_args) {
  std::unique_ptr<typename Fact::Broadcast> bcast;
  {
    PhaseScope phase(&tm.bcast, trace, "LBCAST");
    bcast = f.post_broadcast(panel);
  }
  if (f.factors(panel)) {
    PhaseScope phase(&tm.fact, trace, "FACT");
    f.fact(panel, *bcast, q, std::forward<FactArgs>(fact_args)...);
  }
  PhaseScope phase(&tm.bcast, trace, "LBCAST");
  bcast->send_rest();
  return bcast;
}

}  // namespace hplx::lu
