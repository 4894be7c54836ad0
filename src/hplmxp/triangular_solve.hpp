// The distributed FP32 solves with the factors of lu_nopiv: x = U^-1 L^-1 b.
// Block row by block row: the diagonal block's process row sums its
// processes' contributions of the solved part (SGEMV, MPI_Reduce to the
// diagonal block's owner), the owner solves with the diagonal block (STRSM)
// and the block of the solution goes to every process (it is replicated:
// the refinement keeps its vectors, n entries, on every process).
// Two small collectives per block: latency-bound, N/NB steps.
#pragma once

#include "core/grid.hpp"
#include "device/queue.hpp"
#include "hplmxp/distributed_matrix.hpp"

namespace hplx::hplmxp {

// x (n entries, every process) = U^-1 L^-1 b with the factors in `lu`, in
// the queue's memory (b and x are host memory).
// b and x may be the same array. Collective over the grid.
void solve_lu(const Layout& l, const ProcessGrid& grid, device::Queue& queue, const float* lu,
              const float* b, float* x);

// x = U^-1 L^-1 x with x (n entries, every process) in the queue's memory:
// on one process two STRSMs on the queue, queued, nothing to the host; on
// several, solve_lu through a host copy of x.
void solve_lu_on_queue(const Layout& l, const ProcessGrid& grid, device::Queue& queue,
                       const float* lu, float* x);

}  // namespace hplx::hplmxp
