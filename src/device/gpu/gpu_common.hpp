// What the GPU backends (cuda/, hip/) share that names no vendor: the
// node-local rank that picks a rank's GPU.
#pragma once

namespace hplx::device {

// The node-local rank from the launcher's environment
// (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, MPI_LOCALRANKID), 0 without
// one: rank r on a node uses device r mod (devices).
int local_rank();

}  // namespace hplx::device
