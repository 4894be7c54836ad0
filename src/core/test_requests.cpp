#include "core/test_requests.hpp"

#include "core/error.hpp"

namespace hplx {

bool test_all(std::vector<MPI_Request>& reqs) {
  int done = 0;
  HPLX_MPI_CHECK(
      MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE));
  return done != 0;
}

}  // namespace hplx
