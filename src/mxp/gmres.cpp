#include "mxp/gmres.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {
namespace {

// y = alpha op(Q) x + beta y with OpenBLAS, Q n x k column-major.
void gemv(bool trans, long n, int k, double alpha, const float* q, const float* x, double beta,
          float* y) {
  cblas_sgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, n, k, static_cast<float>(alpha), q,
              n, x, 1, static_cast<float>(beta), y, 1);
}
void gemv(bool trans, long n, int k, double alpha, const double* q, const double* x, double beta,
          double* y) {
  cblas_dgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, n, k, alpha, q, n, x, 1, beta, y,
              1);
}

}  // namespace

template <class T>
ArnoldiCycle<T>::ArnoldiCycle(long rows, int restart, long long global_rows, MPI_Comm comm)
    : n_(rows),
      m_(restart),
      big_n_(static_cast<double>(global_rows)),
      comm_(comm),
      q_(static_cast<size_t>(rows) * (restart + 1)),
      h_t_(restart + 1),
      h_(restart + 1),
      hh_(static_cast<size_t>(restart + 1) * restart),
      cs_(restart + 1),
      sn_(restart + 1),
      t_(restart + 1) {}

template <class T>
int ArnoldiCycle<T>::run(Multigrid<T>& mg, double rho, double tol_abs, int max_steps,
                         MotifStats* stats) {
  if (z_.size() < static_cast<size_t>(mg.matrix(0).columns()))
    z_.assign(mg.matrix(0).columns(), T(0));
  const long n = n_;
  const int m1 = m_ + 1;
  std::fill(t_.begin(), t_.end(), 0.0);
  t_[0] = rho;
  estimate_ = rho;
  int k = 0;
  while (k < max_steps && k < m_ && estimate_ > tol_abs) {
    mg.apply(basis(k), z_.data(), stats);
    T* w = basis(k + 1);
    spmv(mg.matrix(0), mg.ordering(0), mg.halo(0), z_.data(), w, stats);

    const double t0 = wall_time();
    const int j = k + 1;  // basis vectors to orthogonalize against
    double* hcol = hh_.data() + static_cast<long>(k) * m1;
    for (int i = 0; i < j; ++i) hcol[i] = 0;
    for (int pass = 0; pass < 2; ++pass) {
      gemv(true, n, j, 1.0, q_.data(), w, 0.0, h_t_.data());
      for (int i = 0; i < j; ++i) h_[i] = h_t_[i];
      const double ta = stats && stats->trace ? wall_time() : 0;
      HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, h_.data(), j, MPI_DOUBLE, MPI_SUM, comm_));
      if (stats) stats->span("Allreduce", ta, wall_time());
      for (int i = 0; i < j; ++i) {
        h_t_[i] = static_cast<T>(h_[i]);
        hcol[i] += h_[i];
      }
      gemv(false, n, j, -1.0, q_.data(), h_t_.data(), 1.0, w);
    }
    const double beta = global_norm(n, w, comm_);
    if (beta > 0) scale(n, 1.0 / beta, w);
    hcol[j] = beta;
    if (stats) {
      const double t1 = wall_time();
      stats->span("Ortho (CGS2)", t0, t1);
      stats->ortho += t1 - t0;
      stats->flops_ortho += (2.0 * 4.0 * j + 3.0) * big_n_;
      stats->bytes_ortho += (2.0 * (2.0 * j + 3.0) + 3.0) * n * sizeof(T);
    }

    // Givens rotations: apply the previous ones to the new column, then
    // annihilate H[k+1,k].
    for (int i = 0; i < k; ++i) {
      const double a = hcol[i], b = hcol[i + 1];
      hcol[i] = cs_[i] * a + sn_[i] * b;
      hcol[i + 1] = -sn_[i] * a + cs_[i] * b;
    }
    const double f = hcol[k], g = hcol[k + 1];
    const double mu = std::hypot(f, g);
    cs_[k] = mu > 0 ? f / mu : 1.0;
    sn_[k] = mu > 0 ? g / mu : 0.0;
    hcol[k] = mu;
    hcol[k + 1] = 0;
    t_[k + 1] = -sn_[k] * t_[k];
    t_[k] = cs_[k] * t_[k];
    estimate_ = std::abs(t_[k + 1]);
    ++k;
    if (beta == 0) break;  // lucky breakdown: the solution is in the space
  }
  steps_ = k;
  return k;
}

template <class T>
void ArnoldiCycle<T>::combine(T* out, MotifStats* stats) {
  const int k = steps_;
  const int m1 = m_ + 1;
  const double t0 = wall_time();
  // Back substitution R y = t (k x k, upper triangular), into h_.
  for (int i = k - 1; i >= 0; --i) {
    double s = t_[i];
    for (int c = i + 1; c < k; ++c) s -= hh_[static_cast<long>(c) * m1 + i] * h_[c];
    h_[i] = s / hh_[static_cast<long>(i) * m1 + i];
  }
  for (int i = 0; i < k; ++i) h_t_[i] = static_cast<T>(h_[i]);
  if (k > 0) {
    gemv(false, n_, k, 1.0, q_.data(), h_t_.data(), 0.0, out);
  } else {
    fill(n_, T(0), out);
  }
  if (stats) {
    const double t1 = wall_time();
    stats->span("VecUpdate (Q y)", t0, t1);
    stats->vector += t1 - t0;
    stats->flops_vector += 2.0 * k * big_n_;
    stats->bytes_vector += (k + 1.0) * n_ * sizeof(T);
  }
}

template class ArnoldiCycle<float>;
template class ArnoldiCycle<double>;

}  // namespace hplx::mxp
