#include "lu/pdgesv.hpp"

#include <deque>

#include "core/timer.hpp"
#include "lu/apply_panel.hpp"
#include "lu/panel.hpp"
#include "lu/panel_broadcast.hpp"
#include "lu/row_swap.hpp"
#include "lu/solve.hpp"

namespace hplx::lu {
namespace {

// A factored panel whose RS + UPDATE has reached the global columns before
// `done` and not yet the rest.
struct PendingPanel {
  Panel panel;
  RowSwapPlan plan;
  long done;
};

}  // namespace

// netlib's HPL_pdgesv with look-ahead of depth d (HPL_pdgesvK2): up to d
// factored panels wait with their update only applied as far as the next
// panel's columns. Each iteration
//   1. brings the new panel's columns up to date with the waiting panels,
//   2. factors it (FACT) and starts its broadcast (LBCAST),
//   3. while that travels, finishes the oldest waiting panel's swap and
//      update over the rest of the matrix (RS + UPDATE),
//   4. completes the broadcast; the new panel joins the waiting ones.
// With d = 0 nothing waits: step 3 runs after the broadcast, on the new panel.
SolveOutcome pdgesv(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid) {
  SolveOutcome out;
  PhaseTimes& tm = out.phases;
  PanelApplier applier(a, t, grid, tm);
  std::deque<PendingPanel> waiting;  // oldest first
  const long n = a.n();
  const long end = n + 1;  // the trailing columns include b
  const auto depth = static_cast<std::size_t>(t.depth);
  auto finish_oldest = [&](RowBroadcast* in_flight) {
    PendingPanel& p = waiting.front();
    applier.apply(p.panel, p.plan, p.done, end, in_flight);
    waiting.pop_front();
  };

  for (long k = 0; k < n; k += a.nb()) {
    Panel panel = make_panel(a, k, grid);
    const long next = k + panel.jb;
    for (PendingPanel& p : waiting) {
      applier.apply(p.panel, p.plan, p.done, next);
      p.done = next;
    }
    if (grid.mycol() == panel.owner_col) {
      ScopedTimer timer(tm.fact);
      factor_panel(a, panel, t, grid);
    }
    std::unique_ptr<RowBroadcast> bcast;
    {
      ScopedTimer timer(tm.bcast);
      bcast = start_panel_broadcast(panel, t.bcast, grid);
    }
    if (depth > 0 && waiting.size() == depth) finish_oldest(bcast.get());
    {
      ScopedTimer timer(tm.bcast);
      bcast->finish();
      bcast.reset();
    }
    if (grid.mycol() != panel.owner_col) unpack_panel_tail(panel);
    if (out.info == 0) out.info = panel.info;
    RowSwapPlan plan = plan_row_swaps(k, panel.jb, panel.ipiv);
    waiting.push_back({std::move(panel), std::move(plan), next});
    if (depth == 0) finish_oldest(nullptr);
  }
  while (!waiting.empty()) finish_oldest(nullptr);
  {
    ScopedTimer timer(tm.solve);
    out.x = solve_upper(a, grid);
  }
  return out;
}

}  // namespace hplx::lu
