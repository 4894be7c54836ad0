#include "lu/schedules/workspace.hpp"

namespace hplx::lu {

void reserve_workspace(SolveWorkspace& ws, const LocalMatrix& a, const TestCase& t,
                       const ProcessGrid& grid, bool queues_inline) {
  // Behind the host, one more: the buffer a new panel reuses is then the
  // one whose update was queued two iterations before, done by the time.
  ws.panels.reserve(a, t.depth + (queues_inline ? 1 : 2));
  if (t.schedule.fact_on == FactOn::Device) ws.fact.reserve(a.backend(), a.nb() + a.mp(), a.nb());
  const ApplyParams params = apply_params(t);
  if (grid.nprow() == 1) ws.swaps.in_place.reserve(a.backend(), a.nq(), a.nb());
  if (params.swap_pipeline) return;
  if (!params.sections) {
    ws.swaps.whole.reserve(a.backend(), a.nq(), a.nb(), grid.nprow(), params.swap);
    return;
  }
  // The left section is at most the local columns before the split, the
  // right one those from it on (b's column included); `whole` swaps one
  // panel's columns (the look-ahead's).
  const long left = a.col_start(split_column(a.n(), a.nb(), t.schedule.split));
  ws.swaps.sections[0].reserve(a.backend(), left, a.nb(), grid.nprow(), params.swap);
  ws.swaps.sections[1].reserve(a.backend(), a.nq() - left, a.nb(), grid.nprow(), params.swap);
  ws.swaps.whole.reserve(a.backend(), a.nb(), a.nb(), grid.nprow(), params.swap);
}

}  // namespace hplx::lu
