// The local piece of the block-cyclic N x (N+1) matrix [A | b] held by one
// process of the grid, column-major with leading dimension lda. Large
// matrices sit on 2 MiB boundaries and ask the kernel for transparent huge
// pages: the row swaps touch one element per column, and with 4 KiB pages
// that is one TLB miss per element.
#pragma once

#include <cstddef>
#include <memory>

#include "core/grid.hpp"
#include "lu/block_cyclic.hpp"

namespace hplx::lu {

struct FreeDeleter {
  void operator()(double* p) const noexcept;
};

class LocalMatrix {
 public:
  // `alignment` (HPL.dat line 31, in doubles): the leading dimension is
  // rounded up to a multiple of it, as netlib does.
  LocalMatrix(long n, int nb, const ProcessGrid& grid, int alignment = 8);

  long n() const { return n_; }
  int nb() const { return nb_; }
  long mp() const { return mp_; }  // local rows
  long nq() const { return nq_; }  // local columns of [A | b]
  long lda() const { return lda_; }
  double* data() { return data_.get(); }
  const double* data() const { return data_.get(); }
  double* at(long li, long lj) { return data_.get() + li + lj * lda_; }
  const double* at(long li, long lj) const { return data_.get() + li + lj * lda_; }

  // First local row / column whose global index is >= g.
  long row_start(long g) const { return local_start(g, nb_, myrow_, nprow_); }
  long col_start(long g) const { return local_start(g, nb_, mycol_, npcol_); }
  long global_row(long li) const { return local_to_global(li, nb_, myrow_, nprow_); }
  long global_col(long lj) const { return local_to_global(lj, nb_, mycol_, npcol_); }

 private:
  long n_;
  int nb_;
  int nprow_, npcol_, myrow_, mycol_;
  long mp_, nq_, lda_;
  std::unique_ptr<double, FreeDeleter> data_;
};

}  // namespace hplx::lu
