// The HPG-MxP linear system (as the reference generates it): the 27-point
// stencil on the global grid, 26 on the diagonal and -1 for every neighbour
// inside the domain; with `nonsymmetric`, the reference's nonsymmetric
// variant, whose neighbours straight below and above in z are -1.5 and -0.5.
// The right-hand side is the row sum, so the exact solution is all ones;
// the initial guess is zero. The multigrid levels re-discretize the same
// stencil on grids halved in every direction (kMgLevels in all).
// Generation, coloring and the halo plan run on the host; the matrices,
// the level maps and b are then copied into the Device's buffers.
#pragma once

#include <mpi.h>

#include <vector>

#include "device/device.hpp"
#include "mxp/coloring.hpp"
#include "mxp/ell_matrix.hpp"
#include "mxp/geometry.hpp"
#include "mxp/halo.hpp"

namespace hplx::mxp {

struct ProblemOptions {
  bool nonsymmetric = false;
  Smoother smoother = Smoother::Multicolor;
  ColorSequence colors = kParityFirstSequence;  // multicolor: sweep order of the parity classes
};

// The value of the stencil entry at offset (sx, sy, sz), each in {-1, 0, 1}.
double stencil_value(int sx, int sy, int sz, bool nonsymmetric);

struct Level {
  Geometry geom;
  ColorOrdering order;
  HaloPlan halo;
  EllMatrix<double> a;
  // Every level but the coarsest: where the next coarser level's points
  // (coordinates 2i) sit among this level's rows, both ways.
  device::Buffer<int> coarse_to_fine;  // coarse row -> fine row (always in order.coarse_block)
  device::Buffer<int> fine_to_coarse;  // fine row -> coarse row (-1 if not a coarse point)
};

struct Problem {
  ProblemOptions options;
  std::vector<Level> levels;          // [0] is the fine grid
  device::Buffer<double> b, x_exact;  // owned rows, color ordering
  long long nnz_mg = 0;               // global nonzeros summed over the levels

  long rows() const { return levels.front().a.rows(); }
  long long global_rows() const { return levels.front().geom.global_rows(); }
  long long global_nnz() const { return levels.front().a.global_nnz; }
};

// Collective over `comm` (sums the nonzero counts). The geometry's local
// dimensions must have passed check_local_dims. The buffers come from
// `dev` (filled on its compute queue).
Problem generate_problem(device::Device& dev, const Geometry& fine, const ProblemOptions& options,
                         MPI_Comm comm);

}  // namespace hplx::mxp
