// The files of a checkpoint (lu/checkpoint/manifest.hpp): a block of a
// rank's local matrix written column by column with its XXH3-64 checksum
// computed as it goes, checked and read back on resume. xxHash: a checksum
// at memory speed, so a checkpoint costs what the disk costs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hplx::lu {

// A file as the manifest names it: its name within the checkpoint
// directory, its size and checksum.
struct FileDigest {
  std::string name;
  long long bytes = 0;
  std::uint64_t xxh3 = 0;
};

// Writes `cols` columns of `column_bytes` bytes at `host`, `pitch` bytes
// apart, to `dir`/`name` and syncs it to the disk. Throws SystemError
// naming the file where the OS refuses.
FileDigest write_columns(const std::string& dir, const std::string& name, const void* host,
                         std::size_t column_bytes, long cols, std::size_t pitch);

// "" when `dir`/`d.name` has d's size and checksum, else why not, e.g.
// "checksum 0x... does not match the manifest's 0x...".
std::string check_file(const std::string& dir, const FileDigest& d);

// Reads a file write_columns wrote into `cols` columns of `column_bytes`
// bytes at `host`, `pitch` bytes apart; throws UsageError naming the file
// when its size is not that.
void read_columns(const std::string& dir, const FileDigest& d, void* host, std::size_t column_bytes,
                  long cols, std::size_t pitch);

// The checksum of a whole file (the build's identity: the running
// program's own file); 0 when it cannot be read.
std::uint64_t file_checksum(const std::string& path);

// The checksum of `bytes` bytes in memory (a solution's fingerprint).
std::uint64_t memory_checksum(const void* data, std::size_t bytes);

// "0x" and 16 hex digits, as manifests and records write checksums.
std::string hex(std::uint64_t v);

}  // namespace hplx::lu
