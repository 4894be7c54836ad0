#include "lu/pdgesv.hpp"

#include <omp.h>

#include <atomic>
#include <deque>
#include <exception>
#include <vector>

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

IterationTimes record_iteration(const LocalMatrix& a, long k, long next, const PhaseTimes& before,
                                const PhaseTimes& after, double t_iter, double t_start) {
  IterationTimes it;
  it.k = k / a.nb();
  it.j = k;
  it.jb = next - k;
  it.n_trailing = a.n() - next;
  it.local_cols = a.col_start(a.n() + 1) - a.col_start(next);
  set_phases(it, before, after);
  const double now = wall_time();
  it.iter = now - t_iter;
  it.elapsed = now - t_start;
  return it;
}

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

  const double t_start = wall_time();
  double finished_flops = 0;  // of the panels whose update completed this iteration
  for (long k = 0; k < n; k += a.nb()) {
    const PhaseTimes before = tm;
    const double t_iter = wall_time();
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
        std::vector<PhaseTimes> chunk_times(omp_get_max_threads());
        const double start = wall_time();
#pragma omp parallel
        {
          const int me = omp_get_thread_num();
          if (me == 0) {
            try {
              factor_and_send();
            } catch (...) {
              failure = std::current_exception();
            }
          }
          for (long i; (i = next_chunk++) < chunks;) {
            if (me == 0 && bcast) bcast->progress();
            applier.run_chunk(i, &chunk_times[me]);
          }
        }
        if (failure) std::rethrow_exception(failure);
        // The update ran from the start of the region to its last chunk,
        // beside FACT: charge that wall time to it, split between the row
        // copies and DTRSM + DGEMM as the threads' own clocks saw them.
        PhaseTimes sum;
        for (const PhaseTimes& c : chunk_times) {
          sum.swap += c.swap;
          sum.update += c.update;
        }
        const double wall = wall_time() - start;
        const double copy_share =
            sum.swap + sum.update > 0 ? sum.swap / (sum.swap + sum.update) : 0;
        tm.swap += wall * copy_share;
        tm.swap_copy += wall * copy_share;
        tm.update += wall * (1 - copy_share);
      } else {
        factor_and_send();
        applier.apply(oldest.panel, oldest.plan, oldest.done, end, tm, bcast.get());
      }
      finished_flops += iteration_flops(n, oldest.panel.k, oldest.panel.jb);
      waiting.pop_front();
    } else {
      factor_and_send();
    }
    {
      ScopedTimer timer(tm.bcast);
      bcast->finish();
      tm.wait += bcast->timing().waited;
      tm.bcast_hidden += bcast->timing().hidden();
      bcast.reset();
    }
    if (grid.mycol() != panel.owner_col) unpack_panel_tail(panel);
    if (out.info == 0) out.info = panel.info;
    RowSwapPlan plan = plan_row_swaps(k, panel.jb, panel.ipiv);
    waiting.push_back({std::move(panel), std::move(plan), next});
    if (depth == 0) {
      PendingPanel& p = waiting.front();
      applier.apply(p.panel, p.plan, p.done, end, tm);
      finished_flops += iteration_flops(n, p.panel.k, p.panel.jb);
      waiting.pop_front();
    }
    out.iterations.push_back(record_iteration(a, k, next, before, tm, t_iter, t_start));
    out.iterations.back().flops = finished_flops;
    finished_flops = 0;
  }
  // The panels still waiting finish in the last iteration.
  if (!waiting.empty() && !out.iterations.empty()) {
    const PhaseTimes before = tm;
    const double t0 = wall_time();
    for (PendingPanel& p : waiting) {
      applier.apply(p.panel, p.plan, p.done, end, tm);
      finished_flops += iteration_flops(n, p.panel.k, p.panel.jb);
    }
    IterationTimes rest;
    set_phases(rest, before, tm);
    IterationTimes& last = out.iterations.back();
    last.rs_comm += rest.rs_comm;
    last.rs_copy += rest.rs_copy;
    last.update += rest.update;
    last.wait += rest.wait;
    last.rs_hidden += rest.rs_hidden;
    last.iter += wall_time() - t0;
    last.elapsed = wall_time() - t_start;
    last.flops += finished_flops;
  }
  {
    ScopedTimer timer(tm.solve);
    out.x = solve_upper(a, grid);
  }
  return out;
}

}  // namespace hplx::lu
