// The non-blocking collectives of the LU's row swap, started here: each
// one as MPI's, or, in the simulated cluster's build
// (collectives_smpi.cpp), as its blocking form, complete when it returns
// with *req = MPI_REQUEST_NULL. SMPI's non-blocking collectives put every
// message in flight at once (P x (P - 1) for an allgatherv), and SimGrid's
// network solver shares all of them out again at each one's start and end:
// three quarters of a 256-rank simulation's time. Its blocking ones run the
// algorithm hplx sim names per collective (a binomial-tree broadcast, a
// ring), or core's own (collectives_smpi.cpp's recursive-doubling
// allgatherv: log2 P rounds of one message per rank). The
// simulated host then waits in the collective instead of updating
// meanwhile (docs/SIM.md has what that moves); a GPU rank's device goes on
// with what its queues hold.
#pragma once

#include <mpi.h>

namespace hplx {

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
