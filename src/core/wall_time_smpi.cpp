// wall_time() of the simulated cluster's build (HPLX_SIM_RANK, built
// against SimGrid's SMPI, instead of wall_time.cpp): SMPI's MPI_Wtime is
// the simulated clock of the calling rank.
#include <mpi.h>

#include "core/timer.hpp"

namespace hplx {

double wall_time() {
  return MPI_Wtime();
}

}  // namespace hplx
