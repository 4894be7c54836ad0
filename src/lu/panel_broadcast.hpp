// LBCAST: the factored panel (the stacked buffer W, the pivots and the
// zero-pivot flag) sent from the panel's process column to every process of
// the process row, with netlib's six topologies. Positions are counted along
// the row from the root (0) in increasing column order, wrapping around:
//   1ring    0->1, 1->2, 2->3, ...
//   1ringM   0->1, 0->2, 2->3, 3->4, ...        (1 only receives)
//   2ring    0->1 and 0->h (h = Q/2), then two rings 1->2.., h->h+1..
//   2ringM   0->1, then 0->2 and 0->s over the rest, two rings from 2 and s
//   long     the message cut in Q pieces, scattered from the root, then
//            rolled around the ring in Q-1 exchange steps (bandwidth-bound)
//   longM    0->1 the whole message, then long over 0, 2, 3, ..., Q-1
#pragma once

#include <vector>

#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/panel.hpp"

namespace hplx::lu {

// Collective over grid.row().
void broadcast_panel(Panel& panel, Broadcast topology, const ProcessGrid& grid);

// Sends `count` doubles at `data` from row position 0 (column `root`) to every
// process of `row` (ranks = columns), with the given topology. Exposed for tests.
void broadcast_row(double* data, long count, Broadcast topology, int root, MPI_Comm row);

// For the ring topologies: the position each position receives from (-1 for
// the root), for q processes. Exposed for tests.
std::vector<int> ring_parents(Broadcast topology, int q);

}  // namespace hplx::lu
