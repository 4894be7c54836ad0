#include "mxp/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "mxp/gmres_ir.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {

double penalty_factor(long n_double, long n_mixed) {
  if (n_mixed <= 0) return 0.0;
  return std::min(1.0, static_cast<double>(n_double) / static_cast<double>(n_mixed));
}

int validation_ranks(ValidationMode mode, int world_size) {
  return mode == ValidationMode::Standard ? std::min(8, world_size) : world_size;
}

namespace {

void solve_both(device::Device& dev, const ValidationOptions& o, const Problem& p, MPI_Comm comm,
                ValidationResult& v) {
  device::Buffer<double> x = dev.alloc<double>(p.rows());
  fill(dev.compute(), p.rows(), 0.0, x.data());
  GmresOptions go;
  go.restart = o.restart;
  go.max_iters = o.max_iters;
  go.tolerance = o.tolerance;
  {
    GmresIr<double> solver(dev, p, o.restart, comm);
    solver.use(o.kernels);
    const GmresResult r = solver.solve(p.b.data(), x.data(), go, nullptr);
    v.n_double = r.iterations;
    v.normr0_double = r.normr0;
    v.normr_double = r.normr;
    v.tol_double = o.tolerance;
    v.double_converged = r.converged;
  }
  if (o.precision == Precision::Double) {
    v.n_mixed = v.n_double;
    v.tol_mixed = v.tol_double;
    v.normr0_mixed = v.normr0_double;
    v.normr_mixed = v.normr_double;
    v.mixed_converged = v.double_converged;
    return;
  }
  // Fullscale: match what the double solve achieved when it hit its cap.
  v.tol_mixed = o.mode == ValidationMode::Fullscale
                    ? std::max(o.tolerance, v.normr_double / v.normr0_double)
                    : o.tolerance;
  fill(dev.compute(), p.rows(), 0.0, x.data());
  go.tolerance = v.tol_mixed;
  go.max_iters = 2 * o.max_iters;
  GmresIr<float> solver(dev, p, o.restart, comm);
  solver.use(o.kernels);
  const GmresResult r = solver.solve(p.b.data(), x.data(), go, nullptr);
  v.n_mixed = r.iterations;
  v.normr0_mixed = r.normr0;
  v.normr_mixed = r.normr;
  v.mixed_converged = r.converged;
}

}  // namespace

ValidationResult run_validation(device::Device& dev, const ValidationOptions& o,
                                const Geometry& fine, const Problem* full_problem, MPI_Comm world) {
  const double t0 = wall_time();
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  ValidationResult v;
  v.mode = o.mode;
  v.ranks = validation_ranks(o.mode, size);
  if (o.mode == ValidationMode::Fullscale) {
    if (!full_problem) throw Error("fullscale validation needs the benchmark's problem");
    v.npx = fine.npx;
    v.npy = fine.npy;
    v.npz = fine.npz;
    solve_both(dev, o, *full_problem, world, v);
  } else {
    MPI_Comm sub = MPI_COMM_NULL;
    HPLX_MPI_CHECK(MPI_Comm_split(world, rank < v.ranks ? 0 : MPI_UNDEFINED, rank, &sub));
    const Geometry g = make_geometry(rank, v.ranks, fine.nx, fine.ny, fine.nz);
    v.npx = g.npx;
    v.npy = g.npy;
    v.npz = g.npz;
    if (sub != MPI_COMM_NULL) {
      MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
      auto p = std::make_unique<Problem>(generate_problem(dev, g, o.problem, sub));
      solve_both(dev, o, *p, sub, v);
      MPI_Comm_free(&sub);
    }
    // Everyone learns rank 0's outcome.
    long iters[2] = {v.n_double, v.n_mixed};
    double reals[6] = {v.tol_double,   v.tol_mixed,    v.normr0_double,
                       v.normr_double, v.normr0_mixed, v.normr_mixed};
    int flags[2] = {v.double_converged, v.mixed_converged};
    HPLX_MPI_CHECK(MPI_Bcast(iters, 2, MPI_LONG, 0, world));
    HPLX_MPI_CHECK(MPI_Bcast(reals, 6, MPI_DOUBLE, 0, world));
    HPLX_MPI_CHECK(MPI_Bcast(flags, 2, MPI_INT, 0, world));
    v.n_double = iters[0];
    v.n_mixed = iters[1];
    v.tol_double = reals[0];
    v.tol_mixed = reals[1];
    v.normr0_double = reals[2];
    v.normr_double = reals[3];
    v.normr0_mixed = reals[4];
    v.normr_mixed = reals[5];
    v.double_converged = flags[0] != 0;
    v.mixed_converged = flags[1] != 0;
  }
  v.penalty = penalty_factor(v.n_double, v.n_mixed);
  v.valid = v.mixed_converged && (o.mode == ValidationMode::Fullscale || v.double_converged);
  double dt = wall_time() - t0;
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, world));
  v.seconds = dt;
  return v;
}

}  // namespace hplx::mxp
