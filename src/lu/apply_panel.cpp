#include "lu/apply_panel.hpp"

#include <algorithm>

#include "core/timer.hpp"
#include "lu/update.hpp"

namespace hplx::lu {

// Columns per chunk: small enough that a broadcast in flight is looked at
// often and that threads sharing the chunks finish together, large enough
// that DGEMM runs at full speed and that a chunk's columns, swapped just
// before DGEMM reads them, are still in cache.
constexpr long kChunkColumns = 256;

long PanelApplier::begin(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
                         PhaseTimes* times) {
  p_ = &p;
  lc0_ = a_.col_start(g0);
  nn_ = std::max(0L, a_.col_start(g1) - lc0_);
  if (nn_ == 0 || p.jb == 0) return 0;
  chunk_ = kChunkColumns;
  // One process row: U stays in place (netlib's update for P = 1) and each
  // chunk swaps its own columns. Otherwise RS gathers U for all columns now.
  in_place_ = grid_.nprow() == 1;
  if (!in_place_) {
    double ignored = 0;
    ScopedTimer timer(times ? times->swap : ignored);
    swap_rows(a_, p, plan, lc0_, nn_, effective_swap(t_, nn_), grid_, ut_);
  }
  return (nn_ + chunk_ - 1) / chunk_;
}

void PanelApplier::run_chunk(long i, PhaseTimes* times) {
  const long c = i * chunk_;
  const long w = std::min(chunk_, nn_ - c);
  double ignored = 0;
  if (in_place_) {
    {
      ScopedTimer timer(times ? times->swap : ignored);
      swap_rows_in_place(a_, *p_, lc0_ + c, w);
    }
    ScopedTimer timer(times ? times->update : ignored);
    update_in_place(a_, *p_, lc0_ + c, w);
  } else {
    ScopedTimer timer(times ? times->update : ignored);
    update_trailing(a_, *p_, ut_.data() + c, nn_, lc0_ + c, w, grid_);
  }
}

void PanelApplier::apply(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
                         PhaseTimes& times, RowBroadcast* in_flight) {
  const long chunks = begin(p, plan, g0, g1, &times);
  for (long i = 0; i < chunks; ++i) {
    if (in_flight) in_flight->progress();
    run_chunk(i, &times);
  }
}

}  // namespace hplx::lu
