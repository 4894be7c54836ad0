#include "lu/workspace.hpp"

namespace hplx::lu {

void reserve_workspace(SolveWorkspace& ws, const LocalMatrix& a, const TestCase& t,
                       const ProcessGrid& grid, bool queues_inline) {
  if (queues_inline) ws.panels.reserve(a, t.depth + 1);
  const ApplyParams params = apply_params(t);
  if (params.swap_pipeline || params.sections) return;
  ws.swaps.whole.reserve(a.backend(), a.nq(), a.nb(), grid.nprow(), params.swap);
}

}  // namespace hplx::lu
