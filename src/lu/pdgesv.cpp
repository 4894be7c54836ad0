#include "lu/pdgesv.hpp"

#include <omp.h>

#include <atomic>
#include <deque>
#include <exception>

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
//
// With d > 0 and more than one thread, steps 2 and 3 run at the same time:
// the main thread factors and starts the broadcast (all MPI stays on it)
// while the other threads take the update's column chunks, and the main
// thread joins them when it is done. FACT, mostly BLAS-2 that one core does
// as fast as several, then costs almost nothing.
SolveOutcome pdgesv(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid) {
  SolveOutcome out;
  PhaseTimes& tm = out.phases;
  PanelApplier applier(a, t, grid);
  std::deque<PendingPanel> waiting;  // oldest first
  const long n = a.n();
  const long end = n + 1;  // the trailing columns include b
  const auto depth = static_cast<std::size_t>(t.depth);
  const bool concurrent_fact = t.schedule.fact_overlap && depth > 0 && omp_get_max_threads() > 1;
  // A panel factored on its own may use a team (--fact-threads); beside
  // the update it runs single-threaded on the main thread.
  const int fact_team =
      t.schedule.fact_threads > 0 ? t.schedule.fact_threads : omp_get_max_threads();

  for (long k = 0; k < n; k += a.nb()) {
    Panel panel = make_panel(a, k, grid);
    const long next = k + panel.jb;
    for (PendingPanel& p : waiting) {
      applier.apply(p.panel, p.plan, p.done, next, tm);
      p.done = next;
    }
    std::unique_ptr<RowBroadcast> bcast;
    auto factor_and_send = [&] {
      if (grid.mycol() == panel.owner_col) {
        ScopedTimer timer(tm.fact);
        factor_panel(a, panel, t, grid, omp_in_parallel() ? 1 : fact_team);
      }
      ScopedTimer timer(tm.bcast);
      bcast = start_panel_broadcast(panel, t.bcast, grid);
    };

    if (depth > 0 && waiting.size() == depth) {
      PendingPanel& oldest = waiting.front();
      if (concurrent_fact) {
        const long chunks = applier.begin(oldest.panel, oldest.plan, oldest.done, end, &tm);
        std::atomic<long> next_chunk{0};
        std::exception_ptr failure;
        const double start = wall_time(), before = tm.fact + tm.bcast;
#pragma omp parallel
        {
          const bool main = omp_get_thread_num() == 0;
          if (main) {
            try {
              factor_and_send();
            } catch (...) {
              failure = std::current_exception();
            }
          }
          for (long i; (i = next_chunk++) < chunks;) {
            if (main && bcast) bcast->progress();
            applier.run_chunk(i);
          }
        }
        if (failure) std::rethrow_exception(failure);
        // The main thread's view: what FACT and the start of LBCAST did not
        // take of the region went to update chunks (and to waiting for the
        // last ones of the other threads).
        tm.update += wall_time() - start - (tm.fact + tm.bcast - before);
      } else {
        factor_and_send();
        applier.apply(oldest.panel, oldest.plan, oldest.done, end, tm, bcast.get());
      }
      waiting.pop_front();
    } else {
      factor_and_send();
    }
    {
      ScopedTimer timer(tm.bcast);
      bcast->finish();
      bcast.reset();
    }
    if (grid.mycol() != panel.owner_col) unpack_panel_tail(panel);
    if (out.info == 0) out.info = panel.info;
    RowSwapPlan plan = plan_row_swaps(k, panel.jb, panel.ipiv);
    waiting.push_back({std::move(panel), std::move(plan), next});
    if (depth == 0) {
      PendingPanel& p = waiting.front();
      applier.apply(p.panel, p.plan, p.done, end, tm);
      waiting.pop_front();
    }
  }
  for (PendingPanel& p : waiting) applier.apply(p.panel, p.plan, p.done, end, tm);
  {
    ScopedTimer timer(tm.solve);
    out.x = solve_upper(a, grid);
  }
  return out;
}

}  // namespace hplx::lu
