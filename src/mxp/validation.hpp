// The validation phase of HPG-MxP and its penalty (seed 002 sections 2 and
// 3.3). Double-precision GMRES from x = 0 runs to a relative residual of
// 1e-9 and takes n_d iterations; mixed-precision GMRES-IR from x = 0 then
// runs to the same relative residual and takes n_ir. The benchmark's rating
// is multiplied by min(1, n_d / n_ir): fewer mixed iterations earn nothing.
//   standard:  on the first min(8, P) ranks (ORNL's choice), the same local
//              size; the double solve must reach 1e-9 within 10,000
//              iterations.
//   fullscale: on all ranks, the benchmark's own problem; the double solve
//              stops at 1e-9 or 10,000 iterations, and the mixed one must
//              reach the relative residual the double one achieved.
// The mixed solve may take up to twice the double cap; a solve that misses
// its target makes the run INVALID.
#pragma once

#include <mpi.h>

#include <string>

#include "mxp/flag_values.hpp"
#include "mxp/geometry.hpp"
#include "mxp/problem.hpp"

namespace hplx::mxp {

// min(1, n_double / n_mixed); 0 if n_mixed <= 0.
double penalty_factor(long n_double, long n_mixed);

// Ranks the validation uses out of `world_size`.
int validation_ranks(ValidationMode mode, int world_size);

struct ValidationOptions {
  ValidationMode mode = ValidationMode::Standard;
  Precision precision = Precision::Mixed;  // Double: only the double solve, penalty 1
  double tolerance = 1e-9;
  long max_iters = 10000;
  int restart = 30;
  ProblemOptions problem;
  SolverKernels kernels;  // as the benchmark's solves
};

struct ValidationResult {
  ValidationMode mode = ValidationMode::Standard;
  int ranks = 0;
  int npx = 1, npy = 1, npz = 1;
  long n_double = 0, n_mixed = 0;
  double tol_double = 0, tol_mixed = 0;  // relative residual targets
  double normr0_double = 0, normr_double = 0, normr0_mixed = 0, normr_mixed = 0;
  bool double_converged = false, mixed_converged = false;
  double penalty = 0;
  bool valid = false;
  double seconds = 0;
};

// Collective over `world`. `fine` is the benchmark's geometry (used as is in
// fullscale mode; standard mode builds its own on the first ranks with the
// same local size). `full_problem` may be null in standard mode. The
// solves run on `dev`.
ValidationResult run_validation(device::Device& dev, const ValidationOptions& options,
                                const Geometry& fine, const Problem* full_problem, MPI_Comm world);

}  // namespace hplx::mxp
