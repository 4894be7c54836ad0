// hplx error types. Every error carries the source location that raised it;
// the program maps UsageError to exit status 2 and everything else to 1.
#pragma once

#include <stdexcept>
#include <string>
#include <version>

#if defined(__cpp_lib_source_location)
#include <source_location>
namespace hplx {
using SourceLocation = std::source_location;
}  // namespace hplx
#else
namespace hplx {
// clang 14 with libstdc++ 12 (the fuzz build, fuzz/CMakeLists.txt) has no
// __builtin_source_location, hence no std::source_location: the same file,
// line and function from the builtins both compilers have.
class SourceLocation {
 public:
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          unsigned line = __builtin_LINE(),
                                          const char* function = __builtin_FUNCTION()) noexcept {
    SourceLocation s;
    s.file_ = file;
    s.line_ = line;
    s.function_ = function;
    return s;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return 0; }
  constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  unsigned line_ = 0;
  const char* function_ = "";
};
}  // namespace hplx
#endif

namespace hplx {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, SourceLocation where = SourceLocation::current())
      : std::runtime_error(what), where_(where) {}
  const SourceLocation& where() const noexcept { return where_; }

 private:
  SourceLocation where_;
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
                                  SourceLocation where = SourceLocation::current());

// For destructors, which never throw: says on stderr that `what` failed
// where its error could not be thrown, e.g. "hplx: CUDA: cudaFree failed in
// a destructor (its error cannot be thrown there): an illegal memory access
// was encountered". Never throws.
void log_dropped_error(const char* who, const char* what, const char* detail) noexcept;

void pay_deferred_work();  // core/timer.hpp

}  // namespace hplx

// Checks an MPI return code; MPI_ERRORS_RETURN must be set on the communicator.
// In the simulated build the rank first pays the computations it owes its
// clock (core/timer.hpp), so that the call happens at its time.
#define HPLX_MPI_CHECK(call)                        \
  do {                                              \
    ::hplx::pay_deferred_work();                    \
    int hplx_mpi_rc_ = (call);                      \
    if (hplx_mpi_rc_ != MPI_SUCCESS) {              \
      ::hplx::throw_mpi_error(hplx_mpi_rc_, #call); \
    }                                               \
  } while (0)
