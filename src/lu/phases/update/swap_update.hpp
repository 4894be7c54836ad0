// The step every schedule repeats: RS + UPDATE of a panel over local
// columns [lc0, lc0 + nn), once the row swap's communication for those
// columns is done. With one process row the interchanges are applied in
// place and U is the matrix's own rows (netlib's update for P = 1);
// otherwise U comes from the swap that gathered it (`gathered`). The bsp
// driver's chunks, the row-swap pipeline's segments and the dag's update
// tasks all run this, on a device queue, timed into `times` and the trace.
#pragma once

#include "core/grid.hpp"
#include "core/trace.hpp"
#include "device/queue.hpp"
#include "lu/iteration_record.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/phases/update/update.hpp"

namespace hplx::lu {

// U as a swap gathered it, for local columns [lc0, lc0 + nn) (see SwapForm
// for its layout); data == nullptr when U stays in place (P = 1).
struct GatheredU {
  double* data = nullptr;
  long lc0 = 0, nn = 0;
};

// `timeline` (may be null) times the device's side of the work. `in_place`
// (may be null) is what the in-place swap works in on a device (see
// swap_rows_in_place); without it a device swaps as the host does, one
// column block per index walking the interchanges in turn.
void swap_and_update(device::Queue& q, LocalMatrix& a, const Panel& p, const GatheredU& gathered,
                     Forms forms, long lc0, long nn, const ProcessGrid& grid, PhaseTimes* times,
                     TraceRecorder* trace, DeviceTimeline* timeline = nullptr,
                     InPlaceSwapBuffers* in_place = nullptr);

}  // namespace hplx::lu
