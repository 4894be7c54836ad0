// collectives.hpp in the simulated cluster's build (HPLX_SIM_RANK): the
// blocking collectives, by the algorithms hplx sim selects per collective.
#include "core/collectives.hpp"

#include "core/error.hpp"

namespace hplx {

void ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  HPLX_MPI_CHECK(MPI_Bcast(buf, count, type, root, comm));
  *req = MPI_REQUEST_NULL;
}

void iscatterv(const void* send, const int* counts, const int* displs, MPI_Datatype send_type,
               void* recv, int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm,
               MPI_Request* req) {
  HPLX_MPI_CHECK(
      MPI_Scatterv(send, counts, displs, send_type, recv, recv_count, recv_type, root, comm));
  *req = MPI_REQUEST_NULL;
}

void igatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
              const int* counts, const int* displs, MPI_Datatype recv_type, int root, MPI_Comm comm,
              MPI_Request* req) {
  HPLX_MPI_CHECK(
      MPI_Gatherv(send, send_count, send_type, recv, counts, displs, recv_type, root, comm));
  *req = MPI_REQUEST_NULL;
}

namespace {

// Recursive doubling in place: in round k a rank and its partner (rank xor
// 2^k) swap the 2^k blocks each holds, one message each way, straight
// between the two receive buffers. SMPI's own recursive-doubling and
// Bruck allgathervs stage blocks through temporary buffers (real copies of
// the whole matrix row block: 8x slower at 16 ranks and N = 20000); its
// ring sends P - 1 rounds of messages (1.5x slower at 1024 ranks). Needs P
// a power of two and the blocks laid end to end in rank order, which is
// how the row swap lays them.
bool doubling_allgatherv(void* recv, const int* counts, const int* displs, MPI_Datatype type,
                         MPI_Comm comm) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if ((size & (size - 1)) != 0) return false;
  for (int i = 1; i < size; ++i)
    if (displs[i] != displs[i - 1] + counts[i - 1]) return false;
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  auto* base = static_cast<char*>(recv);
  auto span = [&](int first, int blocks) {
    int n = 0;
    for (int i = first; i < first + blocks; ++i) n += counts[i];
    return n;
  };
  for (int mask = 1; mask < size; mask <<= 1) {
    const int partner = rank ^ mask;
    const int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);
    HPLX_MPI_CHECK(MPI_Sendrecv(base + displs[mine] * extent, span(mine, mask), type, partner, 0,
                                base + displs[theirs] * extent, span(theirs, mask), type, partner,
                                0, comm, MPI_STATUS_IGNORE));
  }
  return true;
}

}  // namespace

void iallgatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                 const int* counts, const int* displs, MPI_Datatype recv_type, MPI_Comm comm,
                 MPI_Request* req) {
  *req = MPI_REQUEST_NULL;
  if (send == MPI_IN_PLACE && doubling_allgatherv(recv, counts, displs, recv_type, comm)) return;
  HPLX_MPI_CHECK(
      MPI_Allgatherv(send, send_count, send_type, recv, counts, displs, recv_type, comm));
}

void ialltoallv(const void* send, const int* send_counts, const int* send_displs,
                MPI_Datatype send_type, void* recv, const int* recv_counts, const int* recv_displs,
                MPI_Datatype recv_type, MPI_Comm comm, MPI_Request* req) {
  HPLX_MPI_CHECK(MPI_Alltoallv(send, send_counts, send_displs, send_type, recv, recv_counts,
                               recv_displs, recv_type, comm));
  *req = MPI_REQUEST_NULL;
}

}  // namespace hplx
