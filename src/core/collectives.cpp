#include "core/collectives.hpp"

#include "core/error.hpp"
#include "core/test_requests.hpp"

namespace hplx {

// With MPI's own collectives their requests are tested like any other.
bool test_all_collectives(std::vector<MPI_Request>& reqs) {
  return test_all(reqs);
}

void wait_all_collectives(std::vector<MPI_Request>& reqs) {
  HPLX_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
}

void ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  HPLX_MPI_CHECK(MPI_Ibcast(buf, count, type, root, comm, req));
}

void iscatterv(const void* send, const int* counts, const int* displs, MPI_Datatype send_type,
               void* recv, int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm,
               MPI_Request* req) {
  HPLX_MPI_CHECK(
      MPI_Iscatterv(send, counts, displs, send_type, recv, recv_count, recv_type, root, comm, req));
}

void igatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
              const int* counts, const int* displs, MPI_Datatype recv_type, int root, MPI_Comm comm,
              MPI_Request* req) {
  HPLX_MPI_CHECK(
      MPI_Igatherv(send, send_count, send_type, recv, counts, displs, recv_type, root, comm, req));
}

void iallgatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                 const int* counts, const int* displs, MPI_Datatype recv_type, MPI_Comm comm,
                 MPI_Request* req) {
  HPLX_MPI_CHECK(
      MPI_Iallgatherv(send, send_count, send_type, recv, counts, displs, recv_type, comm, req));
}

void ialltoallv(const void* send, const int* send_counts, const int* send_displs,
                MPI_Datatype send_type, void* recv, const int* recv_counts, const int* recv_displs,
                MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* req) {
  HPLX_MPI_CHECK(MPI_Ialltoallv(send, send_counts, send_displs, send_type, recv, recv_counts,
                                recv_displs, recv_type, comm, req));
}

}  // namespace hplx
