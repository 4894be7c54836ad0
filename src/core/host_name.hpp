// The name of the host a rank runs on, as the slow-node lines give it.
#pragma once

#include <mpi.h>

#include <array>

namespace hplx {

constexpr int kHostChars = 64;  // a host name's characters kept (with its NUL)

// The MPI library's name for this rank's host: the host name under a real
// MPI, the simulated host under SimGrid's SMPI; "unknown" where it has none.
std::array<char, kHostChars> my_host_name();

// How many hosts the ranks of `comm` run on (by my_host_name). Collective:
// an allgather of one number a rank.
int hosts_in(MPI_Comm comm);

}  // namespace hplx
