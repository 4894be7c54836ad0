#include "lu/apply_panel.hpp"

#include <algorithm>

#include "core/timer.hpp"
#include "lu/update.hpp"

namespace hplx::lu {

// Columns per update chunk between two looks at an in-flight broadcast, in
// blocks: small enough that a ring forwards the panel soon after it arrives,
// large enough that DGEMM runs at full speed.
constexpr long kChunkBlocks = 4;

void PanelApplier::apply(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
                         RowBroadcast* in_flight) {
  const long lc0 = a_.col_start(g0);
  const long nn = a_.col_start(g1) - lc0;
  if (nn <= 0 || p.jb == 0) return;
  {
    ScopedTimer timer(times_.swap);
    swap_rows(a_, p, plan, lc0, nn, effective_swap(t_, nn), grid_, ut_);
  }
  ScopedTimer timer(times_.update);
  const long chunk = in_flight ? kChunkBlocks * a_.nb() : nn;
  for (long c = 0; c < nn; c += chunk) {
    if (in_flight) in_flight->progress();
    update_trailing(a_, p, ut_.data() + c, nn, lc0 + c, std::min(chunk, nn - c), grid_);
  }
}

}  // namespace hplx::lu
