// What a solve keeps from one panel to the next (panels' buffers, the row
// swaps' buffers), made before the solve's timer starts as the matrix is:
// grown while timed, their first touches cost a 2x1 run at N = 10000 about
// 0.3 s and every grid's first two FACTs about 0.1 s (page faults, with
// huge-page compaction).
#pragma once

#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/fact/panel_factor_device.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/update/apply_panel.hpp"
#include "lu/schedules/panel_store.hpp"

namespace hplx::lu {

struct SolveWorkspace {
  PanelStore panels;
  SwapWorkspace swaps;
  DeviceFactWorkspace fact;  // --fact-on device
};

// Reserves what t's bsp schedule uses: DEPTH + 1 panels' buffers (those in
// flight at once) where the queues run on the host, DEPTH + 2 where a
// device's run behind it (PanelStore), and when P > 1 the buffers of the
// swap over all the local columns (`whole`) or, with the split update,
// those of its two sections, each for its most local columns (the right
// one's also serve the plain iterations after the split, and `whole` then
// only a panel's columns; the row-swap pipeline's segments grow theirs as
// they are used), the
// in-place swap's plan and rows when P = 1 on a device, and device FACT's
// scratch with --fact-on device.
void reserve_workspace(SolveWorkspace& ws, const LocalMatrix& a, const TestCase& t,
                       const ProcessGrid& grid, bool queues_inline);

}  // namespace hplx::lu
