#include "hplmxp/distributed_matrix.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "hplmxp/mcg.hpp"
#include "lu/block_cyclic.hpp"

namespace hplx::hplmxp {

Layout Layout::of(long n, int nb, const ProcessGrid& grid) {
  Layout l;
  l.n = n;
  l.nb = nb;
  l.nprow = grid.nprow();
  l.npcol = grid.npcol();
  l.myrow = grid.myrow();
  l.mycol = grid.mycol();
  l.mloc = lu::local_count(n, nb, l.myrow, l.nprow);
  l.nloc = lu::local_count(n, nb, l.mycol, l.npcol);
  l.lda = std::max(1L, l.mloc);
  return l;
}

long Layout::global_row(long il) const {
  return lu::local_to_global(il, nb, myrow, nprow);
}
long Layout::global_col(long jl) const {
  return lu::local_to_global(jl, nb, mycol, npcol);
}

void generate_matrix(const Layout& l, const ProcessGrid& grid, double* a) {
  // Off-diagonal magnitudes of each local row over the local columns.
  std::vector<double> offsum(static_cast<std::size_t>(l.mloc), 0.0);
#pragma omp parallel for schedule(static)
  for (long jl = 0; jl < l.nloc; ++jl) {
    const long j = l.global_col(jl);
    double* col = a + jl * l.lda;
    // A block of NB local rows is NB consecutive global rows: consecutive
    // draws, so one jump per block.
    for (long il0 = 0; il0 < l.mloc; il0 += l.nb) {
      const long rows = std::min<long>(l.nb, l.mloc - il0);
      const long i0 = l.global_row(il0);
      std::uint64_t state = mcg_state_after(matrix_draw(l.n, i0, j));
      for (long r = 0; r < rows; ++r) {
        col[il0 + r] = mcg_value(state);
        state *= kMcgMultiplier;
      }
    }
  }
  // Each row's sum in column order (the same bits on any thread count),
  // the rows split over the threads in runs of 256.
  std::vector<long> global_rows(static_cast<std::size_t>(l.mloc));
  for (long il = 0; il < l.mloc; ++il) global_rows[il] = l.global_row(il);
  constexpr long kRun = 256;
#pragma omp parallel for schedule(static)
  for (long il0 = 0; il0 < l.mloc; il0 += kRun) {
    const long il1 = std::min(il0 + kRun, l.mloc);
    for (long jl = 0; jl < l.nloc; ++jl) {
      const long j = l.global_col(jl);
      const double* col = a + jl * l.lda;
      for (long il = il0; il < il1; ++il)
        if (global_rows[il] != j) offsum[il] += std::fabs(col[il]);
    }
  }
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, offsum.data(), static_cast<int>(l.mloc), MPI_DOUBLE,
                               MPI_SUM, grid.row()));
  // The diagonal entry (i, i) lives where row i's and column i's owners meet.
  for (long il = 0; il < l.mloc; ++il) {
    const long i = l.global_row(il);
    if (lu::owner_of(i, l.nb, l.npcol) != l.mycol) continue;
    const long jl = lu::global_to_local(i, l.nb, l.npcol);
    a[il + jl * l.lda] = offsum[il];
  }
}

void scale_diagonal(const Layout& l, double* a, double factor) {
  for (long il = 0; il < l.mloc; ++il) {
    const long i = l.global_row(il);
    if (lu::owner_of(i, l.nb, l.npcol) != l.mycol) continue;
    a[il + lu::global_to_local(i, l.nb, l.npcol) * l.lda] *= factor;
  }
}

std::vector<double> generate_rhs(long n) {
  std::vector<double> b(static_cast<std::size_t>(n));
  std::uint64_t state = mcg_state_after(rhs_draw(n, 0));
  for (long i = 0; i < n; ++i) {
    b[i] = mcg_value(state);
    state *= kMcgMultiplier;
  }
  return b;
}

double norm_inf(const Layout& l, const ProcessGrid& grid, const double* a) {
  std::vector<double> rowsum(static_cast<std::size_t>(l.mloc), 0.0);
  for (long jl = 0; jl < l.nloc; ++jl)
    for (long il = 0; il < l.mloc; ++il) rowsum[il] += std::fabs(a[il + jl * l.lda]);
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, rowsum.data(), static_cast<int>(l.mloc), MPI_DOUBLE,
                               MPI_SUM, grid.row()));
  // A NaN must not vanish in the max (the check would then pass on NaN):
  // it counts as infinity, which MPI's max keeps on every rank alike.
  double local = 0.0;
  for (double s : rowsum) local = std::isnan(s) ? INFINITY : std::max(local, s);
  double global = 0.0;
  HPLX_MPI_CHECK(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, grid.all()));
  return global;
}

}  // namespace hplx::hplmxp
