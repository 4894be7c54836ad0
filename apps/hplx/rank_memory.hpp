// The memory each rank of a run may fill, which sizes and checks the
// problem before anything large is allocated.
#pragma once

#include <mpi.h>

#include "device/backend_kind.hpp"
#include "device/device.hpp"

namespace hplx::app {

// A GPU's own free memory (one per rank), else the rank's share of the
// node's memory (the host and emulated backends keep the matrix in host
// memory, which the node's `local_ranks` share); the smallest over `world`,
// so every rank reaches the same verdict. Collective.
long long memory_per_rank(MPI_Comm world, device::Device& dev, device::BackendKind kind,
                          int local_ranks);

}  // namespace hplx::app
