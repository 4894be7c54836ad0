#include "mxp/cgs2.hpp"

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/launch.hpp"
#include "mxp/kernels/ortho_kernels.hpp"

namespace hplx::mxp {

template <class T>
Cgs2<T>::Cgs2(device::Device& dev, long rows, int max_columns, MPI_Comm comm)
    : dev_(&dev),
      n_(rows),
      max_j_(max_columns),
      comm_(comm),
      chunks_((rows + kernels::kOrthoChunk - 1) / kernels::kOrthoChunk),
      partials_(dev.alloc<double>(chunks_ * max_columns * kernels::kOrthoLanes)),
      totals_(dev.compute().executes_on_host() ? device::Buffer<double>()
                                               : dev.alloc<double>(chunks_ * max_columns)),
      sums_(dev.alloc<double>(max_columns)),
      h_t_(dev.alloc<T>(max_columns)),
      h_(max_columns),
      h_host_(max_columns) {}

template <class T>
void Cgs2<T>::reduce(int j, MotifStats* stats) {
  device::Queue& q = dev_->compute();
  if (q.executes_on_host()) {
    device::launch(q, j, kernels::SumChunksBody{partials_.data(), chunks_, j, sums_.data()},
                   /*grain=*/1 << 20);
  } else {
    device::launch(q, chunks_ * j, kernels::ChunkLanesBody{partials_.data(), j, totals_.data()});
    device::launch(q, j, kernels::SumChunkTotalsBody{totals_.data(), chunks_, j, sums_.data()});
  }
  device::copy(q, h_.data(), sums_.data(), j);
  q.synchronize();
  const double ta = stats && stats->trace ? wall_time() : 0;
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, h_.data(), j, MPI_DOUBLE, MPI_SUM, comm_));
  if (stats) stats->span("Allreduce", ta, wall_time());
  for (int i = 0; i < j; ++i) h_host_[i] = static_cast<T>(h_[i]);
  device::copy(q, h_t_.data(), h_host_.data(), j);
}

template <class T>
void Cgs2<T>::orthogonalize(const T* qb, long ld, int j, T* w, double* h, MotifStats* stats) {
  if (j > max_j_) throw Error("Cgs2: more columns than it was made for");
  // Read 1: the first pass's projection.
  read(qb, ld, j, w, nullptr, true);
  reduce(j, stats);
  for (int i = 0; i < j; ++i) h[i] += h_[i];
  // Read 2: the first pass's update and the second pass's projection.
  read(qb, ld, j, w, h_t_.data(), true);
  reduce(j, stats);
  for (int i = 0; i < j; ++i) h[i] += h_[i];
  // Read 3: the second pass's update.
  read(qb, ld, j, w, h_t_.data(), false);
}

template <class T>
void Cgs2<T>::read(const T* qb, long ld, int j, T* w, const T* h, bool sums) {
  device::Queue& q = dev_->compute();
  double* partials = sums ? partials_.data() : nullptr;
  if (!q.executes_on_host() && j <= kernels::kLaneColumns)
    device::launch(q, chunks_ * kernels::kOrthoLanes,
                   kernels::CgsLaneBody<T>{qb, ld, n_, j, w, h, partials});
  else  // one chunk per index; threads from two chunks on
    device::launch(q, chunks_, kernels::CgsChunkBody<T>{qb, ld, n_, j, w, h, partials},
                   /*grain=*/1);
}

template <class T>
void Cgs2<T>::orthogonalize_gemv(const T* qb, long ld, int j, T* w, double* h, MotifStats* stats) {
  if (j > max_j_) throw Error("Cgs2: more columns than it was made for");
  device::Queue& q = dev_->compute();
  for (int pass = 0; pass < 2; ++pass) {
    q.gemv(device::Trans::Yes, n_, j, T(1), qb, ld, w, 1, T(0), h_t_.data(), 1);
    device::copy(q, h_host_.data(), h_t_.data(), j);
    q.synchronize();
    for (int i = 0; i < j; ++i) h_[i] = h_host_[i];
    const double ta = stats && stats->trace ? wall_time() : 0;
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, h_.data(), j, MPI_DOUBLE, MPI_SUM, comm_));
    if (stats) stats->span("Allreduce", ta, wall_time());
    for (int i = 0; i < j; ++i) {
      h_host_[i] = static_cast<T>(h_[i]);
      h[i] += h_[i];
    }
    device::copy(q, h_t_.data(), h_host_.data(), j);
    q.gemv(device::Trans::No, n_, j, T(-1), qb, ld, h_t_.data(), 1, T(1), w, 1);
  }
}

template class Cgs2<float>;
template class Cgs2<double>;

}  // namespace hplx::mxp
