// The dag schedule (--schedule dag, seed 004): the simple right-looking LU,
// without hand-written look-ahead, run as a data-driven task graph.
//
// Tasks, per panel k (all created up front by one thread):
//   POST(k)    the panel's process column: FACT, then LBCAST's sends posted
//              (the panel is ready here); the other columns: LBCAST's
//              receives posted.
//   WAIT(k)    LBCAST moved on until this process's part is done (received,
//              forwarded), then finished; on receivers the panel is ready.
//   RSN(k)     P > 1, on the process column holding panel k + 1: the row
//              swap of that block alone (collective over the process
//              column): "the swap split", with Q > 1, or Q = 1 with the
//              early rest swap (--dag-early-swap off turns that off; the
//              split then needs more than one thread per rank).
//   RSR(k)     P > 1: the row swap of the other trailing columns (all of
//              them without the split). With Q = 1 (the early rest swap)
//              two tasks: RSR-post(k) in the MPI chain before POST(k + 1)
//              posts it, RSR-finish(k) after POST(k + 1) completes it, so
//              it travels during the next factorization.
//   UPDATE(k,J) local blocks J with panel k: with P = 1 the blocks' row
//              interchanges in place, then DTRSM + DGEMM. The blocks of
//              panels k + 1 and k + 2 are updated alone; the others in
//              groups of about kDagGroupColumns columns (fixed boundaries).
// A column block is NB global columns (the last one holds b); every local
// block is its own chain of tasks, so a rank holds many "virtual
// processors" (seed 004's processor virtualization). Data dependencies
// (OpenMP `depend`) tie an UPDATE to the previous panel's updates of the
// same blocks and to panel k, and FACT(k) to UPDATE(k-1,k). Nothing else
// orders the computation: how far the factorization runs ahead of the
// update is decided at run time.
//
// MPI: POST, RSN and RSR also depend on one token, so they run one at a
// time in creation order, the same on every process of a process column:
// collectives on a communicator start in the same order everywhere, as MPI
// requires. With the split that order is POST(k), RSR(k-1), RSN(k),
// POST(k+1), ... (without it POST(k), RSR(k), POST(k+1), ...): the
// rest's swap of panel k - 1 comes after the next factorization, so FACT(k)
// needs the whole update of panel k - 3 only (one swap for all would make
// it k - 2), and the updates of panels k - 2 and k - 1 can still run.
// With the early rest swap (Q = 1) the chain is POST(k), RSN(k),
// RSR-post(k), POST(k+1), ...; the swap's second stage goes on a
// communicator of its own and one rest swap is in flight at a time. A
// swap moves the broadcast in flight on while it waits (RSR(k-1) runs while
// panel k may travel and this process may have to forward it).
// POST(k+1) waits for WAIT(k), so at most one LBCAST is in flight per
// process (broadcasts of different panels reuse tags). Between tasks, any
// thread moves the broadcast in flight on (poll), so a ring forwards while
// the process updates. With Q = 1 (no broadcast) a swap blocks in MPI.
// Waiting loops yield the core only on an oversubscribed node. MPI calls
// come from any thread of the team, one at a time under a mutex:
// MPI_THREAD_SERIALIZED.
//
// Priorities (seed 004): POST, RSN and RSR 4 (they lead to the next panel); the
// update of the block that factors the next panel 3, of the block after it
// 2, of the others 1: a block that has just factored and sent its panel
// falls back to the lowest update priority. WAIT is 0: it spins on the
// network, so it takes a thread only when no update is ready.
// `dag_priorities = false` gives every task 0 (the ablation). libgomp
// honours priorities only up to OMP_MAX_TASK_PRIORITY, read at program
// start: set it to 4 (kDagMaxPriority) or more.
//
// The runtime is OpenMP tasks (libgomp): already a dependency of the
// project, with depend and priority clauses, no extra package.
#pragma once

#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/schedules/pdgesv.hpp"

namespace hplx::lu {

// The priority the dag schedule wants; libgomp clamps to omp_get_max_task_priority().
constexpr int kDagMaxPriority = 4;

// About how many columns one non-urgent update task covers (a whole number
// of blocks, at least one).
constexpr long kDagGroupColumns = 512;

// The factorization of pdgesv() with the dag schedule (pdgesv() then runs
// the back substitution). Collective over the grid. Needs
// MPI_THREAD_SERIALIZED or more when the team has more than one thread
// (throws hplx::Error otherwise).
SolveOutcome factor_dag(const Context& ctx, LocalMatrix& a, const TestCase& t,
                        const ProcessGrid& grid);

}  // namespace hplx::lu
