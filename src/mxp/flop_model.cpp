#include "mxp/flop_model.hpp"

namespace hplx::mxp {

double cycle_flops(const ProblemCounts& c, int k) {
  return 2.0 * c.nnz * (k + 1) + 6.0 * c.nnz_mg * (k + 1) +
         c.rows * (5.0 + 5.0 * k + 2.0 + 4.0 * k * (k + 1.0));
}

double final_residual_flops(const ProblemCounts& c) {
  return 2.0 * c.nnz + 4.0 * c.rows;
}

double solve_flops(const ProblemCounts& c, long iterations, int restart) {
  double f = final_residual_flops(c);
  for (long done = 0; done < iterations; done += restart) {
    const long k = iterations - done < restart ? iterations - done : restart;
    f += cycle_flops(c, static_cast<int>(k));
  }
  return f;
}

}  // namespace hplx::mxp
