// The reference's flop model (hpg-mxp GMRES / GMRES_IR), counted per motif
// with global counts and all precisions alike: N rows, Z = nnz(A),
// Z_mg = nonzeros summed over the multigrid levels. A restart cycle of k
// steps costs
//   SpMV   2 Z (k + 1)          k Krylov products and the true residual
//   MG     6 Z_mg (k + 1)       k preconditioner calls and the final one;
//                               each counts pre-smoothing, residual and
//                               post-smoothing as an SpMV on every level
//   Ortho  sum_{j=1..k} (8 j N + 3 N) = 4 k (k+1) N + 3 k N   (CGS2, norm, scale)
//   Vector 5 N (residual, its norm, scaling) + 2 k N (Q y) + 2 N (x += z)
// in all 2Z(k+1) + 6 Z_mg(k+1) + N(5 + 5k + 2 + 4k(k+1)). A solve ends with
// one more true residual and its norm: 2 Z + 4 N.
#pragma once

namespace hplx::mxp {

struct ProblemCounts {
  double rows = 0;    // N
  double nnz = 0;     // Z
  double nnz_mg = 0;  // Z_mg
};

double cycle_flops(const ProblemCounts& c, int steps);
double final_residual_flops(const ProblemCounts& c);
// A solve from x = 0 of `iterations` inner iterations with restart m that
// ran its cycles to the end (the benchmark's solves, tolerance 0).
double solve_flops(const ProblemCounts& c, long iterations, int restart);

}  // namespace hplx::mxp
