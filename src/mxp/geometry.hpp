// The 3D domain decomposition of HPG-MxP (as HPCG): P ranks form an
// npx x npy x npz process grid, each owns an nx x ny x nz box of the global
// (npx*nx) x (npy*ny) x (npz*nz) grid. Rank r sits at
// (ipx, ipy, ipz) = (r % npx, (r / npx) % npy, r / (npx*npy)).
#pragma once

#include <mpi.h>

#include <array>

namespace hplx::mxp {

// Number of multigrid levels; each coarsening halves every local dimension,
// so the local dimensions must be multiples of 2^(levels-1) = 8.
inline constexpr int kMgLevels = 4;
inline constexpr int kSizeMultiple = 8;

struct ProcessShape {
  int npx = 1, npy = 1, npz = 1;
};

// HPCG's choice of the process grid for `ranks` ranks: one prime factor p^k
// spreads as evenly as it can (x gets the extra factors first), two distinct
// primes p < q give p x q x 1, p^2 q gives (p, q, p) ordered by first seen,
// three distinct primes one each; anything else takes the factorization with
// the least surface npx*npy + npy*npz + npx*npz. Throws UsageError if ranks < 1.
ProcessShape optimal_process_shape(int ranks);

// Throws UsageError (one line naming the value) unless each of nx, ny, nz is
// a positive multiple of 8. Call before allocating anything.
void check_local_dims(int nx, int ny, int nz);

// Throws UsageError unless npx*npy*npz == ranks (all >= 1).
void check_process_shape(const ProcessShape& shape, int ranks);

struct Geometry {
  int rank = 0, size = 1;
  int npx = 1, npy = 1, npz = 1;
  int ipx = 0, ipy = 0, ipz = 0;
  int nx = 0, ny = 0, nz = 0;         // local box
  long gnx = 0, gny = 0, gnz = 0;     // global grid
  long gix0 = 0, giy0 = 0, giz0 = 0;  // global coordinates of the local (0,0,0)

  long local_rows() const { return static_cast<long>(nx) * ny * nz; }
  long long global_rows() const { return static_cast<long long>(gnx) * gny * gnz; }
  // Rank of the process at grid offset (dx, dy, dz) from this one, or -1
  // past the edge of the (non-periodic) grid.
  int neighbor_rank(int dx, int dy, int dz) const;
  // The geometry of the next coarser multigrid level (every dimension halved).
  Geometry coarsened() const;
};

// `shape` with all zeros means optimal_process_shape(size).
Geometry make_geometry(int rank, int size, int nx, int ny, int nz, ProcessShape shape = {0, 0, 0});

}  // namespace hplx::mxp
