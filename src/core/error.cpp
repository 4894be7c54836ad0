#include "core/error.hpp"

#include <mpi.h>

#include <fmt/format.h>

namespace hplx {

void throw_mpi_error(int code, const char* call, SourceLocation where) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw SystemError(fmt::format("MPI call failed: {}: {}", call, std::string(text, len)), where);
}

}  // namespace hplx
