#include "mxp/halo.hpp"

#include <type_traits>

#include "core/error.hpp"
#include "mxp/dispatch.hpp"
#include "mxp/kernels/halo_kernels.hpp"

namespace hplx::mxp {
namespace {

// The message tag names the direction from the receiver to the sender.
int direction_tag(int dx, int dy, int dz) {
  return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
}

// Range of one coordinate of the points a neighbour in direction d owns
// that I read (outside my box), or that I own and it reads (inside).
void outside_range(int d, int n, int& lo, int& hi) {
  lo = d < 0 ? -1 : (d == 0 ? 0 : n);
  hi = d < 0 ? -1 : (d == 0 ? n - 1 : n);
}
void inside_range(int d, int n, int& lo, int& hi) {
  lo = d < 0 ? 0 : (d == 0 ? 0 : n - 1);
  hi = d < 0 ? 0 : (d == 0 ? n - 1 : n - 1);
}

}  // namespace

long HaloPlan::position(int ix, int iy, int iz) const {
  const int dx = ix < 0 ? -1 : (ix >= nx ? 1 : 0);
  const int dy = iy < 0 ? -1 : (iy >= ny ? 1 : 0);
  const int dz = iz < 0 ? -1 : (iz >= nz ? 1 : 0);
  for (const auto& nb : neighbors) {
    if (nb.dx != dx || nb.dy != dy || nb.dz != dz) continue;
    const long lx = dx == 0 ? nx : 1, ly = dy == 0 ? ny : 1;
    const long ox = dx == 0 ? ix : 0, oy = dy == 0 ? iy : 0, oz = dz == 0 ? iz : 0;
    return nb.recv_offset + (oz * ly + oy) * lx + ox;
  }
  return -1;
}

HaloPlan make_halo_plan(const Geometry& g, const ColorOrdering& order) {
  HaloPlan plan;
  plan.nx = g.nx;
  plan.ny = g.ny;
  plan.nz = g.nz;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0 && dz == 0) continue;
        const int rank = g.neighbor_rank(dx, dy, dz);
        if (rank < 0) continue;
        HaloNeighbor nb;
        nb.rank = rank;
        nb.dx = dx;
        nb.dy = dy;
        nb.dz = dz;
        int x0, x1, y0, y1, z0, z1;
        outside_range(dx, g.nx, x0, x1);
        outside_range(dy, g.ny, y0, y1);
        outside_range(dz, g.nz, z0, z1);
        nb.recv_offset = plan.halo_size;
        nb.recv_count = long(x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1);
        plan.halo_size += nb.recv_count;
        inside_range(dx, g.nx, x0, x1);
        inside_range(dy, g.ny, y0, y1);
        inside_range(dz, g.nz, z0, z1);
        for (int iz = z0; iz <= z1; ++iz)
          for (int iy = y0; iy <= y1; ++iy)
            for (int ix = x0; ix <= x1; ++ix)
              nb.send_rows.push_back(order.to_permuted[(iz * g.ny + iy) * g.nx + ix]);
        plan.send_size += static_cast<long>(nb.send_rows.size());
        plan.neighbors.push_back(std::move(nb));
      }
    }
  }
  return plan;
}

template <class T>
HaloExchange<T>::HaloExchange(device::Device& dev, const HaloPlan* plan, long rows, MPI_Comm comm)
    : dev_(&dev), plan_(plan), rows_(rows), comm_(comm) {
  send_ = dev.alloc<T>(plan->send_size);
  send_rows_ = dev.alloc<int>(plan->send_size);
  direct_ = send_.host_accessible() || plan->send_size == 0;
  if (!direct_) {
    send_host_ = dev.alloc<T>(plan->send_size, device::MemorySpace::Pinned);
    recv_host_ = dev.alloc<T>(plan->halo_size, device::MemorySpace::Pinned);
  }
  std::vector<int> all;
  all.reserve(plan->send_size);
  for (const auto& nb : plan->neighbors)
    all.insert(all.end(), nb.send_rows.begin(), nb.send_rows.end());
  device::copy(dev.transfer(), send_rows_.data(), all.data(), plan->send_size);
  dev.transfer().synchronize();  // `all` goes out of scope
  requests_.reserve(2 * plan->neighbors.size());
}

template <class T>
void HaloExchange<T>::begin(device::Queue& compute, T* x, const PackCorrection<T>* correction) {
  if (empty()) return;
  const MPI_Datatype type = std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
  device::Queue& tq = dev_->transfer();
  // Pack on the transfer queue once the compute queue has written x.
  tq.wait(compute.record());
  const long total = plan_->send_size;
  if (correction)
    run_elementwise(
        tq, total,
        kernels::PackProlongedBody<T>{x, send_rows_.data(), send_.data(), correction->f2c,
                                      correction->zc, correction->coarse_end});
  else
    run_elementwise(tq, total, kernels::PackBody<T>{x, send_rows_.data(), send_.data()});
  if (!direct_) device::copy(tq, send_host_.data(), send_.data(), total);
  // MPI reads the packed values from here on. The receives are posted
  // after it too: by then the compute queue has passed every kernel that
  // read the previous halo of x (and the transfer queue its last copy out
  // of the receive staging).
  tq.synchronize();
  requests_.clear();
  T* recv = direct_ ? x + rows_ : recv_host_.data();
  for (const auto& nb : plan_->neighbors) {
    MPI_Request req;
    HPLX_MPI_CHECK(MPI_Irecv(recv + nb.recv_offset, static_cast<int>(nb.recv_count), type, nb.rank,
                             direction_tag(nb.dx, nb.dy, nb.dz), comm_, &req));
    requests_.push_back(req);
  }
  const T* send = direct_ ? send_.data() : send_host_.data();
  long offset = 0;
  for (const auto& nb : plan_->neighbors) {
    const long count = static_cast<long>(nb.send_rows.size());
    MPI_Request req;
    // Tagged with the direction from the receiver back to me.
    HPLX_MPI_CHECK(MPI_Isend(send + offset, static_cast<int>(count), type, nb.rank,
                             direction_tag(-nb.dx, -nb.dy, -nb.dz), comm_, &req));
    requests_.push_back(req);
    offset += count;
  }
}

template <class T>
void HaloExchange<T>::finish(device::Queue& compute, T* x) {
  if (empty() || requests_.empty()) return;
  HPLX_MPI_CHECK(
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  requests_.clear();
  device::Queue& tq = dev_->transfer();
  if (!direct_) device::copy(tq, x + rows_, recv_host_.data(), plan_->halo_size);
  compute.wait(tq.record());  // the boundary rows read the halo after this
}

template class HaloExchange<float>;
template class HaloExchange<double>;

}  // namespace hplx::mxp
