#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
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

void write_text_atomically(const std::string& path, const std::string& text,
                           const std::string& tmp_suffix) {
  const std::string tmp = path + tmp_suffix;
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

void require_writable(const std::string& option, const std::string& path) {
  auto refuse = [&](const std::string& why) {
    throw UsageError(fmt::format("{} {}: cannot write there: {}", option, path, why));
  };
  if (path.empty()) refuse("the path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) refuse("it is a folder");
  const std::string::size_type slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0) refuse(fmt::format("folder {} does not exist", dir));
  if (!S_ISDIR(st.st_mode)) refuse(fmt::format("{} is not a folder", dir));
  // A probe file beside it: what the atomic writer's temporary needs.
  const std::string probe = fmt::format("{}.probe{}", path, static_cast<long>(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) refuse(std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0)
    refuse(std::strerror(errno));
}

}  // namespace hplx
