// The benchmark's matrix where the run's queue works: made in FP32 for the
// factorization (the host generator's values rounded to FP32, bit for
// bit), and in FP64 for the refinement's products, either made again,
// entry by entry, inside each product (kernels/matgen_kernels.hpp: on a
// device, which then holds 4 bytes per element, the FP32 matrix and its
// factors, and the host none) or kept (`keep_fp64`: 8 more bytes per
// element, for CPUs, where the product then streams memory instead of
// making each entry again with a 64-bit multiplication and a division,
// about 3 times slower on the 2-core machine of docs/PERFORMANCE.md).
// Nothing is converted or copied once the clock runs.
//
// The product made again adds each local row in column order, so it gives
// the same sums on every backend and from one run to the next.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/grid.hpp"
#include "device/mirror.hpp"
#include "device/queue.hpp"
#include "hplmxp/distributed_matrix.hpp"

namespace hplx::hplmxp {

class GeneratedMatrix {
 public:
  // The diagonal (each row's off-diagonal magnitudes, summed over the
  // process row, times `diagonal_scale`, as scale_diagonal does) and
  // ||A||_oo; with `keep_fp64`, A in FP64 in host memory (generate_matrix;
  // the queue's memory must be host memory). Collective over the grid; the
  // host waits once. `progress()` is called after each pass over the
  // matrix (the kept matrix made, the diagonal's sums): the watchdog's marks
  // in a generation of minutes at full memory.
  GeneratedMatrix(device::Queue& q, const Layout& layout, const ProcessGrid& grid,
                  double diagonal_scale = 1.0, bool keep_fp64 = false,
                  const std::function<void()>& progress = {});

  // This process's part of A in FP32 into `a` (lda = layout.lda, in the
  // queue's memory), queued.
  void fill_float(float* a);

  // y = A x in FP64 (x and y: n entries, the same on every process, in the
  // queue's memory): each process's rows over its columns on the queue; on
  // one process nothing reaches the host, on several the partial sums are
  // reduced to one process and broadcast through the host (every process
  // then holds the same numbers). Collective over the grid.
  void multiply(const double* x, double* y);

  // ||A||_oo: the largest row's off-diagonal sum plus its diagonal's
  // magnitude (norm_inf of the kept matrix adds the same terms in another
  // order: equal up to rounding).
  double norm_inf() const { return norm_inf_; }

 private:
  device::Queue& q_;
  const Layout l_;
  const ProcessGrid& grid_;
  device::Mirror<double> diagonal_, x_, y_, reduced_;
  std::vector<double> partial_;
  std::unique_ptr<double[]> kept_;  // A in FP64 (keep_fp64), lda = layout.lda; or null
  double norm_inf_ = 0;
};

}  // namespace hplx::hplmxp
