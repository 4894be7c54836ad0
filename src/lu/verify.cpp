#include "lu/verify.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "device/host_blas.hpp"
#include "lu/matgen.hpp"

namespace hplx::lu {
namespace host_blas = device::host_blas;
namespace {

double all_max(double v, MPI_Comm comm) {
  double r = v;
  HPLX_MPI_CHECK(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, comm));
  return r;
}

}  // namespace

ResidualReport check_solution(LocalMatrix& a, const std::vector<double>& x, const ProcessGrid& grid,
                              double threshold) {
  const long n = a.n(), mp = a.mp();
  const int nb = a.nb();
  generate_local(n, nb, grid.nprow(), grid.npcol(), grid.myrow(), grid.mycol(), a.data(), a.lda());
  const long nqa = static_cast<long>(x.size());
  const bool has_b = grid.mycol() == owner_of(n, nb, grid.npcol());
  const long lb = global_to_local(n, nb, grid.npcol());
  int non_finite = 0;

  ResidualReport r;
  r.threshold = threshold;
  // ||A||_oo: row sums along the process row, then the max over rows.
  std::vector<double> rows(mp, 0.0), ax(mp, 0.0);
  for (long j = 0; j < nqa; ++j)
    for (long i = 0; i < mp; ++i) rows[i] += std::fabs(*a.at(i, j));
  if (mp > 0) {
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, rows.data(), static_cast<int>(mp), MPI_DOUBLE,
                                 MPI_SUM, grid.row()));
  }
  double local = 0;
  for (double v : rows) local = std::max(local, v);
  r.a_norm_inf = all_max(local, grid.all());
  // ||A||_1: column sums down the process column.
  std::vector<double> cols(nqa, 0.0);
  for (long j = 0; j < nqa; ++j)
    for (long i = 0; i < mp; ++i) cols[j] += std::fabs(*a.at(i, j));
  if (nqa > 0) {
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, cols.data(), static_cast<int>(nqa), MPI_DOUBLE,
                                 MPI_SUM, grid.col()));
  }
  local = 0;
  for (double v : cols) local = std::max(local, v);
  r.a_norm_1 = all_max(local, grid.all());
  // ||x||: x is replicated down each process column.
  double xmax = 0, xsum = 0;
  for (double v : x) {
    if (!std::isfinite(v)) non_finite = 1;
    xmax = std::max(xmax, std::fabs(v));
    xsum += std::fabs(v);
  }
  r.x_norm_inf = all_max(xmax, grid.all());
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &xsum, 1, MPI_DOUBLE, MPI_SUM, grid.row()));
  r.x_norm_1 = xsum;
  // ||b||_oo and ||b - A x||_oo.
  double bmax = 0;
  if (has_b)
    for (long i = 0; i < mp; ++i) bmax = std::max(bmax, std::fabs(*a.at(i, lb)));
  r.b_norm_inf = all_max(bmax, grid.all());
  host_blas::gemv(host_blas::Trans::No, mp, nqa, 1.0, a.data(), a.lda(), x.data(), 1, 0.0,
                  ax.data(), 1);
  if (mp > 0) {
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, ax.data(), static_cast<int>(mp), MPI_DOUBLE, MPI_SUM,
                                 grid.row()));
  }
  double rmax = 0;
  if (has_b) {
    for (long i = 0; i < mp; ++i) {
      const double d = *a.at(i, lb) - ax[i];
      if (!std::isfinite(d)) non_finite = 1;
      rmax = std::max(rmax, std::fabs(d));
    }
  }
  r.residual = all_max(rmax, grid.all());
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &non_finite, 1, MPI_INT, MPI_MAX, grid.all()));
  if (n <= 0) {
    r.scaled_residual = 0.0;
  } else if (non_finite) {
    r.scaled_residual = std::numeric_limits<double>::quiet_NaN();
  } else {
    r.scaled_residual = r.residual / (kEpsilon * (r.a_norm_inf * r.x_norm_inf + r.b_norm_inf) *
                                      static_cast<double>(n));
  }
  return r;
}

}  // namespace hplx::lu
