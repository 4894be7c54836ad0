// wall_time() of the simulated cluster's build (HPLX_SIM_RANK, built
// against SimGrid's SMPI, instead of wall_time.cpp): the simulated clock,
// which is also what SMPI's MPI_Wtime returns here (hplx sim runs with
// smpi/simulate-computation off and smpi/wtime 0). Read directly: MPI_Wtime
// also reads the host thread's CPU clock, a system call, each time (12% of
// a 1024-rank simulation's time).
#include <simgrid/engine.h>

#include "core/timer.hpp"

namespace hplx {

double wall_time() {
  return simgrid_get_clock();
}

}  // namespace hplx
