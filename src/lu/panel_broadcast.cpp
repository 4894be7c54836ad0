#include "lu/panel_broadcast.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace hplx::lu {
namespace {

constexpr int kTag = 41;

// MPI counts are int; a panel never comes near 2^31 doubles, but say so if it does.
int as_count(long n) {
  if (n > 2147483647L) throw Error("message of " + std::to_string(n) + " doubles is too large");
  return static_cast<int>(n);
}

// Spread-roll among the ranks `members` (members[0] is the root): piece i
// goes to members[i], then Q-1 ring steps pass the pieces along until every
// member holds all of them.
void long_broadcast(double* data, long count, const std::vector<int>& members, int me,
                    MPI_Comm row) {
  const int m = static_cast<int>(members.size());
  const auto at = std::find(members.begin(), members.end(), me);
  if (at == members.end() || m == 1) return;
  const int pos = static_cast<int>(at - members.begin());
  auto first = [&](int piece) { return count * piece / m; };
  auto size = [&](int piece) { return as_count(first(piece + 1) - first(piece)); };
  if (pos == 0) {
    std::vector<MPI_Request> reqs;
    for (int i = 1; i < m; ++i) {
      reqs.emplace_back();
      HPLX_MPI_CHECK(
          MPI_Isend(data + first(i), size(i), MPI_DOUBLE, members[i], kTag, row, &reqs.back()));
    }
    HPLX_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
  } else {
    HPLX_MPI_CHECK(MPI_Recv(data + first(pos), size(pos), MPI_DOUBLE, members[0], kTag, row,
                            MPI_STATUS_IGNORE));
  }
  const int next = members[(pos + 1) % m], prev = members[(pos - 1 + m) % m];
  for (int step = 0; step < m - 1; ++step) {
    const int send_piece = (pos - step + m) % m;
    const int recv_piece = (pos - step - 1 + m) % m;
    HPLX_MPI_CHECK(MPI_Sendrecv(data + first(send_piece), size(send_piece), MPI_DOUBLE, next, kTag,
                                data + first(recv_piece), size(recv_piece), MPI_DOUBLE, prev, kTag,
                                row, MPI_STATUS_IGNORE));
  }
}

}  // namespace

std::vector<int> ring_parents(Broadcast topology, int q) {
  std::vector<int> parent(q);
  for (int i = 0; i < q; ++i) parent[i] = i - 1;
  switch (topology) {
    case Broadcast::OneRingM:
      if (q > 2) parent[2] = 0;
      break;
    case Broadcast::TwoRing:
      if (q > 1) parent[std::max(1, q / 2)] = 0;
      break;
    case Broadcast::TwoRingM:
      if (q > 2) {
        parent[2] = 0;
        parent[2 + (q - 2) / 2] = 0;
      }
      break;
    default:
      break;
  }
  return parent;
}

void broadcast_row(double* data, long count, Broadcast topology, int root, MPI_Comm row) {
  int q = 1, me = 0;
  MPI_Comm_size(row, &q);
  MPI_Comm_rank(row, &me);
  if (q == 1 || count == 0) return;
  const int pos = (me - root + q) % q;
  auto rank_at = [&](int position) { return (root + position) % q; };

  if (topology == Broadcast::Long || topology == Broadcast::LongM) {
    std::vector<int> members;
    if (topology == Broadcast::LongM) {
      // The next process gets the whole panel first: it factors the next one.
      if (pos == 0) {
        HPLX_MPI_CHECK(MPI_Send(data, as_count(count), MPI_DOUBLE, rank_at(1), kTag, row));
      } else if (pos == 1) {
        HPLX_MPI_CHECK(
            MPI_Recv(data, as_count(count), MPI_DOUBLE, rank_at(0), kTag, row, MPI_STATUS_IGNORE));
      }
      for (int i = 0; i < q; ++i)
        if (i != 1) members.push_back(rank_at(i));
    } else {
      for (int i = 0; i < q; ++i) members.push_back(rank_at(i));
    }
    long_broadcast(data, count, members, me, row);
    return;
  }

  const std::vector<int> parent = ring_parents(topology, q);
  if (pos > 0) {
    HPLX_MPI_CHECK(MPI_Recv(data, as_count(count), MPI_DOUBLE, rank_at(parent[pos]), kTag, row,
                            MPI_STATUS_IGNORE));
  }
  for (int child = 1; child < q; ++child) {
    if (parent[child] == pos) {
      HPLX_MPI_CHECK(MPI_Send(data, as_count(count), MPI_DOUBLE, rank_at(child), kTag, row));
    }
  }
}

void broadcast_panel(Panel& p, Broadcast topology, const ProcessGrid& grid) {
  if (grid.npcol() == 1 || p.jb == 0) return;
  // The pivots and info ride at the end of W as exact doubles: one message
  // per hop carries the whole panel.
  const std::size_t wsize = p.w.size();
  p.w.resize(wsize + p.jb + 1);
  double* tail = p.w.data() + wsize;
  const bool root = grid.mycol() == p.owner_col;
  if (root) {
    for (int c = 0; c < p.jb; ++c) tail[c] = static_cast<double>(p.ipiv[c]);
    tail[p.jb] = static_cast<double>(p.info);
  }
  broadcast_row(p.w.data(), static_cast<long>(p.w.size()), topology, p.owner_col, grid.row());
  tail = p.w.data() + wsize;
  if (!root) {
    for (int c = 0; c < p.jb; ++c) p.ipiv[c] = static_cast<long>(tail[c]);
    p.info = static_cast<long>(tail[p.jb]);
  }
  p.w.resize(wsize);
}

}  // namespace hplx::lu
