// Classical Gram-Schmidt twice (CGS2): orthogonalizes w against the j
// columns of the basis Q (n x j local rows, column-major, device memory),
//   h1 = Q^T w,  w1 = w - Q h1,  h2 = Q^T w1,  w2 = w1 - Q h2,
// each Q^T sum all-reduced over the ranks. Classical Gram-Schmidt needs h
// before it can update w, so one pass cannot read Q once; two passes can
// share a read: the second pass's projection is computed from the first
// pass's update row block by row block (w1's rows, then Q^T w1's partial
// sums over the same rows of Q, still in cache), so the two passes read Q
// three times instead of four:
//   read 1: h1 = Q^T w                 (partial sums per chunk of rows)
//   read 2: w1 = w - Q h1 and h2 = Q^T w1 together
//   read 3: w2 = w1 - Q h2
// The sums add in a fixed order (kernels/ortho_kernels.hpp): the same bits
// on any number of threads and from one run to the next; the ranks' partial
// sums meet in an MPI_Allreduce of doubles, as before. orthogonalize_gemv()
// is the GEMV way (GEMV-transposed then GEMV per pass, the queue's BLAS:
// four reads), still GMRES's default (--cgs2, ArnoldiCycle::set_fused_cgs2): on
// the CPU with the basis in cache OpenBLAS's GEMVs are faster (docs/MXP.md).
// On a GPU the reads run one thread per (chunk, lane) (CgsLaneBody), with
// the same sums in the same order.
#pragma once

#include <mpi.h>

#include <vector>

#include "device/device.hpp"
#include "mxp/motif_stats.hpp"

namespace hplx::mxp {

template <class T>
class Cgs2 {
 public:
  // For vectors of `rows` local rows and bases of at most max_columns.
  Cgs2(device::Device& dev, long rows, int max_columns, MPI_Comm comm);

  // w -= Q (Q^T w), twice, on the Device's compute queue; h[i] += the two
  // projections' i-th entries (h: j host doubles). Q has leading dimension
  // `ld` (>= rows).
  void orthogonalize(const T* q, long ld, int j, T* w, double* h, MotifStats* stats);
  // The same with the queue's GEMVs (four reads of Q, sums in the BLAS's order).
  void orthogonalize_gemv(const T* q, long ld, int j, T* w, double* h, MotifStats* stats);

  // Bytes one orthogonalize() moves (model): 3 reads of Q, w read three
  // times and written twice.
  static double bytes(long rows, int j) { return (3.0 * j + 5.0) * rows * sizeof(T); }

 private:
  // h_[0, j) = the global Q^T w from the chunks' partial sums (on the
  // queue, then an all-reduce); also sets h_t_ (device) to them in T.
  void reduce(int j, MotifStats* stats);
  // One read of Q (CgsChunkBody's): w -= Q h where h is set, then the
  // chunks' partial sums of Q^T w where `sums`. Host loops run the chunk
  // body (cache-blocked, vectorized); a device (a GPU) the lane mapping
  // with at most kernels::kLaneColumns columns, its sums in the same order.
  void read(const T* q, long ld, int j, T* w, const T* h, bool sums);

  device::Device* dev_;
  long n_;
  int max_j_;
  MPI_Comm comm_;
  long chunks_;
  device::Buffer<double> partials_;  // chunks_ x max_j_
  device::Buffer<double> totals_;    // chunks_ x max_j_: each chunk's lanes added (a device)
  device::Buffer<double> sums_;      // max_j_
  device::Buffer<T> h_t_;            // the projection in T, for the update
  std::vector<double> h_;
  std::vector<T> h_host_;
};

extern template class Cgs2<float>;
extern template class Cgs2<double>;

}  // namespace hplx::mxp
