// Checks that only rank 0 can make (the files it reads and writes need
// exist only there, as with netlib), with one verdict for every rank.
#pragma once

#include <mpi.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>

namespace hplx::app {

// Rank 0's `text` on every rank.
void broadcast_string(std::string& text, MPI_Comm world);

// Runs `check` on rank 0; a UsageError it throws is thrown on every rank,
// so the whole job stops with the same one-line message and exit 2.
void check_on_root(MPI_Comm world, const std::function<void()>& check);

// An HPL.dat's text on every rank: rank 0 reads the file (it need exist
// only there, as with netlib) and every rank parses the same text, so every
// rank reaches the same verdict. A file rank 0 cannot open is a UsageError
// on every rank.
std::string read_hpl_dat_on_root(const std::string& path, MPI_Comm world);

// The output files a command was asked to write, each checked on rank 0
// (require_writable) before any work starts: pairs of option and path, an
// empty path meaning not asked for.
void require_outputs_on_root(MPI_Comm world,
                             std::initializer_list<std::pair<std::string, std::string>> outputs);

}  // namespace hplx::app
