// Halo exchange between neighbouring subdomains, non-blocking.
//
// A local vector holds the n owned rows (in the color ordering) followed by
// the halo: the values of the neighbouring ranks' points that the stencil
// of an owned row reads. The halo is grouped by neighbour (up to 26: faces,
// edges, corners of the box); inside a group the points are in global
// lexicographic order (z, then y, then x), which the sender reproduces for
// its own points, so no index lists travel between ranks.
//
// begin() packs the send buffers and posts every receive and send; finish()
// waits for them. Between the two, a kernel may update rows that read no
// halo value (ColorOrdering puts them first in every color).
//
// On the device layer: the exchange runs on the Device's transfer queue.
// begin() makes the transfer queue wait for the compute queue's writes to x,
// packs there (a kernel body, kernels/halo_kernels.hpp) and synchronizes it
// before MPI reads the buffer; finish() makes the compute queue wait for the
// transfer queue before the boundary rows read the halo. MPI reads and
// writes device buffers directly where the host can reach them
// (Buffer::host_accessible(): the host backend, or GPU-aware memory);
// otherwise both directions are staged through Pinned buffers with copies
// on the transfer queue.
#pragma once

#include <mpi.h>

#include <vector>

#include "device/device.hpp"
#include "mxp/coloring.hpp"
#include "mxp/geometry.hpp"

namespace hplx::mxp {

struct HaloNeighbor {
  int rank = -1;
  int dx = 0, dy = 0, dz = 0;  // where the neighbour is
  std::vector<int> send_rows;  // my rows (permuted numbering) it needs, in its order
  long recv_offset = 0;        // its points start at halo position recv_offset
  long recv_count = 0;
};

struct HaloPlan {
  std::vector<HaloNeighbor> neighbors;
  long halo_size = 0;
  long send_size = 0;
  int nx = 0, ny = 0, nz = 0;

  // The halo position (0-based, add n for the vector index) of the
  // out-of-box point (ix, iy, iz), each in [-1, n*], or -1 if no rank owns it.
  long position(int ix, int iy, int iz) const;
};

HaloPlan make_halo_plan(const Geometry& g, const ColorOrdering& order);

// What a sender adds to the values of its coarse points as it packs them,
// when they still miss the prolongated correction that the first kernel of
// the post-smoother adds (prolongation fused into that kernel, multigrid.cpp):
// the neighbours receive x + P z_c there, as without the fusion.
template <class T>
struct PackCorrection {
  const int* f2c = nullptr;  // fine row -> coarse row (device memory)
  const T* zc = nullptr;     // the coarse correction (device memory)
  long coarse_end = 0;       // the coarse points are the rows [0, coarse_end)
};

template <class T>
class HaloExchange {
 public:
  HaloExchange() = default;
  HaloExchange(device::Device& dev, const HaloPlan* plan, long rows, MPI_Comm comm);

  // Packs the owned values of x (device memory, written by `compute` so
  // far) that neighbours need and posts the messages that fill
  // x[rows .. rows + halo_size). `correction` (may be null): values packed
  // as x + P z_c (PackCorrection).
  void begin(device::Queue& compute, T* x, const PackCorrection<T>* correction = nullptr);
  // Waits for the messages; work enqueued on `compute` afterwards sees the
  // halo of x.
  void finish(device::Queue& compute, T* x);
  bool empty() const { return plan_ == nullptr || plan_->neighbors.empty(); }
  // Whether MPI reads and writes the device buffers directly (no staging).
  bool direct() const { return direct_; }

 private:
  device::Device* dev_ = nullptr;
  const HaloPlan* plan_ = nullptr;
  long rows_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool direct_ = true;
  device::Buffer<int> send_rows_;            // every neighbour's rows, concatenated
  device::Buffer<T> send_;                   // packed values (Device)
  device::Buffer<T> send_host_, recv_host_;  // Pinned staging when !direct_
  std::vector<MPI_Request> requests_;
};

extern template class HaloExchange<float>;
extern template class HaloExchange<double>;

}  // namespace hplx::mxp
