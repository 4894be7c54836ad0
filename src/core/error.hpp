// hplx error types. Every error carries the source location that raised it;
// the program maps UsageError to exit status 2 and everything else to 1.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace hplx {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what,
                 std::source_location where = std::source_location::current())
      : std::runtime_error(what), where_(where) {}
  const std::source_location& where() const noexcept { return where_; }

 private:
  std::source_location where_;
};

// Bad input from the user (command line, HPL.dat, sizes that cannot fit).
// The message is one line naming the value and what is allowed.
class UsageError : public Error {
 public:
  using Error::Error;
};

// A failure of a library call (MPI, BLAS, CUDA, the OS).
class SystemError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] void throw_mpi_error(int code, const char* call,
                                  std::source_location where = std::source_location::current());

}  // namespace hplx

// Checks an MPI return code; MPI_ERRORS_RETURN must be set on the communicator.
#define HPLX_MPI_CHECK(call)                        \
  do {                                              \
    int hplx_mpi_rc_ = (call);                      \
    if (hplx_mpi_rc_ != MPI_SUCCESS) {              \
      ::hplx::throw_mpi_error(hplx_mpi_rc_, #call); \
    }                                               \
  } while (0)
