// HPL-MxP (`hplx hpl-mxp`): the TOP500's mixed-precision LU benchmark on the
// LU's 2D block-cyclic layout (src/lu/block_cyclic.hpp).
//
// The pieces, in the order a run uses them:
//   distributed_matrix  the layout of one process's part of A, and the
//                       generator (mcg.hpp): A in FP64, kept for the
//                       refinement's matrix-vector products, and b
//   lu_nopiv            the FP32 LU without pivoting over the P x Q grid
//   triangular_solve    the distributed FP32 solves with L and U
//   gmres_ir            restarted GMRES in FP64, preconditioned by the FP32
//                       factors, until the HPL-MxP check passes
//   hpl_mxp             the run: sizes and memory, timings, the verdict
#pragma once

#include <vector>

#include "core/grid.hpp"

namespace hplx::hplmxp {

// One process's share of the n x n matrix in NB x NB blocks dealt
// cyclically over the grid; its local columns are stored column-major with
// leading dimension lda.
struct Layout {
  long n = 0;
  int nb = 1;
  int nprow = 1, npcol = 1, myrow = 0, mycol = 0;
  long mloc = 0, nloc = 0, lda = 1;

  static Layout of(long n, int nb, const ProcessGrid& grid);
  long local_elements() const { return lda * nloc; }
  long global_row(long il) const;
  long global_col(long jl) const;
};

// Fills this process's part of A (FP64, lda = layout.lda) with the
// reference's matrix: MCG entries, and on the diagonal the sum of the
// magnitudes of the row's other entries (a row sum over the process row).
// Collective over the grid's row communicator.
void generate_matrix(const Layout& layout, const ProcessGrid& grid, double* a);

// Multiplies the diagonal by `factor`: for tests of matrices that are not
// diagonally dominant (the refinement must then report that it failed).
void scale_diagonal(const Layout& layout, double* a, double factor);

// The reference's right-hand side, all n entries (every process keeps it).
std::vector<double> generate_rhs(long n);

// ||A||_oo of the distributed matrix. Collective over the grid.
double norm_inf(const Layout& layout, const ProcessGrid& grid, const double* a);

}  // namespace hplx::hplmxp
