#include "lu/pdgesv.hpp"

#include <string>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "lu/panel.hpp"
#include "lu/panel_broadcast.hpp"
#include "lu/row_swap.hpp"
#include "lu/solve.hpp"
#include "lu/update.hpp"

namespace hplx::lu {

void check_supported(const TestCase& t) {
  if (t.depth != 0) {
    throw UsageError("DEPTH " + std::to_string(t.depth) +
                     " (look-ahead) is not implemented yet; allowed: 0");
  }
}

SolveOutcome pdgesv(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid) {
  check_supported(t);
  SolveOutcome out;
  PhaseTimes& tm = out.phases;
  std::vector<double> ut;
  const long n = a.n();
  for (long k = 0; k < n; k += a.nb()) {
    Panel panel = make_panel(a, k, grid);
    if (grid.mycol() == panel.owner_col) {
      ScopedTimer timer(tm.fact);
      factor_panel(a, panel, t, grid);
    }
    {
      ScopedTimer timer(tm.bcast);
      broadcast_panel(panel, t.bcast, grid);
    }
    if (out.info == 0) out.info = panel.info;
    // The trailing columns, b included: global columns k + jb .. N.
    const long lc0 = a.col_start(k + panel.jb);
    const long nn = a.nq() - lc0;
    {
      ScopedTimer timer(tm.swap);
      const RowSwapPlan plan = plan_row_swaps(k, panel.jb, panel.ipiv);
      swap_rows(a, panel, plan, lc0, nn, effective_swap(t, nn), grid, ut);
    }
    {
      ScopedTimer timer(tm.update);
      update_trailing(a, panel, ut, lc0, nn, grid);
    }
  }
  {
    ScopedTimer timer(tm.solve);
    out.x = solve_upper(a, grid);
  }
  return out;
}

}  // namespace hplx::lu
