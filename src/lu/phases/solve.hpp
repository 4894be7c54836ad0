// Back substitution: after the factorization, column N of [A | b] holds
// y = L^-1 P b; solve U x = y over the grid.
#pragma once

#include <vector>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

// Returns this process's entries of x: one per local column of A
// (local_count(N, NB, mycol, Q)), identical on every process of a column.
//
// Block by block from the last: the diagonal block's owner gets y_j minus
// the contributions of the blocks already solved (one reduction of jb values
// along its process row), solves with U_jj, and sends x_j down its process
// column, whose processes fold U(:, j) x_j into their running contributions.
// The matrix stays on `dev`: each diagonal block comes to the host for its
// small triangular solve; U(:, j) x_j runs as a queue GEMV.
std::vector<double> solve_upper(device::Device& dev, const LocalMatrix& a, const ProcessGrid& grid);

}  // namespace hplx::lu
