// The benchmark's matrix made in FP32 where the factorization runs (the
// queue's memory): the values of generate_matrix rounded to FP32, bit for
// bit (kernels/matgen_kernels.hpp), with no FP64 copy of it and nothing to
// convert or copy once the clock runs.
#pragma once

#include "core/grid.hpp"
#include "device/queue.hpp"
#include "hplmxp/distributed_matrix.hpp"

namespace hplx::hplmxp {

// Fills this process's part of A (FP32, lda = layout.lda, in q's memory);
// the diagonal multiplied by `diagonal_scale` as scale_diagonal does.
// Collective over the grid's row communicator (the diagonal's row sums);
// the host waits once, for those sums.
void generate_matrix_float(device::Queue& q, const Layout& layout, const ProcessGrid& grid,
                           float* a, double diagonal_scale = 1.0);

}  // namespace hplx::hplmxp
