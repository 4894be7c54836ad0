#include "hplmxp/gmres_ir.hpp"

#include <algorithm>
#include <cmath>


namespace hplx::hplmxp {
namespace {

double dot(long n, const double* x, const double* y) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

double norm_inf(long n, const double* x) {
  double m = 0;
  for (long i = 0; i < n; ++i) m = std::isnan(x[i]) ? INFINITY : std::max(m, std::fabs(x[i]));
  return m;
}

}  // namespace

GmresIrResult gmres_ir(long n, const Product& multiply, double norm_a,
                       const std::vector<double>& b, const Preconditioner& precondition,
                       const GmresIrOptions& opt, std::vector<double>& x,
                       const CheckCallback& on_check) {
  const double eps = std::ldexp(1.0, -53);
  const int m = std::max(1, static_cast<int>(std::min<long>(opt.restart, n)));
  GmresIrResult res;
  res.norm_a = norm_a;
  res.norm_b = norm_inf(n, b.data());
  std::vector<double> r(n), w(n), z(n);
  std::vector<std::vector<double>> v(m + 1, std::vector<double>(n));
  std::vector<double> h((m + 1) * m), cs(m), sn(m), g(m + 1), yv(m);
  auto hh = [&](int i, int j) -> double& { return h[i + j * (m + 1)]; };

  for (;;) {
    multiply(x.data(), r.data());
    for (long i = 0; i < n; ++i) r[i] = b[i] - r[i];
    res.residual_inf = norm_inf(n, r.data());
    res.norm_x = norm_inf(n, x.data());
    const double scale = res.norm_a * res.norm_x + res.norm_b;
    res.check = res.residual_inf / scale / (static_cast<double>(n) * eps);
    res.check_history.push_back(res.check);
    if (on_check) on_check(res.cycles, res.check);
    if (res.check < opt.threshold) {  // false for NaN
      res.converged = true;
      break;
    }
    if (!std::isfinite(res.check) || res.iterations >= opt.max_iterations) break;

    // One cycle of right-preconditioned GMRES on A d = r, x += M^-1 V y.
    ++res.cycles;
    const double beta = std::sqrt(dot(n, r.data(), r.data()));
    // ||r||_oo <= ||r||_2: an estimate this small passes the check.
    const double target = 0.1 * opt.threshold * static_cast<double>(n) * eps * scale;
    for (long i = 0; i < n; ++i) v[0][i] = r[i] / beta;
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int k = 0;
    for (int j = 0; j < m && res.iterations < opt.max_iterations; ++j) {
      precondition(v[j].data(), z.data());
      multiply(z.data(), w.data());
      ++res.iterations;
      for (int i = 0; i <= j; ++i) {  // modified Gram-Schmidt
        hh(i, j) = dot(n, w.data(), v[i].data());
        for (long t = 0; t < n; ++t) w[t] -= hh(i, j) * v[i][t];
      }
      hh(j + 1, j) = std::sqrt(dot(n, w.data(), w.data()));
      for (int i = 0; i < j; ++i) {  // earlier rotations on the new column
        const double t = cs[i] * hh(i, j) + sn[i] * hh(i + 1, j);
        hh(i + 1, j) = -sn[i] * hh(i, j) + cs[i] * hh(i + 1, j);
        hh(i, j) = t;
      }
      const double rho = std::hypot(hh(j, j), hh(j + 1, j));
      const double breakdown = hh(j + 1, j);
      cs[j] = rho == 0 ? 1.0 : hh(j, j) / rho;
      sn[j] = rho == 0 ? 0.0 : hh(j + 1, j) / rho;
      hh(j, j) = rho;
      hh(j + 1, j) = 0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      k = j + 1;
      res.estimate_history.push_back(std::fabs(g[j + 1]) / scale / (static_cast<double>(n) * eps));
      if (!(std::fabs(g[j + 1]) > target) || breakdown == 0 || !std::isfinite(rho)) break;
      for (long t = 0; t < n; ++t) v[j + 1][t] = w[t] / breakdown;
    }
    for (int i = k - 1; i >= 0; --i) {  // H y = g, upper triangular
      double s = g[i];
      for (int t = i + 1; t < k; ++t) s -= hh(i, t) * yv[t];
      yv[i] = hh(i, i) == 0 ? 0.0 : s / hh(i, i);
    }
    std::fill(w.begin(), w.end(), 0.0);
    for (int i = 0; i < k; ++i)
      for (long t = 0; t < n; ++t) w[t] += yv[i] * v[i][t];
    precondition(w.data(), z.data());
    for (long t = 0; t < n; ++t) x[t] += z[t];
  }
  return res;
}

}  // namespace hplx::hplmxp
