#include "hplmxp/gmres_ir.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "device/buffer.hpp"
#include "device/launch.hpp"
#include "device/mirror.hpp"
#include "hplmxp/kernels/vector_kernels.hpp"

namespace hplx::hplmxp {
namespace {

// The refinement's vectors (the workspace's) and their operations on the
// queue.
class Vectors {
 public:
  Vectors(device::Queue& q, GmresIrWorkspace& ws)
      : q_(q), n_(ws.n), ld_(std::max(1L, ws.n)), store_(ws.store), maxima_(ws.maxima) {}
  // Vector k of the store: 0 .. m for the Krylov basis, then r, w, z.
  double* at(int k) { return store_.data() + static_cast<long>(k) * ld_; }

  double dot(const double* a, const double* b) {
    return device::reduce_sum(q_, n_, kernels::DotTerms{a, b});
  }
  void axpby(double alpha, const double* x, double beta, double* y) {
    device::launch(q_, n_, kernels::Axpby{alpha, x, beta, y});
  }
  void divided(const double* x, double d, double* y) {
    device::launch(q_, n_, kernels::Divided{x, d, y});
  }
  void fill(double value, double* y) { device::launch(q_, n_, kernels::Filled{value, y}); }
  // max |v(i)|, NaN counted as infinity (a NaN must not pass the check):
  // each chunk's largest on the queue, the largest of those on the host.
  double norm_inf(const double* v) {
    const long chunks = (n_ + kernels::ChunkMaxima::kChunk - 1) / kernels::ChunkMaxima::kChunk;
    device::launch(q_, chunks, kernels::ChunkMaxima{v, n_, maxima_.device()}, 16);
    maxima_.to_host(q_, 0, chunks);
    q_.synchronize();
    double m = 0;
    for (long c = 0; c < chunks; ++c) m = std::max(m, maxima_[c]);
    return m;
  }

 private:
  device::Queue& q_;
  long n_, ld_;
  device::Buffer<double>& store_;
  device::Mirror<double>& maxima_;  // norm_inf's chunks' maxima
};

// The basis vectors per cycle: restart, at most n.
int gmres_ir_vectors(long n, int restart) {
  return std::max(1, static_cast<int>(std::min<long>(restart, n)));
}

}  // namespace

GmresIrWorkspace::GmresIrWorkspace(device::Backend& backend, long n_, int restart)
    : n(n_),
      m(gmres_ir_vectors(n_, restart)),
      store(backend, std::max(1L, n_) * (m + 4)),
      maxima(backend) {
  maxima.resize(std::max(1L, n_) / kernels::ChunkMaxima::kChunk + 1);
}

GmresIrResult gmres_ir(device::Queue& q, long n, const Product& multiply, double norm_a,
                       const double* b, const Preconditioner& precondition,
                       const GmresIrOptions& opt, double* x, const CheckCallback& on_check) {
  const double eps = std::ldexp(1.0, -53);
  std::unique_ptr<GmresIrWorkspace> own;
  GmresIrWorkspace* ws = opt.workspace;
  if (ws == nullptr) {
    own = std::make_unique<GmresIrWorkspace>(q.backend(), n, opt.restart);
    ws = own.get();
  } else if (ws->n != n || ws->m != gmres_ir_vectors(n, opt.restart)) {
    throw Error("gmres_ir: the workspace was made for another order or restart");
  }
  const int m = ws->m;
  Vectors vec(q, *ws);
  double* r = vec.at(m + 1);
  double* w = vec.at(m + 2);
  double* z = vec.at(m + 3);
  GmresIrResult res;
  res.norm_a = norm_a;
  res.norm_b = vec.norm_inf(b);
  std::vector<double> h((m + 1) * m), cs(m), sn(m), g(m + 1), yv(m);
  auto hh = [&](int i, int j) -> double& { return h[i + j * (m + 1)]; };

  for (;;) {
    multiply(x, r);
    vec.axpby(1.0, b, -1.0, r);  // r = b - A x
    res.residual_inf = vec.norm_inf(r);
    res.norm_x = vec.norm_inf(x);
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
    const double beta = std::sqrt(vec.dot(r, r));
    // ||r||_oo <= ||r||_2: an estimate this small passes the check.
    const double target = 0.1 * opt.threshold * static_cast<double>(n) * eps * scale;
    vec.divided(r, beta, vec.at(0));
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int k = 0;
    for (int j = 0; j < m && res.iterations < opt.max_iterations; ++j) {
      precondition(vec.at(j), z);
      multiply(z, w);
      ++res.iterations;
      for (int i = 0; i <= j; ++i) {  // modified Gram-Schmidt
        hh(i, j) = vec.dot(w, vec.at(i));
        vec.axpby(-hh(i, j), vec.at(i), 1.0, w);
      }
      hh(j + 1, j) = std::sqrt(vec.dot(w, w));
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
      vec.divided(w, breakdown, vec.at(j + 1));
    }
    for (int i = k - 1; i >= 0; --i) {  // H y = g, upper triangular
      double s = g[i];
      for (int t = i + 1; t < k; ++t) s -= hh(i, t) * yv[t];
      yv[i] = hh(i, i) == 0 ? 0.0 : s / hh(i, i);
    }
    vec.fill(0.0, w);
    for (int i = 0; i < k; ++i) vec.axpby(yv[i], vec.at(i), 1.0, w);
    precondition(w, z);
    vec.axpby(1.0, z, 1.0, x);
  }
  q.synchronize();  // x is the caller's
  return res;
}

}  // namespace hplx::hplmxp
