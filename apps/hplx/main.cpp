// hplx: parse the command line, run the subcommand, map errors to exit
// status (2 bad input, 1 failed run). MPI is initialised once here; a single
// process started without mpiexec runs as an MPI singleton.
#include <mpi.h>

#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "core/blas_core.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  // Before anything loads a kernel: OpenBLAS's fallback kernels on a CPU it
  // does not know are a fifth of the speed (src/core/blas_core.hpp).
  hplx::restart_with_better_blas_core(argv);
  int provided = 0;
  // SERIALIZED for every run: the dag schedule's MPI calls run on any
  // thread of the team, one at a time (src/lu/schedules/dag_schedule.hpp, which
  // refuses more than one thread when the library provides less). Open MPI
  // treats every level below MULTIPLE alike (no locks), so the other
  // schedules lose nothing by it; an MPI that offers less (SimGrid's SMPI:
  // SINGLE) still starts, and says so through `provided`.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int status = 0;
  try {
    status = hplx::app::run_command_line(argc, argv, MPI_COMM_WORLD);
  } catch (const hplx::UsageError& e) {
    // Usage errors are found identically on every rank, before any rank
    // starts communicating, so every rank can leave normally.
    if (rank == 0) std::fprintf(stderr, "hplx: error: %s\n", e.what());
    status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hplx: error on rank %d: %s\n", rank, e.what());
    // Other ranks may be waiting in a collective for this one.
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    status = 1;
  }
  MPI_Finalize();
  return status;
}
