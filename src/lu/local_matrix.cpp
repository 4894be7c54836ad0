#include "lu/local_matrix.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#include "core/error.hpp"

namespace hplx::lu {

void FreeDeleter::operator()(double* p) const noexcept {
  std::free(p);
}

LocalMatrix::LocalMatrix(long n, int nb, const ProcessGrid& grid, int alignment)
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
  const std::size_t bytes =
      sizeof(double) * static_cast<std::size_t>(lda_) * static_cast<std::size_t>(nq_ > 0 ? nq_ : 1);
  // 64-byte alignment (cache lines, AVX-512 loads); 2 MiB for huge pages.
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const bool huge = bytes >= 2 * kHugePage;
  const std::size_t base = huge ? kHugePage : 64;
  const std::size_t rounded = (bytes + base - 1) / base * base;
  void* p = std::aligned_alloc(base, rounded);
  if (p == nullptr) {
    throw SystemError("cannot allocate " + std::to_string(rounded) +
                      " bytes for the local matrix (N=" + std::to_string(n) + ")");
  }
  if (huge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
  data_.reset(static_cast<double*>(p));
}

}  // namespace hplx::lu
