// The dag schedule (--schedule dag, seed 004): the simple right-looking LU,
// without hand-written look-ahead, run as a data-driven task graph.
//
// Tasks, per panel k (all created up front, in panel order):
//   PANEL(k)   FACT on the panel's process column, then LBCAST (every
//              process of the row): the panel and its pivots are here.
//   RS(k)      P > 1 only: the row swap of all local trailing columns
//              (collective over the process column), gathering U.
//   UPDATE(k,J) for each local column block J right of the panel: with
//              P = 1 the block's row interchanges in place, then DTRSM +
//              DGEMM of the block with panel k.
// A column block is NB global columns (the last one holds b); every local
// block is its own chain of tasks, so a rank holds many "virtual
// processors" (seed 004's processor virtualization). Data dependencies
// (OpenMP `depend`) tie UPDATE(k,J) to UPDATE(k-1,J) and to panel k, and
// FACT(k) to UPDATE(k-1,k). Nothing else orders the tasks: how far the
// factorization runs ahead of the update is decided at run time.
//
// Every task that calls MPI (PANEL, RS) also depends on one token, so they
// run one at a time, in creation order, which is the same algorithm order
// on every process: collectives on a communicator start in the same order
// everywhere, as MPI requires, and the blocking calls cannot deadlock (the
// chain is the depth-0 program's order of communications). They may run on
// any thread of the team, one at a time: MPI_THREAD_SERIALIZED.
//
// Priorities (seed 004): the communication chain highest (3); the update of
// the block that factors the next panel next (2), then that of the block
// after it (1); the rest 0: a block that has just factored and sent its
// panel falls back to the lowest priority. `dag_priorities = false` gives
// every task 0 (the ablation). libgomp honours priorities only up to
// OMP_MAX_TASK_PRIORITY, read at program start: set it to 3 or more.
//
// The runtime is OpenMP tasks (libgomp): already a dependency of the
// project, with depend and priority clauses, no extra package.
#pragma once

#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/pdgesv.hpp"

namespace hplx::lu {

// The priority the dag schedule wants; libgomp clamps to omp_get_max_task_priority().
constexpr int kDagMaxPriority = 4;

// The LU of pdgesv() with the dag schedule. Collective over the grid. Needs
// MPI_THREAD_SERIALIZED or more when the team has more than one thread
// (throws hplx::Error otherwise).
SolveOutcome pdgesv_dag(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
                        const SolveHooks& hooks);

}  // namespace hplx::lu
