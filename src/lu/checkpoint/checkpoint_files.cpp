#include "lu/checkpoint/checkpoint_files.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::lu {
namespace {

struct HashState {
  XXH3_state_t* s = XXH3_createState();
  HashState() { XXH3_64bits_reset(s); }
  ~HashState() { XXH3_freeState(s); }
  HashState(const HashState&) = delete;
  HashState& operator=(const HashState&) = delete;
  void add(const void* p, std::size_t n) { XXH3_64bits_update(s, p, n); }
  std::uint64_t digest() const { return XXH3_64bits_digest(s); }
};

// A file descriptor closed with its scope.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

std::string path_of(const std::string& dir, const std::string& name) {
  return dir + "/" + name;
}

void write_all(int fd, const char* p, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw SystemError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

// Reads up to n bytes; fewer only at the end of the file.
std::size_t read_some(int fd, char* p, std::size_t n, const std::string& path) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw SystemError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

constexpr std::size_t kChunk = std::size_t{16} << 20;

}  // namespace

std::string hex(std::uint64_t v) {
  return fmt::format("0x{:016x}", v);
}

FileDigest write_columns(const std::string& dir, const std::string& name, const void* host,
                         std::size_t column_bytes, long cols, std::size_t pitch) {
  const std::string path = path_of(dir, name);
  Fd f(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (f.fd < 0) throw SystemError(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  HashState h;
  const char* base = static_cast<const char*>(host);
  if (column_bytes == pitch && cols > 0) {  // one contiguous block
    const std::size_t total = column_bytes * static_cast<std::size_t>(cols);
    for (std::size_t off = 0; off < total; off += kChunk) {
      const std::size_t n = std::min(kChunk, total - off);
      h.add(base + off, n);
      write_all(f.fd, base + off, n, path);
    }
  } else {
    for (long j = 0; j < cols; ++j) {
      const char* p = base + static_cast<std::size_t>(j) * pitch;
      h.add(p, column_bytes);
      write_all(f.fd, p, column_bytes, path);
    }
  }
  if (::fsync(f.fd) != 0)
    throw SystemError(fmt::format("{}: cannot sync to the disk: {}", path, std::strerror(errno)));
  // On the disk now: its pages leave the cache, which a run at full
  // memory needs for itself (else the next iterations wait for reclaim).
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
  return {name, static_cast<long long>(column_bytes) * cols, h.digest()};
}

std::string check_file(const std::string& dir, const FileDigest& d) {
  const std::string path = path_of(dir, d.name);
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) return fmt::format("cannot open it: {}", std::strerror(errno));
  HashState h;
  std::vector<char> buf(kChunk);
  long long total = 0;
  for (std::size_t n; (n = read_some(f.fd, buf.data(), buf.size(), path)) > 0;) {
    h.add(buf.data(), n);
    total += static_cast<long long>(n);
  }
  if (total != d.bytes)
    return fmt::format("it has {} bytes, the manifest says {} (cut short?)", total, d.bytes);
  if (h.digest() != d.xxh3)
    return fmt::format("its checksum {} does not match the manifest's {}", hex(h.digest()),
                       hex(d.xxh3));
  return "";
}

void read_columns(const std::string& dir, const FileDigest& d, void* host, std::size_t column_bytes,
                  long cols, std::size_t pitch) {
  const std::string path = path_of(dir, d.name);
  if (d.bytes != static_cast<long long>(column_bytes) * cols)
    throw UsageError(fmt::format("{}: {} bytes, but this rank's part is {} columns of {} bytes",
                                 path, d.bytes, cols, column_bytes));
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) throw SystemError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  char* base = static_cast<char*>(host);
  for (long j = 0; j < cols; ++j)
    if (read_some(f.fd, base + static_cast<std::size_t>(j) * pitch, column_bytes, path) !=
        column_bytes)
      throw UsageError(fmt::format("{}: shorter than the manifest says", path));
}

std::uint64_t file_checksum(const std::string& path) {
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) return 0;
  HashState h;
  std::vector<char> buf(std::size_t{1} << 20);
  for (std::size_t n; (n = read_some(f.fd, buf.data(), buf.size(), path)) > 0;)
    h.add(buf.data(), n);
  return h.digest();
}

std::uint64_t memory_checksum(const void* data, std::size_t bytes) {
  return XXH3_64bits(data, bytes);
}

}  // namespace hplx::lu
