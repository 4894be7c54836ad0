#include "core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx {

namespace {

[[noreturn]] void cannot_read(const std::string& path, int err, std::string_view allowed) {
  throw UsageError(
      fmt::format("{}: cannot read: {}; allowed: {}", path, std::strerror(err), allowed));
}

}  // namespace

std::string read_input_file(const std::string& path, std::string_view allowed) {
  if (path.empty()) throw UsageError(fmt::format("an empty file name; allowed: {}", allowed));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    // Opening a folder for reading succeeds on Linux; EISDIR is for writing,
    // kept here for systems that refuse it anyway.
    if (errno == EISDIR)
      throw UsageError(fmt::format("{}: is a folder; allowed: {}", path, allowed));
    cannot_read(path, errno, allowed);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    cannot_read(path, err, allowed);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw UsageError(fmt::format("{}: is a folder; allowed: {}", path, allowed));
  }
  // Read to the end rather than st_size bytes: a pipe (/dev/stdin, a
  // process substitution) has no size.
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got > 0) {
      text.append(buf, static_cast<std::size_t>(got));
    } else if (got == 0) {
      break;
    } else if (errno != EINTR) {
      const int err = errno;
      ::close(fd);
      cannot_read(path, err, allowed);
    }
  }
  ::close(fd);
  return text;
}

}  // namespace hplx
