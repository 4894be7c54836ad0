// The subcommands of hplx.
#pragma once

#include <mpi.h>

namespace hplx::app {

// Parses argv and runs the chosen subcommand; returns the exit status.
// Throws UsageError for bad input (every rank throws the same one).
int run_command_line(int argc, char** argv, MPI_Comm world);

}  // namespace hplx::app
