#include "lu/local_matrix.hpp"

#include <algorithm>

namespace hplx::lu {

LocalMatrix::LocalMatrix(device::Device& dev, long n, int nb, const ProcessGrid& grid,
                         int alignment)
    : n_(n),
      nb_(nb),
      nprow_(grid.nprow()),
      npcol_(grid.npcol()),
      myrow_(grid.myrow()),
      mycol_(grid.mycol()) {
  mp_ = local_count(n, nb, myrow_, nprow_);
  nq_ = local_count(n + 1, nb, mycol_, npcol_);
  const long align = std::max(1, alignment);
  lda_ = (std::max(1L, mp_) + align - 1) / align * align;
  data_ = dev.alloc<double>(lda_ * std::max(1L, nq_));
}

}  // namespace hplx::lu
