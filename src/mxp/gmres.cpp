#include "mxp/gmres.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {
template <class T>
ArnoldiCycle<T>::ArnoldiCycle(device::Device& dev, long rows, int restart, long long global_rows,
                              MPI_Comm comm)
    : dev_(&dev),
      n_(rows),
      m_(restart),
      big_n_(static_cast<double>(global_rows)),
      comm_(comm),
      q_(dev.alloc<T>(rows * (restart + 1))),
      h_t_(dev.alloc<T>(restart + 1)),
      h_host_(restart + 1),
      h_(restart + 1),
      hh_(static_cast<size_t>(restart + 1) * restart),
      cs_(restart + 1),
      sn_(restart + 1),
      t_(restart + 1),
      cgs2_(dev, rows, restart + 1, comm) {}

template <class T>
int ArnoldiCycle<T>::run(Multigrid<T>& mg, double rho, double tol_abs, int max_steps,
                         MotifStats* stats) {
  device::Queue& q = dev_->compute();
  if (z_.size() < mg.matrix(0).columns()) {
    z_ = dev_->alloc<T>(mg.matrix(0).columns());
    fill(q, z_.size(), T(0), z_.data());
  }
  const long n = n_;
  const int m1 = m_ + 1;
  std::fill(t_.begin(), t_.end(), 0.0);
  t_[0] = rho;
  estimate_ = rho;
  int k = 0;
  while (k < max_steps && k < m_ && estimate_ > tol_abs) {
    mg.apply(basis(k), z_.data(), stats);
    T* w = basis(k + 1);
    spmv(q, mg.matrix(0), mg.ordering(0), mg.halo(0), z_.data(), w, stats);

    MotifClock ortho(q, stats);
    const int j = k + 1;  // basis vectors to orthogonalize against
    double* hcol = hh_.data() + static_cast<long>(k) * m1;
    for (int i = 0; i < j; ++i) hcol[i] = 0;
    if (fused_cgs2_)
      cgs2_.orthogonalize(q_.data(), n, j, w, hcol, stats);
    else
      cgs2_.orthogonalize_gemv(q_.data(), n, j, w, hcol, stats);
    const double beta = global_norm(q, n, w, comm_);
    if (beta > 0) scale(q, n, 1.0 / beta, w);
    hcol[j] = beta;
    if (stats) {
      ortho.end(&MotifStats::ortho, "Ortho (CGS2)");
      stats->flops_ortho += (2.0 * 4.0 * j + 3.0) * big_n_;
      // CGS2, then the norm (w read) and the scaling (w read and written).
      stats->bytes_ortho +=
          (fused_cgs2_ ? Cgs2<T>::bytes(n, j) : 2.0 * (2.0 * j + 3.0) * n * sizeof(T)) +
          3.0 * n * sizeof(T);
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
  device::Queue& q = dev_->compute();
  MotifClock clock(q, stats);
  // Back substitution R y = t (k x k, upper triangular), into h_.
  for (int i = k - 1; i >= 0; --i) {
    double s = t_[i];
    for (int c = i + 1; c < k; ++c) s -= hh_[static_cast<long>(c) * m1 + i] * h_[c];
    h_[i] = s / hh_[static_cast<long>(i) * m1 + i];
  }
  for (int i = 0; i < k; ++i) h_host_[i] = static_cast<T>(h_[i]);
  if (k > 0) {
    device::copy(q, h_t_.data(), h_host_.data(), k);
    q.gemv(device::Trans::No, n_, k, T(1), q_.data(), n_, h_t_.data(), 1, T(0), out, 1);
  } else {
    fill(q, n_, T(0), out);
  }
  if (stats) {
    clock.end(&MotifStats::vector, "VecUpdate (Q y)");
    stats->flops_vector += 2.0 * k * big_n_;
    stats->bytes_vector += (k + 1.0) * n_ * sizeof(T);
  }
}

template class ArnoldiCycle<float>;
template class ArnoldiCycle<double>;

}  // namespace hplx::mxp
