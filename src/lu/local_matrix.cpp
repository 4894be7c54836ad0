#include "lu/local_matrix.hpp"

#include <cstdlib>
#include <new>
#include <string>

#include "core/error.hpp"

namespace hplx::lu {

void FreeDeleter::operator()(double* p) const noexcept {
  std::free(p);
}

LocalMatrix::LocalMatrix(long n, int nb, const ProcessGrid& grid)
    : n_(n),
      nb_(nb),
      nprow_(grid.nprow()),
      npcol_(grid.npcol()),
      myrow_(grid.myrow()),
      mycol_(grid.mycol()) {
  mp_ = local_count(n, nb, myrow_, nprow_);
  nq_ = local_count(n + 1, nb, mycol_, npcol_);
  lda_ = mp_ > 0 ? mp_ : 1;
  // 64-byte alignment: cache lines and AVX-512 loads.
  const std::size_t bytes =
      sizeof(double) * static_cast<std::size_t>(lda_) * static_cast<std::size_t>(nq_ > 0 ? nq_ : 1);
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) {
    throw SystemError("cannot allocate " + std::to_string(rounded) +
                      " bytes for the local matrix (N=" + std::to_string(n) + ")");
  }
  data_.reset(static_cast<double*>(p));
}

}  // namespace hplx::lu
