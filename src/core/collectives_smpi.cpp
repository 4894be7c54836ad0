// collectives.hpp in the simulated cluster's build (HPLX_SIM_RANK, against
// SimGrid 3.32's SMPI): each collective a schedule of rounds of
// point-to-point messages, the next round posted when a test or the wait
// finds the last one complete, as Open MPI's libnbc progresses its
// collectives. SMPI's own non-blocking collectives post every message at
// once (P x (P - 1) for an allgatherv), and SimGrid's network solver shares
// all of them out again at each one's start and end (three quarters of a
// 256-rank simulation's time); its blocking ones would keep the rank from
// updating while they run.
//
// The caller's request is the schedule's handle, which only this file's
// test_all_collectives and wait_all_collectives take (the row swap's only
// uses of it); it becomes MPI_REQUEST_NULL when the schedule is over.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <list>
#include <vector>

#include "core/actor_slot_smpi.hpp"
#include "core/collectives.hpp"
#include "core/error.hpp"
#include "core/test_requests.hpp"

namespace hplx {
namespace {

struct Message {
  bool send;
  char* buf;
  int count;
  MPI_Datatype type;
  int peer;
};
using Round = std::vector<Message>;

struct Schedule {
  MPI_Comm comm;
  int tag;                          // of its messages on comm
  std::vector<Round> rounds;        // in order
  std::size_t next = 0;             // index of the next round to post
  std::vector<MPI_Request> flying;  // the posted round's requests
  bool over = false;                // its last round is complete
};

// The collectives this rank has started and the caller has not yet seen
// complete (core/actor_slot_smpi.hpp). Lists: a schedule's address is the
// caller's handle.
std::list<Schedule>& my_schedules() {
  static std::deque<std::list<Schedule>> by_actor;
  return *actor_slot(by_actor);
}

// A collective's messages carry a tag of its own, the same on every rank
// (MPI has every rank start a communicator's collectives in one order):
// two in flight on one communicator cannot match each other's messages
// whatever their rounds' order. The tags are reused in a cycle of kTags,
// far more than the collectives one communicator has in flight at once
// (the LU has a few): SMPI counts the messages of each (source,
// destination, tag) of a communicator and keeps every count to the end,
// so a new tag for every collective made the simulator's memory grow
// through the whole run (docs/SIM.md). From kFirstTag (the LU's own
// point-to-point tags are below 2000).
constexpr int kFirstTag = 16384, kTags = 32;

// The next collective's tag on comm: the count of those started on it is
// an attribute of the communicator (a new one starts from 0 on every rank).
int next_tag(MPI_Comm comm) {
  // One key for every rank (they may share this program's data): made by
  // the first, without HPLX_MPI_CHECK, whose payment of the rank's owed
  // time (core/timer.hpp) would let another rank make one too meanwhile.
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, nullptr) !=
        MPI_SUCCESS)
      throw SystemError("MPI_Comm_create_keyval failed");
    return k;
  }();
  void* value = nullptr;
  int found = 0;
  HPLX_MPI_CHECK(MPI_Comm_get_attr(comm, keyval, &value, &found));
  const auto count = found ? reinterpret_cast<std::intptr_t>(value) : 0;
  HPLX_MPI_CHECK(MPI_Comm_set_attr(comm, keyval, reinterpret_cast<void*>(count + 1)));
  return kFirstTag + static_cast<int>(count % kTags);
}
constexpr int kSelfTag = 0;  // copies to oneself

bool all_null(const std::vector<MPI_Request>& reqs) {
  return std::all_of(reqs.begin(), reqs.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; });
}

MPI_Request handle_of(Schedule& s) {
  return reinterpret_cast<MPI_Request>(&s);
}

// The schedule in `schedules` whose handle `r` is, or schedules.end().
std::list<Schedule>::iterator schedule_of(std::list<Schedule>& schedules, MPI_Request r) {
  return std::find_if(schedules.begin(), schedules.end(),
                      [&](Schedule& s) { return handle_of(s) == r; });
}

// Posts s's next round, or marks it over after its last.
void post_next(Schedule& s) {
  s.flying.clear();
  if (s.next == s.rounds.size()) {
    s.over = true;
    return;
  }
  for (const Message& m : s.rounds[s.next]) {
    s.flying.emplace_back();
    if (m.send)
      HPLX_MPI_CHECK(MPI_Isend(m.buf, m.count, m.type, m.peer, s.tag, s.comm, &s.flying.back()));
    else
      HPLX_MPI_CHECK(MPI_Irecv(m.buf, m.count, m.type, m.peer, s.tag, s.comm, &s.flying.back()));
  }
  ++s.next;
}

// Starts a schedule of `rounds` over comm; *req becomes its handle (only
// test_all_collectives and wait_all_collectives take it).
void start(MPI_Comm comm, std::vector<Round> rounds, MPI_Request* req) {
  std::list<Schedule>& schedules = my_schedules();
  schedules.push_back({comm, next_tag(comm), std::move(rounds), 0, {}, false});
  post_next(schedules.back());
  *req = handle_of(schedules.back());
}

// Hands back the handles in `reqs` of `schedules` that are over, as
// MPI_REQUEST_NULL; the others stay.
void retire(std::list<Schedule>& schedules, std::vector<MPI_Request>& reqs) {
  for (MPI_Request& r : reqs) {
    auto s = r == MPI_REQUEST_NULL ? schedules.end() : schedule_of(schedules, r);
    if (s != schedules.end() && s->over) {
      schedules.erase(s);
      r = MPI_REQUEST_NULL;
    }
  }
}

int comm_size(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}
int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
MPI_Aint extent_of(MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  return extent;
}

// A buffer the caller gave as const, as a message's (sends only read it).
char* bytes(const void* p) {
  return const_cast<char*>(static_cast<const char*>(p));
}

// A rank's own part of a collective, copied from its send buffer to its
// receive buffer.
void copy_own(const void* src, int src_count, MPI_Datatype src_type, void* dst, int dst_count,
              MPI_Datatype dst_type) {
  HPLX_MPI_CHECK(MPI_Sendrecv(src, src_count, src_type, 0, kSelfTag, dst, dst_count, dst_type, 0,
                              kSelfTag, MPI_COMM_SELF, MPI_STATUS_IGNORE));
}

}  // namespace

// One test (a loopback's latency) of the requests and of every schedule's
// round; each schedule whose round is complete posts its next.
bool test_all_collectives(std::vector<MPI_Request>& reqs) {
  if (all_null(reqs)) return true;
  std::list<Schedule>& schedules = my_schedules();
  // Requests of MPI's own, then every schedule's round.
  std::vector<MPI_Request*> own;
  for (MPI_Request& r : reqs)
    if (r != MPI_REQUEST_NULL && schedule_of(schedules, r) == schedules.end()) own.push_back(&r);
  std::vector<MPI_Request> all;
  for (MPI_Request* r : own) all.push_back(*r);
  for (const Schedule& s : schedules) all.insert(all.end(), s.flying.begin(), s.flying.end());
  test_all(all);
  auto it = all.begin();
  for (MPI_Request* r : own) *r = *it++;
  for (Schedule& s : schedules) {
    std::copy(it, it + static_cast<long>(s.flying.size()), s.flying.begin());
    it += static_cast<long>(s.flying.size());
    if (!s.over && all_null(s.flying)) post_next(s);
  }
  retire(schedules, reqs);
  return all_null(reqs);
}

// Runs the rounds of the schedules in `reqs` to their end.
void wait_all_collectives(std::vector<MPI_Request>& reqs) {
  std::list<Schedule>& schedules = my_schedules();
  for (MPI_Request r : reqs) {
    auto s = r == MPI_REQUEST_NULL ? schedules.end() : schedule_of(schedules, r);
    while (s != schedules.end() && !s->over) {
      HPLX_MPI_CHECK(
          MPI_Waitall(static_cast<int>(s->flying.size()), s->flying.data(), MPI_STATUSES_IGNORE));
      post_next(*s);
    }
  }
  retire(schedules, reqs);
  // Requests of MPI's own.
  HPLX_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
}

// A binomial tree: a rank receives from its parent (its rank relative to
// the root without the lowest bit set), then sends to its children at once,
// the largest subtree first.
void ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  const int size = comm_size(comm), me = (comm_rank(comm) - root + size) % size;
  auto* b = static_cast<char*>(buf);
  auto peer = [&](int relative) { return (relative + root) % size; };
  std::vector<Round> rounds;
  int low = 1;  // me's lowest set bit; for the root, past the highest rank
  while (low < size && (me & low) == 0) low <<= 1;
  if (me != 0) rounds.push_back({{false, b, count, type, peer(me - low)}});
  Round children;
  for (int m = low >> 1; m > 0; m >>= 1)
    if (me + m < size) children.push_back({true, b, count, type, peer(me + m)});
  if (!children.empty()) rounds.push_back(std::move(children));
  start(comm, std::move(rounds), req);
}

// Linear: the root sends every part at once.
void iscatterv(const void* send, const int* counts, const int* displs, MPI_Datatype send_type,
               void* recv, int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm,
               MPI_Request* req) {
  const int size = comm_size(comm), me = comm_rank(comm);
  Round round;
  if (me == root) {
    const MPI_Aint extent = extent_of(send_type);
    for (int i = 0; i < size; ++i)
      if (i != root && counts[i] > 0)
        round.push_back({true, bytes(send) + displs[i] * extent, counts[i], send_type, i});
    if (recv != MPI_IN_PLACE && counts[root] > 0)
      copy_own(bytes(send) + displs[root] * extent, counts[root], send_type, recv, recv_count,
               recv_type);
  } else if (recv_count > 0) {
    round.push_back({false, static_cast<char*>(recv), recv_count, recv_type, root});
  }
  start(comm, {std::move(round)}, req);
}

// Linear: every part to the root at once.
void igatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
              const int* counts, const int* displs, MPI_Datatype recv_type, int root, MPI_Comm comm,
              MPI_Request* req) {
  const int size = comm_size(comm), me = comm_rank(comm);
  Round round;
  if (me == root) {
    const MPI_Aint extent = extent_of(recv_type);
    for (int i = 0; i < size; ++i)
      if (i != root && counts[i] > 0)
        round.push_back(
            {false, static_cast<char*>(recv) + displs[i] * extent, counts[i], recv_type, i});
    if (send != MPI_IN_PLACE && send_count > 0)
      copy_own(send, send_count, send_type, static_cast<char*>(recv) + displs[root] * extent,
               counts[root], recv_type);
  } else if (send_count > 0) {
    round.push_back({true, bytes(send), send_count, send_type, root});
  }
  start(comm, {std::move(round)}, req);
}

// In place (the row swap's form; anything else is copied in first), the
// blocks laid end to end or not: over a power of two of ranks, recursive
// doubling (in round k a rank and its partner, rank xor 2^k, swap the 2^k
// blocks each holds, when they lie end to end); else a ring (in round k
// a rank passes block rank - k to its right).
void iallgatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                 const int* counts, const int* displs, MPI_Datatype recv_type, MPI_Comm comm,
                 MPI_Request* req) {
  const int size = comm_size(comm), me = comm_rank(comm);
  const MPI_Aint extent = extent_of(recv_type);
  auto* base = static_cast<char*>(recv);
  if (send != MPI_IN_PLACE && send_count > 0)
    copy_own(send, send_count, send_type, base + displs[me] * extent, counts[me], recv_type);
  bool end_to_end = (size & (size - 1)) == 0;
  for (int i = 1; i < size && end_to_end; ++i)
    end_to_end = displs[i] == displs[i - 1] + counts[i - 1];
  std::vector<Round> rounds;
  if (end_to_end) {
    auto span = [&](int first, int blocks) {
      int n = 0;
      for (int i = first; i < first + blocks; ++i) n += counts[i];
      return n;
    };
    for (int mask = 1; mask < size; mask <<= 1) {
      const int partner = me ^ mask;
      const int mine = me & ~(mask - 1), theirs = partner & ~(mask - 1);
      rounds.push_back(
          {{true, base + displs[mine] * extent, span(mine, mask), recv_type, partner},
           {false, base + displs[theirs] * extent, span(theirs, mask), recv_type, partner}});
    }
  } else {
    const int right = (me + 1) % size, left = (me - 1 + size) % size;
    for (int k = 0; k + 1 < size; ++k) {
      const int out = (me - k + size) % size, in = (me - k - 1 + size) % size;
      rounds.push_back({{true, base + displs[out] * extent, counts[out], recv_type, right},
                        {false, base + displs[in] * extent, counts[in], recv_type, left}});
    }
  }
  start(comm, std::move(rounds), req);
}

// Every pair at once (the row swap uses it only with equilibration).
void ialltoallv(const void* send, const int* send_counts, const int* send_displs,
                MPI_Datatype send_type, void* recv, const int* recv_counts, const int* recv_displs,
                MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* req) {
  const int size = comm_size(comm), me = comm_rank(comm);
  const MPI_Aint sx = extent_of(send_type), rx = extent_of(recv_type);
  copy_own(bytes(send) + send_displs[me] * sx, send_counts[me], send_type,
           static_cast<char*>(recv) + recv_displs[me] * rx, recv_counts[me], recv_type);
  Round round;
  for (int i = 0; i < size; ++i) {
    if (i == me) continue;
    if (recv_counts[i] > 0)
      round.push_back(
          {false, static_cast<char*>(recv) + recv_displs[i] * rx, recv_counts[i], recv_type, i});
    if (send_counts[i] > 0)
      round.push_back({true, bytes(send) + send_displs[i] * sx, send_counts[i], send_type, i});
  }
  start(comm, {std::move(round)}, req);
}

}  // namespace hplx
