#include "checkpoint_flags.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"
#include "lu/checkpoint/resume.hpp"
#include "lu_flags.hpp"

namespace hplx::app {

void add_checkpoint_flags(CLI::App& sub, CheckpointFlags& flags) {
  sub.add_option("--checkpoint", flags.dir,
                 "write the LU's state to this folder (on a file system every rank reaches) at "
                 "the first iteration boundary after each --checkpoint-every, the two newest "
                 "kept, so that --resume can go on from there after a failure; a test's "
                 "checkpoints are removed when it has finished");
  sub.add_option("--checkpoint-every", flags.every,
                 "how often --checkpoint saves: seconds, or with s, m or h (default 30m)");
  sub.add_option("--resume", flags.resume,
                 "go on from the newest complete checkpoint in this folder, with the command "
                 "line of the run that wrote it (checked: build, ranks, N, NB, grid, options); "
                 "checkpoints go on to the same folder unless --checkpoint names another");
}

namespace {

// The folder made and written to now, not at the first checkpoint.
void check_folder(const std::string& dir, MPI_Comm world) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  std::string error;
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string probe = dir + "/.hplx-write-test";
    std::FILE* f = ec ? nullptr : std::fopen(probe.c_str(), "w");
    if (!f)
      error = fmt::format(
          "--checkpoint {}: cannot write there ({}); allowed: a folder this user "
          "can write, on a file system every rank reaches",
          dir, ec ? ec.message() : std::strerror(errno));
    else
      std::fclose(f), std::remove(probe.c_str());
  }
  int failed = error.empty() ? 0 : 1;
  HPLX_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, world));
  if (failed) throw UsageError(rank == 0 ? error : "--checkpoint: rank 0 cannot write the folder");
}

}  // namespace

lu::CheckpointOptions checkpoint_options(const CheckpointFlags& flags, const CLI::App& sub,
                                         MPI_Comm world, device::BackendKind kind,
                                         const std::vector<nlohmann::json>& tests, bool quiet) {
  lu::CheckpointOptions o;
  o.dir = flags.dir.empty() ? flags.resume : flags.dir;
  if (o.dir.empty()) {
    if (sub.count("--checkpoint-every") > 0)
      throw UsageError(
          fmt::format("--checkpoint-every {}: only --checkpoint uses it (this run "
                      "has no checkpoint folder); allowed: drop it or add "
                      "--checkpoint DIR",
                      flags.every));
    return o;
  }
  o.every_s = parse_duration("--checkpoint-every", flags.every);
  o.identity = lu::run_identity(world, device::name_of(kind));
  if (!flags.resume.empty()) o.resume = lu::open_checkpoint(flags.resume, o.identity, tests, world);
  check_folder(o.dir, world);
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (o.resume && rank == 0 && !quiet) {
    for (const std::string& line : o.resume->passed_over)
      std::fprintf(stderr, "hplx: resume: %s\n", line.c_str());
    std::fprintf(stderr, "hplx: resume: %s: test %ld at column %ld of %ld\n",
                 o.resume->manifest_path.c_str(), o.resume->manifest.test_index + 1,
                 o.resume->manifest.column, o.resume->manifest.test.value("n", 0L));
  }
  return o;
}

}  // namespace hplx::app
