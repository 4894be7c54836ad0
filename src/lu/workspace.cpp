#include "lu/workspace.hpp"

namespace hplx::lu {

void reserve_workspace(SolveWorkspace& ws, const LocalMatrix& a, const TestCase& t,
                       const ProcessGrid& grid, bool queues_inline) {
  // Behind the host, one more: the buffer a new panel reuses is then the
  // one whose update was queued two iterations before, done by the time.
  ws.panels.reserve(a, t.depth + (queues_inline ? 1 : 2));
  if (t.schedule.fact_on == FactOn::Device) ws.fact.reserve(a.backend(), a.nb() + a.mp(), a.nb());
  const ApplyParams params = apply_params(t);
  if (grid.nprow() == 1) ws.swaps.in_place.reserve(a.backend(), a.nq(), a.nb());
  if (params.swap_pipeline || params.sections) return;
  ws.swaps.whole.reserve(a.backend(), a.nq(), a.nb(), grid.nprow(), params.swap);
}

}  // namespace hplx::lu
