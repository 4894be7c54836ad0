#include "core/test_requests.hpp"

#include "core/error.hpp"

namespace hplx {

namespace {

bool testall(std::vector<MPI_Request>& reqs) {
  int done = 0;
  HPLX_MPI_CHECK(
      MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE));
  return done != 0;
}

}  // namespace

bool test_all(std::vector<MPI_Request>& reqs) {
  return testall(reqs);
}

bool test_all_collectives(std::vector<MPI_Request>& reqs) {
  return testall(reqs);
}

}  // namespace hplx
