#include "core/json_record.hpp"

#include "core/error.hpp"
#include "core/system_info.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#ifndef HPLX_VERSION
#define HPLX_VERSION "unknown"
#endif

namespace hplx {

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

nlohmann::json make_record_header(const std::string& command,
                                  const std::vector<std::string>& argv) {
  return nlohmann::json{
      {"schema", kRecordSchema},
      {"schema_version", kRecordSchemaVersion},
      {"hplx_version", HPLX_VERSION},
      {"command", command},
      {"argv", argv},
      {"started_at", utc_timestamp()},
      {"machine", to_json(probe_system())},
  };
}

namespace {

[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw SystemError(fmt::format("cannot write {}: {}: {}", path, what, std::strerror(err)));
}

}  // namespace

void write_json_atomically(const std::string& path, const nlohmann::json& record) {
  // Hostnames and argv may hold bytes that are not UTF-8; replacing them
  // beats losing the whole record to a serialisation error.
  const std::string text =
      record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const std::string tmp = path + ".tmp";

  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, ("open " + tmp).c_str(), errno);
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(path, ("write " + tmp).c_str(), err);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // fsync before rename: otherwise a crash can leave `path` renamed but empty.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, ("fsync " + tmp).c_str(), err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, ("close " + tmp).c_str(), err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, ("rename " + tmp).c_str(), err);
  }
}

}  // namespace hplx
