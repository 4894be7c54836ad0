#include "mxp/gmres_ir.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {

template <class T>
GmresIr<T>::GmresIr(device::Device& dev, const Problem& problem, int restart, MPI_Comm comm)
    : dev_(&dev),
      problem_(&problem),
      comm_(comm),
      halo_(dev, &problem.levels[0].halo, problem.rows(), comm),
      mg_(dev, problem, comm),
      arnoldi_(dev, problem.rows(), restart, problem.global_rows(), comm),
      x_col_(dev.alloc<double>(problem.levels[0].a.columns())),
      ax_(dev.alloc<double>(problem.rows())),
      r_(dev.alloc<double>(problem.rows())),
      correction_(dev.alloc<T>(problem.rows())),
      z_(dev.alloc<T>(problem.levels[0].a.columns())) {
  device::Queue& q = dev.compute();
  fill(q, x_col_.size(), 0.0, x_col_.data());
  fill(q, z_.size(), T(0), z_.data());
}

template <class T>
GmresResult GmresIr<T>::solve(const double* b, double* x, const GmresOptions& options,
                              MotifStats* stats) {
  if (options.restart != arnoldi_.restart())
    throw Error("GmresIr::solve: restart differs from the constructor's");
  const double start = wall_time();
  const long n = problem_->rows();
  const double big_n = static_cast<double>(problem_->global_rows());
  const Level& fine = problem_->levels[0];
  device::Queue& q = dev_->compute();
  GmresResult res;
  double rho0 = 0;
  for (;;) {
    // True residual in double.
    device::copy(q, x_col_.data(), x, n);
    spmv(q, fine.a, fine.order, halo_, x_col_.data(), ax_.data(), stats);
    MotifClock residual(q, stats);
    waxpby(q, n, 1.0, b, -1.0, ax_.data(), r_.data());
    const double rho = global_norm(q, n, r_.data(), comm_);
    if (stats) {
      residual.end(&MotifStats::vector, "VecUpdate (residual, norm)");
      stats->flops_vector += 4.0 * big_n;
      stats->bytes_vector += 5.0 * n * sizeof(double);
    }
    if (res.restarts == 0) rho0 = res.normr0 = rho;
    res.normr = rho;
    if (!std::isfinite(rho)) break;
    if (rho <= options.tolerance * rho0 || rho == 0) {
      res.converged = true;
      break;
    }
    if (res.iterations >= options.max_iters) break;

    MotifClock scaling(q, stats);
    scale_copy(q, n, 1.0 / rho, r_.data(), arnoldi_.basis(0));
    if (stats) {
      scaling.end(&MotifStats::vector, "VecUpdate (scale)");
      stats->flops_vector += big_n;
      stats->bytes_vector += n * (sizeof(double) + sizeof(T));
    }
    const int steps = arnoldi_.run(
        mg_, rho, options.tolerance * rho0,
        static_cast<int>(std::min<long>(options.restart, options.max_iters - res.iterations)),
        stats);
    res.iterations += steps;
    res.restarts += 1;

    arnoldi_.combine(correction_.data(), stats);
    mg_.apply(correction_.data(), z_.data(), stats);
    MotifClock update(q, stats);
    waxpby(q, n, 1.0, x, 1.0, z_.data(), x);  // the update in double
    if (stats) {
      update.end(&MotifStats::vector, "VecUpdate (x += z)");
      stats->flops_vector += 2.0 * big_n;
      stats->bytes_vector += n * (2.0 * sizeof(double) + sizeof(T));
    }
  }
  if (stats) {
    const double t1 = motif_end(q);
    stats->span(std::is_same_v<T, float> ? "GMRES-IR solve (float)" : "GMRES solve (double)", start,
                t1);
    stats->total += t1 - start;
    stats->settle();  // the queue is done: the motifs' events have their times
  }
  return res;
}

template class GmresIr<float>;
template class GmresIr<double>;

}  // namespace hplx::mxp
