#include "lu/phases/comm/row_broadcast.hpp"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/test_requests.hpp"

namespace hplx::lu {
namespace {

// MPI counts are int; a panel never comes near 2^31 elements, but say so if it does.
int as_count(long n) {
  if (n > 2147483647L) throw Error("message of " + std::to_string(n) + " elements is too large");
  return static_cast<int>(n);
}

template <class T>
MPI_Datatype element_type() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>);
  return std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
}

bool is_long(Broadcast b) {
  return b == Broadcast::Long || b == Broadcast::LongM;
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

// Stages, each a set of messages posted together; stage s+1 is posted when
// every message of stage s has completed.
//   rings:      0: receive from the parent;  1: send to the children.
//   long(M):    0: the scatter (and, for longM, root -> position 1 whole);
//               1 .. m-1: the roll steps among the m spread-roll members.
template <class T>
BasicRowBroadcast<T>::BasicRowBroadcast(T* data, long count, Broadcast topology, int root,
                                        MPI_Comm row, int tag)
    : data_(data), count_(count), topology_(topology), row_(row), tag_(tag), root_(root) {
  int me = 0;
  MPI_Comm_size(row, &q_);
  MPI_Comm_rank(row, &me);
  pos_ = (me - root + q_) % q_;
  timing_.start();
  if (q_ == 1 || count == 0) {
    received_ = true;
    timing_.complete();
    return;
  }
  if (is_long(topology)) {
    for (int i = 0; i < q_; ++i)
      if (topology == Broadcast::Long || i != 1) members_.push_back(i);
    const bool member = topology == Broadcast::Long || pos_ != 1;
    stages_ = member ? static_cast<int>(members_.size()) : 1;
  } else {
    stages_ = 2;
  }
  received_ = pos_ == 0;
  post(stage(0));
}

template <class T>
BasicRowBroadcast<T>::~BasicRowBroadcast() = default;

template <class T>
std::vector<typename BasicRowBroadcast<T>::Message> BasicRowBroadcast<T>::stage(int index) const {
  std::vector<Message> out;
  auto rank_at = [&](int position) { return (root_ + position) % q_; };
  if (!is_long(topology_)) {
    const std::vector<int> parent = ring_parents(topology_, q_);
    if (index == 0 && pos_ > 0) out.push_back({rank_at(parent[pos_]), 0, count_, false});
    if (index == 1)
      for (int child = 1; child < q_; ++child)
        if (parent[child] == pos_) out.push_back({rank_at(child), 0, count_, true});
    return out;
  }
  // longM's position 1 takes the whole message from the root and is done.
  if (topology_ == Broadcast::LongM && pos_ == 1) {
    out.push_back({rank_at(0), 0, count_, false});
    return out;
  }
  const int m = static_cast<int>(members_.size());
  const int me =
      static_cast<int>(std::find(members_.begin(), members_.end(), pos_) - members_.begin());
  auto first = [&](int piece) { return count_ * piece / m; };
  auto piece = [&](int i) { return std::pair<long, long>(first(i), first(i + 1) - first(i)); };
  if (index == 0) {
    if (me == 0) {
      if (topology_ == Broadcast::LongM) out.push_back({rank_at(1), 0, count_, true});
      for (int i = 1; i < m; ++i) {
        auto [f, c] = piece(i);
        out.push_back({rank_at(members_[i]), f, c, true});
      }
    } else {
      auto [f, c] = piece(me);
      out.push_back({rank_at(members_[0]), f, c, false});
    }
    return out;
  }
  const int step = index - 1;
  const int next = rank_at(members_[(me + 1) % m]), prev = rank_at(members_[(me - 1 + m) % m]);
  auto [sf, sc] = piece((me - step + m) % m);
  auto [rf, rc] = piece((me - step - 1 + m) % m);
  // The root has every piece: the last member does not send to it, so the
  // root's buffer (in use by its own update) is never written.
  if (me != m - 1) out.push_back({next, sf, sc, true});
  if (me != 0) out.push_back({prev, rf, rc, false});
  return out;
}

template <class T>
void BasicRowBroadcast<T>::post(const std::vector<Message>& stage) {
  for (const Message& m : stage) {
    reqs_.emplace_back();
    if (m.send) {
      HPLX_MPI_CHECK(MPI_Isend(data_ + m.first, as_count(m.count), element_type<T>(), m.peer, tag_,
                               row_, &reqs_.back()));
    } else {
      HPLX_MPI_CHECK(MPI_Irecv(data_ + m.first, as_count(m.count), element_type<T>(), m.peer, tag_,
                               row_, &reqs_.back()));
    }
  }
}

template <class T>
bool BasicRowBroadcast<T>::progress() {
  while (stage_ < stages_) {
    if (!reqs_.empty()) {
      if (!test_all(reqs_)) return false;
      reqs_.clear();
    }
    // Rings receive in stage 0; spread-roll members have everything after
    // the last roll step; longM's position 1 after its single stage.
    if (!is_long(topology_) ? stage_ == 0 : stage_ == stages_ - 1) received_ = true;
    if (++stage_ < stages_) post(stage(stage_));
  }
  timing_.complete();
  return true;
}

template <class T>
void BasicRowBroadcast<T>::finish() {
  if (progress()) return;
  const double t0 = wall_time();
  do {
    HPLX_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE));
    reqs_.clear();
    // progress() sees no requests and moves on to the next stage.
  } while (!progress());
  timing_.waited += wall_time() - t0;
}

template class BasicRowBroadcast<double>;
template class BasicRowBroadcast<float>;

void broadcast_row(double* data, long count, Broadcast topology, int root, MPI_Comm row) {
  RowBroadcast(data, count, topology, root, row).finish();
}

}  // namespace hplx::lu
