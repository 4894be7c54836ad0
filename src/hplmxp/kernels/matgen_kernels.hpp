// HPL-MxP's matrix made on a queue (generated_matrix.hpp): in FP32 for the
// factorization, in FP64 inside the refinement's products, the values of
// generate_matrix (distributed_matrix.cpp) made with the same jumps of the
// MCG (mcg.hpp), so the same numbers bit for bit.
#pragma once

#include <cstdint>

#include "device/kernel_body.hpp"
#include "hplmxp/mcg.hpp"
#include "lu/block_cyclic.hpp"

namespace hplx::hplmxp::kernels {

// Where one process's local matrix lies in the global one.
struct LocalBlocks {
  long n;
  int nb, nprow, npcol, myrow, mycol;
  long mloc, nloc;
  HPLX_HD long row(long il) const { return lu::local_to_global(il, nb, myrow, nprow); }
  HPLX_HD long col(long jl) const { return lu::local_to_global(jl, nb, mycol, npcol); }
};

// Every entry of my local columns (the diagonal's too, set again by
// SetDiagonal), in runs of up to kRun rows of one row block: one jump of the
// MCG to a run's first draw, then a step per row. Index: local column x
// runs of a column.
struct GenerateFloatRuns {
  LocalBlocks at;
  float* a;
  long lda;
  static constexpr long kRun = 32;
  HPLX_HD long runs_per_block() const { return (at.nb + kRun - 1) / kRun; }
  HPLX_HD long runs_per_column() const { return (at.mloc + at.nb - 1) / at.nb * runs_per_block(); }
  HPLX_HD void operator()(long index) const {
    const long jl = index / runs_per_column(), run = index % runs_per_column();
    const long block = run / runs_per_block();
    const long il0 = block * at.nb + run % runs_per_block() * kRun;
    long il1 = il0 + kRun;
    if (il1 > (block + 1) * at.nb) il1 = (block + 1) * at.nb;
    if (il1 > at.mloc) il1 = at.mloc;
    if (il0 >= il1) return;
    std::uint64_t state = mcg_state_after(matrix_draw(at.n, at.row(il0), at.col(jl)));
    float* col = a + jl * lda;
    for (long il = il0; il < il1; ++il) {
      col[il] = static_cast<float>(mcg_value(state));
      state *= kMcgMultiplier;
    }
  }
};

// A(i, j) in FP64 along one row, column after column: the MCG steps by N
// draws from one column to the next and jumps at each new column block.
struct RowWalk {
  long n, i;
  std::uint64_t column_step;  // mcg_state_after(n)
  std::uint64_t state = 0;
  long previous = -2;
  HPLX_HD double value_at(long j) {
    state = j == previous + 1 ? state * column_step : mcg_state_after(matrix_draw(n, i, j));
    previous = j;
    return mcg_value(state);
  }
  // The sum over my local columns, in column order, of term(jl, whether
  // (i, j) is on the diagonal, A(i, j)).
  template <class Term>
  HPLX_HD double sum(const LocalBlocks& at, const Term& term) {
    double s = 0;
    for (long jl = 0; jl < at.nloc; ++jl) {
      const long j = at.col(jl);
      const double v = value_at(j);
      s += term(jl, i == j, v);
    }
    return s;
  }
};

// |A(i, j)| off the diagonal, 0 on it (adding 0 to the non-negative sum
// changes no bit).
struct OffDiagonalMagnitude {
  HPLX_HD double operator()(long, bool on_diagonal, double v) const {
    return on_diagonal ? 0.0 : v < 0 ? -v : v;
  }
};

// A(i, j) x(jl), the diagonal's A(i, i) given.
struct ProductTerm {
  double diagonal;
  const double* x;
  HPLX_HD double operator()(long jl, bool on_diagonal, double v) const {
    return (on_diagonal ? diagonal : v) * x[jl];
  }
};

// Each local row's sum of the magnitudes of its entries in my local
// columns, the diagonal's left out, in double and in column order (the
// host generator's sums exactly). Index: local row.
struct OffDiagonalSums {
  LocalBlocks at;
  std::uint64_t column_step;  // mcg_state_after(n)
  double* sums;
  HPLX_HD void operator()(long il) const {
    sums[il] = RowWalk{at.n, at.row(il), column_step}.sum(at, OffDiagonalMagnitude{});
  }
};

// y(il) = the sum over my local columns of A(i, j) x(jl) in column order,
// A's FP64 entries made again as the host generator makes them (the
// diagonal's from `diagonal`, one per local row): the refinement's product
// with no copy of A. Index: local row.
struct RegeneratedProducts {
  LocalBlocks at;
  std::uint64_t column_step;  // mcg_state_after(n)
  const double* diagonal;     // A(i, i) for each local row (read where i is my column)
  const double* x;            // x at my local columns
  double* y;
  HPLX_HD void operator()(long il) const {
    y[il] = RowWalk{at.n, at.row(il), column_step}.sum(at, ProductTerm{diagonal[il], x});
  }
};

// diagonal(il) = sums(il) * scale: A(i, i) in FP64.
struct ScaledSums {
  const double* sums;
  double scale;
  double* diagonal;
  HPLX_HD void operator()(long il) const { diagonal[il] = sums[il] * scale; }
};

// A(i, i) in FP32, where row i's and column i's owners meet. Index: local
// row.
struct SetDiagonal {
  LocalBlocks at;
  const double* diagonal;  // A(i, i) in FP64 for each local row
  float* a;
  long lda;
  HPLX_HD void operator()(long il) const {
    const long i = at.row(il);
    if (lu::owner_of(i, at.nb, at.npcol) != at.mycol) return;
    a[il + lu::global_to_local(i, at.nb, at.npcol) * lda] = static_cast<float>(diagonal[il]);
  }
};

}  // namespace hplx::hplmxp::kernels
