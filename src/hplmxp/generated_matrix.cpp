#include "hplmxp/generated_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "device/launch.hpp"
#include "hplmxp/kernels/matgen_kernels.hpp"
#include "hplmxp/kernels/vector_kernels.hpp"
#include "hplmxp/mcg.hpp"

namespace hplx::hplmxp {
namespace {

kernels::LocalBlocks blocks_of(const Layout& l) {
  return {l.n, l.nb, l.nprow, l.npcol, l.myrow, l.mycol, l.mloc, l.nloc};
}

std::uint64_t column_step(const Layout& l) {
  return mcg_state_after(static_cast<std::uint64_t>(l.n));
}

}  // namespace

GeneratedMatrix::GeneratedMatrix(device::Queue& q, const Layout& l, const ProcessGrid& grid,
                                 double diagonal_scale, bool keep_fp64,
                                 const std::function<void()>& progress)
    : q_(q),
      l_(l),
      grid_(grid),
      diagonal_(q.backend()),
      x_(q.backend()),
      y_(q.backend()),
      reduced_(q.backend()) {
  if (keep_fp64) {
    if (!diagonal_.aliased())
      throw Error("GeneratedMatrix: keep_fp64 needs a queue working in host memory");
    // Not zeroed first: the generator's threads are the first to touch its
    // pages (zeroing was one more pass over it, on one thread).
    kept_ = std::make_unique_for_overwrite<double[]>(static_cast<std::size_t>(l.local_elements()));
    generate_matrix(l, grid, kept_.get());
    if (diagonal_scale != 1.0) scale_diagonal(l, kept_.get(), diagonal_scale);
    if (progress) progress();
  }
  const long rows = std::max(1L, l.mloc);
  diagonal_.resize(rows);
  x_.resize(std::max(1L, l.nloc));
  y_.resize(rows);
  partial_.assign(static_cast<std::size_t>(l.n), 0.0);
  reduced_.resize(l.n);
  // The off-diagonal sums of my columns (in y_), over the process row.
  device::launch(q, l.mloc, kernels::OffDiagonalSums{blocks_of(l), column_step(l), y_.device()},
                 16);
  y_.to_host(q);
  q.synchronize();
  if (progress) progress();
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, y_.data(), static_cast<int>(l.mloc), MPI_DOUBLE,
                               MPI_SUM, grid.row()));
  double largest = 0;
  for (long il = 0; il < l.mloc; ++il)
    largest = std::max(largest, y_[il] + std::fabs(y_[il] * diagonal_scale));
  HPLX_MPI_CHECK(MPI_Allreduce(&largest, &norm_inf_, 1, MPI_DOUBLE, MPI_MAX, grid.all()));
  y_.to_device(q);
  device::launch(q, l.mloc, kernels::ScaledSums{y_.device(), diagonal_scale, diagonal_.device()},
                 1024);
}

void GeneratedMatrix::fill_float(float* a) {
  const kernels::GenerateFloatRuns runs{blocks_of(l_), a, l_.lda};
  device::launch(q_, l_.nloc * runs.runs_per_column(), runs, 64);
  device::launch(q_, l_.mloc, kernels::SetDiagonal{blocks_of(l_), diagonal_.device(), a, l_.lda},
                 1024);
}

void GeneratedMatrix::multiply(const double* x, double* y) {
  device::launch(q_, l_.nloc, kernels::GatherLocal{x, x_.device(), l_.nb, l_.mycol, l_.npcol},
                 1024);
  if (!kept_)
    device::launch(q_, l_.mloc,
                   kernels::RegeneratedProducts{blocks_of(l_), column_step(l_), diagonal_.device(),
                                                x_.device(), y_.device()},
                   16);
  else if (l_.mloc > 0 && l_.nloc > 0)
    q_.gemv(device::Trans::No, l_.mloc, l_.nloc, 1.0, kept_.get(), l_.lda, x_.device(), 1, 0.0,
            y_.device(), 1);
  else
    device::launch(q_, l_.mloc, kernels::Filled{0.0, y_.device()}, 1024);
  if (l_.nprow * l_.npcol == 1) {  // my rows are all of y
    device::launch(q_, l_.mloc, kernels::ScatterLocal{y_.device(), y, l_.nb, l_.myrow, l_.nprow},
                   1024);
    return;
  }
  y_.to_host(q_, 0, l_.mloc);
  q_.synchronize();  // also: the last product's copy from reduced_'s host side is done
  std::fill(partial_.begin(), partial_.end(), 0.0);
  for (long il = 0; il < l_.mloc; ++il) partial_[l_.global_row(il)] = y_[il];
  HPLX_MPI_CHECK(MPI_Reduce(partial_.data(), reduced_.data(), static_cast<int>(l_.n), MPI_DOUBLE,
                            MPI_SUM, 0, grid_.all()));
  HPLX_MPI_CHECK(MPI_Bcast(reduced_.data(), static_cast<int>(l_.n), MPI_DOUBLE, 0, grid_.all()));
  reduced_.to_device(q_);
  device::copy(q_, y, reduced_.device(), l_.n);
}

}  // namespace hplx::hplmxp
