// LBCAST: the factored panel (the stacked buffer W, the pivots and the
// zero-pivot flag) sent from the panel's process column to every process of
// the process row.
#pragma once

#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/panel.hpp"

namespace hplx::lu {

// Collective over grid.row(). Implemented: Broadcast::OneRing (increasing
// ring: root -> root+1 -> ... -> root-1). The other topologies are refused
// when the configuration is checked (see unsupported_feature()).
void broadcast_panel(Panel& panel, Broadcast topology, const ProcessGrid& grid);

}  // namespace hplx::lu
