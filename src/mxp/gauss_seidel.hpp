// Forward Gauss-Seidel, multicolored, in relaxation form (seed 002 section
// 3.2.1): one pass over the matrix per sweep,
//   x_r <- x_r + (b_r - sum_s A[r,s] x_col(r,s)) / a_rr,
// color after color; the rows of one color never read each other, so they
// update in parallel, and the sweep equals a sequential Gauss-Seidel over
// the color ordering. As in the reference, the halo of x is exchanged once
// per sweep (the neighbours' values from before the sweep): its messages
// travel while the interior rows of color 0 update. Every kernel runs on the
// queue given (the Device's compute queue); one launch per color's rows.
#pragma once

#include "mxp/coloring.hpp"
#include "mxp/ell_matrix.hpp"
#include "mxp/halo.hpp"
#include "mxp/motif_stats.hpp"

namespace hplx::mxp {

// Relaxes rows [begin, end) (which must not read each other) on q.
// `earlier_only`: x is still zero in the rows' own block, the later blocks
// and the halo, so only the slots of earlier blocks are read (EllPattern).
template <class T>
void gs_rows(device::Queue& q, const EllMatrix<T>& a, const T* b, T* x, long begin, long end,
             bool earlier_only = false, KernelPath path = KernelPath::Best);

// The prolongation z += P z_c that a post-smoothing sweep can add itself,
// fused into the kernels of its first colour (multigrid.cpp): x[r] +=
// z_c[f2c[r]] for the rows [0, coarse_end), which must be the first block
// and the coarse points (ColorOrdering: coarse_block 0, not sequential).
template <class T>
using FusedProlongation = PackCorrection<T>;

// gs_rows over rows of the coarse block [begin, end) with the prolongation
// added to each row first (kernels::GsProlongBody): the same bits as
// prolongate() followed by gs_rows().
template <class T>
void gs_rows_prolongated(device::Queue& q, const EllMatrix<T>& a, const T* b, T* x, long begin,
                         long end, const FusedProlongation<T>& p,
                         KernelPath path = KernelPath::Best);

// Relaxes rows begin, begin + 1, ..., end - 1 one after the other (each
// reads the rows before it already updated): the reference's sweep.
template <class T>
void gs_rows_sequential(device::Queue& q, const EllMatrix<T>& a, const T* b, T* x, long begin,
                        long end);

// One forward sweep on q (sequential over the rows if order.sequential).
// `x_is_zero`: x (owned and halo) is known to be zero on entry, so there is
// nothing to exchange; the halo part is zeroed here. `name`: the sweep's
// span in a trace (stats->trace). `prolongation` (may be null; x not zero,
// the coarse points first): added to x by the first colour's kernels, and
// by the halo's packing to the values sent, instead of by a launch of its
// own before the sweep; its time is then the sweep's (MotifStats::gs), its
// bytes (z_c and the indices read) counted in bytes_gs.
template <class T>
void gs_sweep(device::Queue& q, const EllMatrix<T>& a, const ColorOrdering& order,
              HaloExchange<T>& halo, const T* b, T* x, bool x_is_zero, MotifStats* stats,
              const char* name = "GS", KernelPath path = KernelPath::Best,
              const FusedProlongation<T>* prolongation = nullptr);

}  // namespace hplx::mxp
