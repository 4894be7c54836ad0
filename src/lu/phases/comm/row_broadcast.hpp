// LBCAST: the factored panel (the stacked buffer W, the pivots and the
// zero-pivot flag) sent from the panel's process column to every process of
// the process row, with netlib's six topologies. Positions are counted along
// the row from the root (0) in increasing column order, wrapping around:
//   1ring    0->1, 1->2, 2->3, ...
//   1ringM   0->1, 0->2, 2->3, 3->4, ...        (1 only receives)
//   2ring    0->1 and 0->h (h = Q/2), then two rings 1->2.., h->h+1..
//   2ringM   0->1, then 0->2 and 0->s over the rest, two rings from 2 and s
//   long     the message cut in Q pieces, scattered from the root, then
//            rolled around the ring in Q-1 exchange steps (bandwidth-bound)
//   longM    0->1 the whole message, then long over 0, 2, 3, ..., Q-1
//
// A broadcast is non-blocking: started after FACT, moved on by progress()
// between pieces of the trailing update (so a ring's forwarding and a long
// broadcast's roll steps happen while the process computes), and completed
// by finish(). This is what makes look-ahead overlap real.
#pragma once

#include <mpi.h>

#include <vector>

#include "core/timer.hpp"
#include "lu/config.hpp"

namespace hplx::lu {

// One broadcast of `count` elements (T: double or float) at `data` from the
// process of `row` with rank `root` to all others. The buffer must stay put
// until finish().
template <class T>
class BasicRowBroadcast {
 public:
  // Messages carry `tag`: broadcasts in flight at once on one row need
  // different tags, so a forwarded piece can never match another's receive.
  BasicRowBroadcast(T* data, long count, Broadcast topology, int root, MPI_Comm row,
                    int tag = kDefaultTag);
  static constexpr int kDefaultTag = 41;
  ~BasicRowBroadcast();
  BasicRowBroadcast(const BasicRowBroadcast&) = delete;
  BasicRowBroadcast& operator=(const BasicRowBroadcast&) = delete;

  // Tests the outstanding messages and posts the next ones; true when this
  // process's part is done (it has the data and has sent what it forwards).
  bool progress();
  // Blocks until this process's part is done.
  void finish();
  // Whether this process has the whole message (it may still be forwarding).
  bool received() const { return received_; }
  // When it started, when this process's part was seen done, and how long
  // the caller waited in finish(): what is not waited was hidden.
  const CommTiming& timing() const { return timing_; }

 private:
  struct Message {
    int peer;
    long first, count;
    bool send;
  };
  void post(const std::vector<Message>& stage);
  std::vector<Message> stage(int index) const;

  T* data_;
  long count_;
  Broadcast topology_;
  MPI_Comm row_;
  int tag_ = kDefaultTag;
  int q_ = 1, pos_ = 0, root_ = 0;
  std::vector<int> members_;  // long/longM: the ranks that take part in spread-roll
  int stage_ = 0, stages_ = 0;
  bool received_ = false;
  std::vector<MPI_Request> reqs_;
  CommTiming timing_;
};
extern template class BasicRowBroadcast<double>;
extern template class BasicRowBroadcast<float>;
using RowBroadcast = BasicRowBroadcast<double>;

// Sends `count` doubles at `data` from row position 0 (column `root`) to every
// process of `row` (ranks = columns), with the given topology, blocking.
void broadcast_row(double* data, long count, Broadcast topology, int root, MPI_Comm row);

// For the ring topologies: the position each position receives from (-1 for
// the root), for q processes. Exposed for tests.
std::vector<int> ring_parents(Broadcast topology, int q);

}  // namespace hplx::lu
