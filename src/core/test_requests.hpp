// Whether non-blocking point-to-point MPI operations are complete, without
// blocking: the LU's broadcasts ask between pieces of other work (the row
// swap's collectives have theirs in collectives.hpp). Here so that the
// simulated cluster's build (test_requests_smpi.cpp) can answer without
// MPI_Test, whose completions SimGrid 3.32 never forgets (each one
// lengthens a list that every later simulated action walks: a simulation
// slows quadratically).
#pragma once

#include <mpi.h>

#include <vector>

namespace hplx {

// MPI_Testall over point-to-point requests: true when all are complete.
// Completed requests become MPI_REQUEST_NULL (some may already be when it
// returns false); the others are left for MPI_Waitall.
bool test_all(std::vector<MPI_Request>& reqs);

}  // namespace hplx
