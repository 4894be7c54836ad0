// test_requests.hpp in the simulated cluster's build (HPLX_SIM_RANK, against
// SimGrid 3.32's SMPI). There, a request that MPI_Test finds complete stays
// in its rank's list of activities for good, and every later simulated
// computation and wait searches that list: the simulation's time grows with
// the square of its length. Requests completed by a wait leave the list.
#include "core/test_requests.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace hplx {

// A test is a wait that a message to oneself ends: MPI_Waitany over the
// requests and that message's receive returns each request complete by
// the time the message arrives (about the loopback's latency, what a real
// MPI_Testall costs), and then the message.
bool test_all(std::vector<MPI_Request>& reqs) {
  if (std::all_of(reqs.begin(), reqs.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; }))
    return true;
  static char byte = 0;
  constexpr int kTag = 0;
  MPI_Request send = MPI_REQUEST_NULL;
  reqs.emplace_back();
  HPLX_MPI_CHECK(MPI_Irecv(&byte, 0, MPI_CHAR, 0, kTag, MPI_COMM_SELF, &reqs.back()));
  HPLX_MPI_CHECK(MPI_Isend(&byte, 0, MPI_CHAR, 0, kTag, MPI_COMM_SELF, &send));
  const int count = static_cast<int>(reqs.size());
  for (int index = 0; index != count - 1 && index != MPI_UNDEFINED;)
    HPLX_MPI_CHECK(MPI_Waitany(count, reqs.data(), &index, MPI_STATUS_IGNORE));
  HPLX_MPI_CHECK(MPI_Wait(&reqs.back(), MPI_STATUS_IGNORE));
  HPLX_MPI_CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE));
  reqs.pop_back();
  return std::all_of(reqs.begin(), reqs.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; });
}

// SMPI's MPI_Waitany takes a pending collective for a finished request,
// and testing one tests its messages: a collective is complete at its
// wait only. Its messages move meanwhile all the same; what waits is the
// caller's next step after it.
bool test_all_collectives(std::vector<MPI_Request>& reqs) {
  return std::all_of(reqs.begin(), reqs.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; });
}

}  // namespace hplx
