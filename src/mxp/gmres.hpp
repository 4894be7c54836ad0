// One restart cycle of right-preconditioned GMRES (seed 002 Algorithm 3,
// lines 15-46) in precision T: for k = 1..m,
//   z = M^-1 q_k (multigrid), q_{k+1} = A z,
//   CGS2: h = Q^T q_{k+1}, q_{k+1} -= Q h, twice (one all-reduce each),
//         H[:,k] = h1 + h2 (cgs2.hpp: the queue's GEMVs, or optionally
//         three reads of Q for the two passes),
//   beta = ||q_{k+1}||, q_{k+1} /= beta, H[k+1,k] = beta,
// then Givens rotations on the host (double) turn H into R and update the
// residual estimate |t_{k+1}|; the cycle stops early when the estimate
// reaches the tolerance. combine() returns Q y with R y = t.
// The basis and the vectors are device buffers; the projections are made
// on the queue and copied to the host for the all-reduce.
#pragma once

#include <mpi.h>

#include <vector>

#include "mxp/cgs2.hpp"
#include "mxp/motif_stats.hpp"
#include "mxp/multigrid.hpp"

namespace hplx::mxp {

struct GmresOptions {
  int restart = 30;
  long max_iters = 300;
  double tolerance = 0.0;  // relative to the initial residual norm; 0 runs max_iters
};

struct GmresResult {
  long iterations = 0;
  long restarts = 0;
  double normr0 = 0, normr = 0;  // true residual norms, first and last
  bool converged = false;
};

template <class T>
class ArnoldiCycle {
 public:
  ArnoldiCycle(device::Device& dev, long rows, int restart, long long global_rows, MPI_Comm comm);

  int restart() const { return m_; }
  // Column j of the basis (rows entries); set column 0 to r / ||r|| first.
  T* basis(int j) { return q_.data() + static_cast<long>(j) * n_; }  // device memory

  // Runs at most max_steps (<= restart) steps from q_1 with residual norm
  // rho; stops once the estimate drops to tol_abs. Returns the steps taken.
  int run(Multigrid<T>& mg, double rho, double tol_abs, int max_steps, MotifStats* stats);
  // The estimated residual norm after the last step.
  double estimate() const { return estimate_; }
  // out = Q[:, 0:k] y (device memory), where R y = t from the last run (k
  // = its steps).
  void combine(T* out, MotifStats* stats);

  // CGS2 with three reads of Q (Cgs2::orthogonalize, sums in a fixed
  // order) or with the queue's GEMVs (four reads, the default: on this
  // CPU, where the basis of the test sizes sits in cache, OpenBLAS's GEMVs
  // were faster than the three-read kernel (docs/MXP.md); on a GPU neither
  // is measured yet).
  void set_fused_cgs2(bool on) { fused_cgs2_ = on; }

 private:
  device::Device* dev_;
  long n_;
  int m_;
  double big_n_;
  MPI_Comm comm_;
  device::Buffer<T> q_;                       // n x (m+1), column-major
  device::Buffer<T> z_;                       // preconditioned vector, with halo room
  device::Buffer<T> h_t_;                     // projections in T for the BLAS calls
  std::vector<T> h_host_;                     // h_t_ on the host
  std::vector<double> h_, hh_, cs_, sn_, t_;  // hh_: (m+1) x m column-major
  int steps_ = 0;
  double estimate_ = 0;
  Cgs2<T> cgs2_;
  bool fused_cgs2_ = false;
};

extern template class ArnoldiCycle<float>;
extern template class ArnoldiCycle<double>;

}  // namespace hplx::mxp
