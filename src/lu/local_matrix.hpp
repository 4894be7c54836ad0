// The local piece of the block-cyclic N x (N+1) matrix [A | b] held by one
// process of the grid, column-major with leading dimension lda, in the
// device's memory (device/buffer.hpp): host memory for the host backend,
// the GPU's for a GPU backend. Pointers from data() and at() are the
// device's: host code reaches them only through the queues' copies,
// unless the backend says the memory is host accessible.
#pragma once

#include "core/grid.hpp"
#include "device/device.hpp"
#include "lu/block_cyclic.hpp"

namespace hplx::lu {

class LocalMatrix {
 public:
  // `alignment` (HPL.dat line 31, in doubles): the leading dimension is
  // rounded up to a multiple of it, as netlib does.
  LocalMatrix(device::Device& dev, long n, int nb, const ProcessGrid& grid, int alignment = 8);

  long n() const { return n_; }
  int nb() const { return nb_; }
  long mp() const { return mp_; }  // local rows
  long nq() const { return nq_; }  // local columns of [A | b]
  long lda() const { return lda_; }
  int mycol() const { return mycol_; }
  int npcol() const { return npcol_; }
  bool host_accessible() const { return data_.host_accessible(); }
  device::Backend& backend() const { return *data_.backend(); }
  double* data() { return data_.data(); }
  const double* data() const { return data_.data(); }
  double* at(long li, long lj) { return data_.data() + li + lj * lda_; }
  const double* at(long li, long lj) const { return data_.data() + li + lj * lda_; }

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
  device::Buffer<double> data_;
};

}  // namespace hplx::lu
