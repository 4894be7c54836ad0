// Restarted right-preconditioned GMRES with iterative refinement (seed 002
// Algorithm 3): every restart computes the true residual r = b - A x and
// its norm in double; the restart cycle (basis, multigrid, SpMV,
// orthogonalization, ArnoldiCycle) runs in precision T; the correction
// M^-1 Q y comes back in T and is added to x in double.
//
// With T = double this is the reference's double-precision GMRES (which
// also recomputes the true residual at every restart); with T = float it
// is the mixed-precision GMRES-IR of the benchmark.
#pragma once

#include <mpi.h>

#include <vector>

#include "mxp/flag_values.hpp"
#include "mxp/gmres.hpp"
#include "mxp/motif_stats.hpp"
#include "mxp/multigrid.hpp"
#include "mxp/problem.hpp"

namespace hplx::mxp {

template <class T>
class GmresIr {
 public:
  // Keeps pointers into `problem` and `dev`, which must outlive this
  // object. Every kernel runs on dev's compute queue.
  GmresIr(device::Device& dev, const Problem& problem, int restart, MPI_Comm comm);

  // Solves A x = b from the x given (device buffers of rows() entries);
  // convergence when ||b - A x|| <= tolerance * ||b - A x_0||, or stops
  // after max_iters inner iterations. options.restart must equal the
  // restart given to the constructor.
  GmresResult solve(const double* b, double* x, const GmresOptions& options, MotifStats* stats);

  // How the kernels run (--graphs, --cgs2).
  void use(const SolverKernels& k) {
    mg_.set_graphs(k.graphs);
    arnoldi_.set_fused_cgs2(k.fused_cgs2);
  }

  Multigrid<T>& multigrid() { return mg_; }
  ArnoldiCycle<T>& arnoldi() { return arnoldi_; }

 private:
  device::Device* dev_;
  const Problem* problem_;
  MPI_Comm comm_;
  HaloExchange<double> halo_;
  Multigrid<T> mg_;
  ArnoldiCycle<T> arnoldi_;
  device::Buffer<double> x_col_, ax_, r_;
  device::Buffer<T> correction_, z_;
};

extern template class GmresIr<float>;
extern template class GmresIr<double>;

}  // namespace hplx::mxp
