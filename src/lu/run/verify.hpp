// netlib's residual check: regenerate [A | b], then
//   ||b - A x||_oo / (eps (||A||_oo ||x||_oo + ||b||_oo) N).
#pragma once

#include <functional>
#include <vector>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/run/netlib_output.hpp"

namespace hplx::lu {

// Unit roundoff as netlib's HPL_pdlamch('eps'): 2^-53.
inline constexpr double kEpsilon = 1.1102230246251565e-16;

// Overwrites `a` with the regenerated matrix. Any non-finite value in x or
// in the residual makes the scaled residual NaN (a FAILED check), whatever
// MPI's max reduction does with NaN. Collective over the grid.
// The matrix is regenerated and its norms and A x computed on `dev`'s
// compute queue, where it lives; `progress()` is called as the
// regeneration goes (generate_matrix's slices) and after the sums.
ResidualReport check_solution(device::Device& dev, LocalMatrix& a, const std::vector<double>& x,
                              const ProcessGrid& grid, double threshold,
                              const std::function<void()>& progress = {});

}  // namespace hplx::lu
