// Multicoloring of the 27-point stencil for a parallel Gauss-Seidel.
//
// A point's color is the parity of its local coordinates,
// (ix & 1) | (iy & 1) << 1 | (iz & 1) << 2: two points that are stencil
// neighbours differ by at most 1 in every coordinate and are distinct, so
// they differ in the parity of at least one coordinate, and 8 colors
// suffice. Every rank colors its box alone, without communication (the
// local dimensions are even, so local and global parity agree anyway).
//
// The local rows are renumbered so that every color is one contiguous block
// (seed 002 section 3.2.1: a symmetric reordering); inside a block the rows
// that touch no halo value come first (lexicographic), then those that do,
// so the interior part of a sweep can run while the halo is in flight.
// Since the coarse grid points of multigrid (all coordinates even) are
// exactly color 0, injection and prolongation touch only the first block.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "mxp/flag_values.hpp"
#include "mxp/geometry.hpp"

namespace hplx::mxp {

inline constexpr int kColors = 8;

inline int point_color(int ix, int iy, int iz) {
  return (ix & 1) | ((iy & 1) << 1) | ((iz & 1) << 2);
}

// The parity class of every block of rows, in sweep order (a permutation
// of 0..7). Which class goes first matters for multigrid: see MXP.md.
using ColorSequence = std::array<int, kColors>;
inline constexpr ColorSequence kParityFirstSequence = {0, 1, 2, 3, 4, 5, 6, 7};

struct ColorOrdering {
  std::vector<int> to_natural;                  // permuted row -> natural row iz*nx*ny + iy*nx + ix
  std::vector<int> to_permuted;                 // natural row -> permuted row
  std::array<long, kColors + 1> color_begin{};  // color c owns [color_begin[c], color_begin[c+1])
  std::array<long, kColors> boundary_begin{};   // rows of color c from here on read the halo
  ColorSequence sequence = kParityFirstSequence;  // parity class of block c
  int coarse_block = 0;                           // the block of parity class 0 (even points)
  // The reference's smoother instead (make_natural_ordering): one block in
  // natural (lexicographic) order that Gauss-Seidel sweeps row after row.
  bool sequential = false;

  long coarse_begin() const { return color_begin[coarse_block]; }
  long coarse_end() const { return color_begin[coarse_block + 1]; }

  long rows() const { return static_cast<long>(to_natural.size()); }
};

// True if the point reads a halo value (it lies on a face of the box that
// has a neighbouring rank).
bool touches_halo(const Geometry& g, int ix, int iy, int iz);

ColorOrdering make_color_ordering(const Geometry& g,
                                  const ColorSequence& sequence = kParityFirstSequence);

// The identity ordering for the reference's lexicographic Gauss-Seidel:
// all rows in block 0, every row counted as reading the halo (a sequential
// sweep cannot overlap the exchange), blocks 1..7 empty.
ColorOrdering make_natural_ordering(const Geometry& g);

}  // namespace hplx::mxp
