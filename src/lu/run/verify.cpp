#include "lu/run/verify.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "device/device.hpp"
#include "device/launch.hpp"
#include "lu/kernels/norm_kernels.hpp"
#include "lu/matgen.hpp"

namespace hplx::lu {
namespace {

double all_max(double v, MPI_Comm comm) {
  double r = v;
  HPLX_MPI_CHECK(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, comm));
  return r;
}

}  // namespace

ResidualReport check_solution(device::Device& dev, LocalMatrix& a, const std::vector<double>& x,
                              const ProcessGrid& grid, double threshold,
                              const std::function<void()>& progress) {
  const long n = a.n(), mp = a.mp();
  const int nb = a.nb();
  device::Queue& q = dev.compute();
  generate_matrix(q, a, grid, progress);
  const long nqa = static_cast<long>(x.size());
  const bool has_b = grid.mycol() == owner_of(n, nb, grid.npcol());
  const long lb = global_to_local(n, nb, grid.npcol());
  int non_finite = 0;

  ResidualReport r;
  r.threshold = threshold;
  // On the device: row and column sums of |A|, b, and A x.
  std::vector<double> rows(mp, 0.0), cols(nqa, 0.0), ax(mp, 0.0), b(has_b ? mp : 0);
  {
    device::Buffer<double> d_rows = dev.alloc<double>(mp), d_cols = dev.alloc<double>(nqa),
                           d_x = dev.alloc<double>(nqa), d_ax = dev.alloc<double>(mp);
    device::launch(q, mp, kernels::AbsSums{a.data(), 1, a.lda(), nqa, d_rows.data()}, 256);
    device::launch(q, nqa, kernels::AbsSums{a.data(), a.lda(), 1, mp, d_cols.data()}, 16);
    device::copy(q, d_x.data(), x.data(), nqa);
    q.gemv(device::Trans::No, mp, nqa, 1.0, a.data(), a.lda(), d_x.data(), 1, 0.0, d_ax.data(), 1);
    device::copy(q, rows.data(), d_rows.data(), mp);
    device::copy(q, cols.data(), d_cols.data(), nqa);
    device::copy(q, ax.data(), d_ax.data(), mp);
    if (has_b) device::copy(q, b.data(), a.at(0, lb), mp);
    q.synchronize();
    if (progress) progress();
  }
  // ||A||_oo: row sums along the process row, then the max over rows.
  if (mp > 0) {
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, rows.data(), static_cast<int>(mp), MPI_DOUBLE,
                                 MPI_SUM, grid.row()));
  }
  double local = 0;
  for (double v : rows) local = std::max(local, v);
  r.a_norm_inf = all_max(local, grid.all());
  // ||A||_1: column sums down the process column.
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
  for (double v : b) bmax = std::max(bmax, std::fabs(v));
  r.b_norm_inf = all_max(bmax, grid.all());
  if (mp > 0) {
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, ax.data(), static_cast<int>(mp), MPI_DOUBLE, MPI_SUM,
                                 grid.row()));
  }
  double rmax = 0;
  for (long i = 0; i < static_cast<long>(b.size()); ++i) {
    const double d = b[i] - ax[i];
    if (!std::isfinite(d)) non_finite = 1;
    rmax = std::max(rmax, std::fabs(d));
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
