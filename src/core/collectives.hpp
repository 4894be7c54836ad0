// The non-blocking collectives of the LU's row swap: started here, tested
// and waited for here. Each is MPI's, or, in the simulated cluster's build
// (collectives_smpi.cpp), a schedule of rounds of point-to-point messages
// that the tests and the wait move on, as Open MPI's libnbc does: a
// binomial-tree broadcast, recursive doubling or a ring for the
// allgatherv, linear scatters and gathers. SMPI's own non-blocking
// collectives post every message at once (P x (P - 1) for an allgatherv),
// and SimGrid's network solver shares all of them out again at each one's
// start and end (three quarters of a 256-rank simulation's time); its
// blocking ones would keep the rank from updating while they run.
#pragma once

#include <mpi.h>

#include <vector>

namespace hplx {

// MPI_Testall over the requests of these collectives: true when all are
// complete (complete ones become MPI_REQUEST_NULL; the rest are left for
// wait_all_collectives).
bool test_all_collectives(std::vector<MPI_Request>& reqs);

// MPI_Waitall over the requests of these collectives.
void wait_all_collectives(std::vector<MPI_Request>& reqs);

void ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req);
void iscatterv(const void* send, const int* counts, const int* displs, MPI_Datatype send_type,
               void* recv, int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm,
               MPI_Request* req);
void igatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
              const int* counts, const int* displs, MPI_Datatype recv_type, int root, MPI_Comm comm,
              MPI_Request* req);
void iallgatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                 const int* counts, const int* displs, MPI_Datatype recv_type, MPI_Comm comm,
                 MPI_Request* req);
void ialltoallv(const void* send, const int* send_counts, const int* send_displs,
                MPI_Datatype send_type, void* recv, const int* recv_counts, const int* recv_displs,
                MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* req);

}  // namespace hplx
