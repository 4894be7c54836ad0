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
  reqs.emplace_back();
  HPLX_MPI_CHECK(MPI_Irecv(&byte, 0, MPI_CHAR, 0, kTag, MPI_COMM_SELF, &reqs.back()));
  // A blocking send: an empty message is sent eagerly, so it returns at
  // once (each MPI call costs the simulator, two fewer per test).
  HPLX_MPI_CHECK(MPI_Send(&byte, 0, MPI_CHAR, 0, kTag, MPI_COMM_SELF));
  const int count = static_cast<int>(reqs.size());
  for (int index = 0; index != count - 1 && index != MPI_UNDEFINED;)
    HPLX_MPI_CHECK(MPI_Waitany(count, reqs.data(), &index, MPI_STATUS_IGNORE));
  if (reqs.back() != MPI_REQUEST_NULL) HPLX_MPI_CHECK(MPI_Wait(&reqs.back(), MPI_STATUS_IGNORE));
  reqs.pop_back();
  return std::all_of(reqs.begin(), reqs.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; });
}

}  // namespace hplx
