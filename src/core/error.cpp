#include "core/error.hpp"

#include <mpi.h>

#include <cstdio>

#include <fmt/format.h>

namespace hplx {

void throw_mpi_error(int code, const char* call, SourceLocation where) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw SystemError(fmt::format("MPI call failed: {}: {}", call, std::string(text, len)), where);
}

void log_dropped_error(const char* who, const char* what, const char* detail) noexcept {
  std::fprintf(stderr,
               "hplx: %s: %s failed in a destructor (its error cannot be thrown there): %s\n", who,
               what, detail);
  std::fflush(stderr);
}

}  // namespace hplx
