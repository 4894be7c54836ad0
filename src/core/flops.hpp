// The HPL operation counts, in one place: the run's printed Gflops, the
// progress meter, the default problem's size, the models' predictions and
// the per-panel split behind the balance point all use these.
#pragma once

#include <algorithm>

namespace hplx {

// HPL's operation count for an order-n system: 2/3 n^3 + 3/2 n^2 (netlib's).
constexpr double hpl_flops(double n) {
  return 2.0 / 3.0 * n * n * n + 1.5 * n * n;
}

// The LU factorization's own count, 2/3 n^3: HPL-MxP's LU-only rate, which
// its rules ask to be reported beside the score.
constexpr double lu_flops(double n) {
  return 2.0 / 3.0 * n * n * n;
}

// netlib's printed Gflops for order n solved in `seconds`, evaluated in
// HPL_pdtest's order, so the printed digits are netlib's.
constexpr double hpl_gflops(long n, double seconds) {
  const double dn = static_cast<double>(n);
  return ((dn / 1.0e9) * (dn / seconds)) * ((2.0 / 3.0) * dn + 1.5);
}

// The LU flops of the panel at global column j, width jb, of an n x n
// factorization: F(n - j) - F(n - j - jb), F(m) = (2/3 m + 3/2) m^2, so the
// panels add up to hpl_flops(n).
constexpr double panel_flops(long n, long j, long jb) {
  auto f = [](double m) { return ((2.0 / 3.0) * m + 1.5) * m * m; };
  const double m = static_cast<double>(n - j);
  return f(m) - f(std::max(0.0, m - static_cast<double>(jb)));
}

}  // namespace hplx
