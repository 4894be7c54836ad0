#include "lu/checkpoint/resume.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/buffer.hpp"
#include "device/queue.hpp"

#ifndef HPLX_VERSION
#define HPLX_VERSION "unknown"
#endif

namespace hplx::lu {
namespace {

void broadcast(std::string& s, MPI_Comm comm) {
  long size = static_cast<long>(s.size());
  HPLX_MPI_CHECK(MPI_Bcast(&size, 1, MPI_LONG, 0, comm));
  s.resize(static_cast<std::size_t>(size));
  HPLX_MPI_CHECK(MPI_Bcast(s.data(), static_cast<int>(size), MPI_CHAR, 0, comm));
}

// The same UsageError on every rank: the lowest rank's `error` that is not
// empty (the one that knows why says why).
void agree_on_error(const std::string& error, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = error.empty() ? size : rank;
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  std::string message = error;
  long length = static_cast<long>(message.size());
  HPLX_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG, first, comm));
  message.resize(static_cast<std::size_t>(length));
  HPLX_MPI_CHECK(MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, comm));
  throw UsageError(message);
}

// The newest manifest that can be read, on rank 0; the ones passed over
// said in `source.passed_over`. Returns why none can be used, or "".
std::string choose_manifest(ResumeSource& source) {
  const std::string& dir = source.dir;
  if (!std::filesystem::is_directory(dir))
    return fmt::format(
        "--resume {}: no such folder (give the --checkpoint folder of the run "
        "that stopped)",
        dir);
  const std::vector<std::string> paths = manifests_in(dir);
  if (paths.empty())
    return fmt::format(
        "--resume {}: no checkpoint in it (no checkpoint-*.json): the run "
        "stopped before its first checkpoint, or this is not its folder",
        dir);
  for (const std::string& path : paths) {
    try {
      std::ifstream in(path);
      source.manifest = manifest_from_json(nlohmann::json::parse(in));
      source.manifest_path = path;
      return "";
    } catch (const std::exception& e) {
      std::string why = e.what();
      if (why.size() > 120) why = why.substr(0, 120) + "...";
      source.passed_over.push_back(fmt::format(
          "{}: cannot be read (half-written?): {}; the checkpoint before it is used", path, why));
    }
  }
  return fmt::format("--resume {}: none of its {} manifests can be read (the last: {})", dir,
                     paths.size(), source.passed_over.back());
}

// Why the manifest does not belong to this run, or "".
std::string check_identity(const ResumeSource& source, const Manifest& ours,
                           const std::vector<nlohmann::json>& tests) {
  const Manifest& m = source.manifest;
  const std::string& path = source.manifest_path;
  if (m.build != ours.build)
    return fmt::format(
        "{}: written by another build of hplx (version {}, program checksum {}; "
        "this one: {}, {}): resume with the program that wrote it",
        path, m.version, m.build, ours.version, ours.build);
  if (m.ranks != ours.ranks)
    return fmt::format(
        "{}: written by a run of {} ranks, this run has {}: resume with the same "
        "rank count",
        path, m.ranks, ours.ranks);
  if (m.backend != ours.backend)
    return fmt::format("{}: written by a run on the {} backend, this run is on {}", path, m.backend,
                       ours.backend);
  if (m.test_index < 0 || m.test_index >= static_cast<long>(tests.size()))
    return fmt::format(
        "{}: written during test {}, this run has {} tests: resume with the same "
        "command line",
        path, m.test_index + 1, tests.size());
  const std::string diff = first_difference(m.test, tests[static_cast<std::size_t>(m.test_index)]);
  if (!diff.empty())
    return fmt::format(
        "{}: written by a run whose test {} has {} (the checkpoint's against this "
        "run's): resume with the same command line",
        path, m.test_index + 1, diff);
  return "";
}

// The local columns a finished-columns file holds, from its name.
std::pair<long, long> done_columns(const FileDigest& d, const std::string& dir) {
  const std::string base = std::filesystem::path(d.name).filename().string();
  long test = 0, c0 = 0, c1 = 0;
  if (std::sscanf(base.c_str(), "%ld-done-%ld-%ld.bin", &test, &c0, &c1) != 3 || c0 < 0 || c1 < c0)
    throw UsageError(
        fmt::format("{}/{}: not a file of finished columns the manifest can name", dir, d.name));
  return {c0, c1};
}

}  // namespace

std::string first_difference(const nlohmann::json& theirs, const nlohmann::json& ours,
                             const std::string& prefix) {
  if (theirs.is_object() && ours.is_object()) {
    for (const auto& [key, value] : theirs.items()) {
      const std::string name = prefix.empty() ? key : prefix + "." + key;
      if (!ours.contains(key)) return fmt::format("{} {} against none", name, value.dump());
      const std::string d = first_difference(value, ours.at(key), name);
      if (!d.empty()) return d;
    }
    for (const auto& [key, value] : ours.items())
      if (!theirs.contains(key))
        return fmt::format("{} none against {}", prefix.empty() ? key : prefix + "." + key,
                           value.dump());
    return "";
  }
  if (theirs == ours) return "";
  return fmt::format("{} {} against {}", prefix, theirs.dump(), ours.dump());
}

Manifest run_identity(MPI_Comm world, const std::string& backend) {
  Manifest m;
  m.build = hex(file_checksum("/proc/self/exe"));
  m.version = HPLX_VERSION;
  MPI_Comm_size(world, &m.ranks);
  m.backend = backend;
  return m;
}

ResumeSource open_checkpoint(const std::string& dir, const Manifest& identity,
                             const std::vector<nlohmann::json>& tests, MPI_Comm world) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  ResumeSource source;
  source.dir = dir;
  std::string error;
  if (rank == 0) {
    error = choose_manifest(source);
    if (error.empty()) error = check_identity(source, identity, tests);
  }
  agree_on_error(error, world);
  // The chosen manifest, and what was passed over, on every rank.
  std::string text = rank == 0 ? nlohmann::json{{"path", source.manifest_path},
                                                {"manifest", to_json(source.manifest)},
                                                {"passed_over", source.passed_over}}
                                     .dump()
                               : "";
  broadcast(text, world);
  const nlohmann::json j = nlohmann::json::parse(text);
  source.manifest_path = j.at("path").get<std::string>();
  source.manifest = manifest_from_json(j.at("manifest"));
  source.passed_over = j.at("passed_over").get<std::vector<std::string>>();
  // Each rank its own files, read through once.
  for (const FileDigest& d : source.manifest.files.at(static_cast<std::size_t>(rank))) {
    const std::string why = check_file(dir, d);
    if (!why.empty()) {
      error = fmt::format("{}/{}: {}; the checkpoint {} cannot be used", dir, d.name, why,
                          source.manifest_path);
      break;
    }
  }
  agree_on_error(error, world);
  return source;
}

LoopState load_checkpoint(const ResumeSource& source, device::Device& dev,
                          const CheckpointMatrix& a) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Manifest& m = source.manifest;
  const std::vector<FileDigest>& files = m.files.at(static_cast<std::size_t>(rank));
  if (files.size() < 2)
    throw UsageError(
        fmt::format("{}: it lists {} files for rank {}; a rank has at least its "
                    "trailing columns and its state",
                    source.manifest_path, files.size(), rank));
  // Each block of columns at its place: in host memory directly, else
  // through a pinned buffer as large as the largest block.
  const std::size_t column_bytes = a.column_bytes();
  const bool direct = a.host_accessible();
  device::Buffer<char> staging;
  auto read_block = [&](const FileDigest& d, long c0, long c1) {
    if (c1 <= c0 || column_bytes == 0) return;
    if (direct) return read_columns(source.dir, d, a.column(c0), column_bytes, c1 - c0, a.pitch());
    const long bytes = static_cast<long>(column_bytes) * (c1 - c0);
    if (staging.size() < bytes)
      staging = device::Buffer<char>(*a.backend, bytes, device::MemorySpace::Pinned);
    read_columns(source.dir, d, staging.data(), column_bytes, c1 - c0, column_bytes);
    dev.compute().copy_columns(a.column(c0), a.pitch(), staging.data(), column_bytes, column_bytes,
                               c1 - c0);
    dev.compute().synchronize();
  };
  for (std::size_t i = 0; i + 2 < files.size(); ++i) {
    const auto [c0, c1] = done_columns(files[i], source.dir);
    if (c1 > a.cols)
      throw UsageError(fmt::format("{}/{}: columns {} to {}, this rank has {}", source.dir,
                                   files[i].name, c0, c1, a.cols));
    read_block(files[i], c0, c1);
  }
  read_block(files[files.size() - 2], a.col_start(m.column), a.cols);
  const FileDigest& state_file = files.back();
  std::vector<double> blob(static_cast<std::size_t>(state_file.bytes) / sizeof(double));
  const long words = static_cast<long>(blob.size());
  const std::size_t state_bytes = static_cast<std::size_t>(words) * sizeof(double);
  read_columns(source.dir, state_file, blob.data(), state_bytes, 1, state_bytes);
  LoopState s = unpack(blob, source.dir + "/" + state_file.name);
  if (s.column != m.column)
    throw UsageError(fmt::format("{}/{}: the state of column {}, the manifest's is {}", source.dir,
                                 state_file.name, s.column, m.column));
  return s;
}

}  // namespace hplx::lu
