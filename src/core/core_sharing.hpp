// CPU core time-sharing between the ranks of a node (seed 000, III.B).
//
// With a node-local p x q part of the process grid on C cores, each rank is
// bound to a root core of its own, and the C - pq cores left form a pool cut
// into p parts of (C - pq) / p cores, one per process row. A rank runs on its
// root core plus its row's part of the pool: T = 1 + (C - pq) / p threads.
// Only one process column factors a panel at a time, so the q ranks of a row
// take turns on the same pool cores, and every FACT runs on p + (C - pq)
// cores of the node instead of p.
//
// On a CPU-only run the trailing update also runs on those cores. While it
// does, the q ranks of a row share their part of the pool fairly: each runs
// 1 + (C - pq) / (p q) update threads, so the node is not oversubscribed;
// FACT, when it runs on its own, takes the whole team of T.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace hplx {

struct CoreShare {
  int local_p = 1, local_q = 1;  // the node-local grid
  int local_row = 0, local_col = 0;
  int root_cpu = -1;
  std::vector<int> pool;  // this rank's row's part of the pool
  std::vector<int> cpus;  // root + pool, what the rank is bound to
  int fact_threads = 1;   // T = 1 + pool size
  int update_threads = 1;
};

// The formula, for a node whose ranks may use `node_cpus` (ascending) and
// hold a local_p x local_q part of the grid. Throws UsageError when the node
// has fewer cores than ranks (every rank needs a root core).
CoreShare share_cores(const std::vector<int>& node_cpus, int local_p, int local_q, int local_row,
                      int local_col);

// Collective over `grid_comm` (the ranks of a process grid): finds the ranks
// on this node, their distinct process rows and columns (the local grid,
// ordered by global index) and this rank's place in it, then applies the
// formula to the node's usable CPUs.
CoreShare plan_core_sharing(MPI_Comm grid_comm, int myrow, int mycol);

// Binds this process to share.cpus and sets the OpenMP and OpenBLAS threads
// to share.update_threads. restore_binding() puts back what was there.
void apply_core_sharing(const CoreShare& share);
void restore_binding();

// "node grid 1 x 2 on 2 cpus: root cpu 1, pool none -> FACT 1 thread, update 1 thread"
std::string describe(const CoreShare& share, int node_cpus);

}  // namespace hplx
