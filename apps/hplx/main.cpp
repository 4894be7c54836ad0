// hplx: parse the command line, run the subcommand, map errors to exit
// status (2 bad input, 1 failed run). MPI is initialised once here; a single
// process started without mpiexec runs as an MPI singleton.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "commands.hpp"
#include "core/error.hpp"

namespace {
// Whether argv holds `--schedule dag` (or `--schedule=dag`).
bool wants_serialized_mpi(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--schedule=dag") == 0) return true;
    if (std::strcmp(argv[i], "--schedule") == 0 && i + 1 < argc &&
        std::strcmp(argv[i + 1], "dag") == 0)
      return true;
  }
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  // The dag schedule's MPI calls run on any thread of the team, one at a
  // time (src/lu/dag_schedule.hpp): SERIALIZED, asked only when the command
  // line picks it (no HPL.dat line can), so every other run keeps FUNNELED.
  const bool dag = wants_serialized_mpi(argc, argv);
  MPI_Init_thread(&argc, &argv, dag ? MPI_THREAD_SERIALIZED : MPI_THREAD_FUNNELED, &provided);
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
