// What `hplx --version` prints: hplx's version, the device backends this
// build has, and the versions of the libraries and compiler it was built
// with (a run's numbers depend on them).
#pragma once

#include <string>

namespace hplx::app {

// Several lines, the first "hplx VERSION". Needs MPI initialised (the MPI
// library's version comes from MPI_Get_library_version).
std::string version_text();

}  // namespace hplx::app
