#include "lu/panel_broadcast.hpp"

#include <vector>

#include "core/error.hpp"

namespace hplx::lu {
namespace {

// The pivots and info ride in the same message as W (as exact doubles), so
// one message per hop carries the whole panel.
std::vector<double> pack_tail(const Panel& p) {
  std::vector<double> tail(p.jb + 1);
  for (int c = 0; c < p.jb; ++c) tail[c] = static_cast<double>(p.ipiv[c]);
  tail[p.jb] = static_cast<double>(p.info);
  return tail;
}

void unpack_tail(Panel& p, const double* tail) {
  for (int c = 0; c < p.jb; ++c) p.ipiv[c] = static_cast<long>(tail[c]);
  p.info = static_cast<long>(tail[p.jb]);
}

}  // namespace

void broadcast_panel(Panel& p, Broadcast topology, const ProcessGrid& grid) {
  const int q = grid.npcol();
  if (q == 1 || p.jb == 0) return;
  if (topology != Broadcast::OneRing) {
    throw UsageError(std::string("BCAST ") + name_of(topology) + " is not implemented yet");
  }
  const std::size_t wsize = p.w.size();
  // W is resized to hold the tail during the transfer, then trimmed back.
  if (grid.mycol() == p.owner_col) {
    const auto tail = pack_tail(p);
    p.w.insert(p.w.end(), tail.begin(), tail.end());
  } else {
    p.w.resize(wsize + p.jb + 1);
  }
  const int count = static_cast<int>(p.w.size());
  const int me = grid.mycol();
  const int pos = (me - p.owner_col + q) % q;  // distance from the root along the ring
  const int next = (me + 1) % q, prev = (me - 1 + q) % q;
  if (pos > 0) {
    HPLX_MPI_CHECK(MPI_Recv(p.w.data(), count, MPI_DOUBLE, prev, 0, grid.row(), MPI_STATUS_IGNORE));
  }
  if (pos < q - 1) {
    HPLX_MPI_CHECK(MPI_Send(p.w.data(), count, MPI_DOUBLE, next, 0, grid.row()));
  }
  if (pos > 0) unpack_tail(p, p.w.data() + wsize);
  p.w.resize(wsize);
}

}  // namespace hplx::lu
