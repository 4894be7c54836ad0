#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw SystemError(fmt::format("cannot write {}: {}: {}", path, what, std::strerror(err)));
}

}  // namespace

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "open " + tmp, errno);
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(path, "write " + tmp, err);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // fsync before rename: otherwise a crash can leave `path` renamed but empty.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, "fsync " + tmp, err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "close " + tmp, err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "rename " + tmp, err);
  }
}

}  // namespace hplx
