// `hplx lu --resume DIR`: the run continues from the newest complete
// checkpoint in DIR (lu/checkpoint/manifest.hpp) of the same run.
// Everything is checked before the matrix is allocated, and a checkpoint
// that cannot be used is named with the reason in one line: a manifest
// that cannot be read (half-written) is passed over for the one before,
// and said so; a different build, rank count, backend or test (N, NB,
// grid, any option), a file missing, cut short or whose checksum differs
// stop the run (UsageError).
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/device.hpp"
#include "lu/checkpoint/checkpointer.hpp"
#include "lu/checkpoint/manifest.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

// The checkpoint a resumed run continues from.
struct ResumeSource {
  std::string dir;
  std::string manifest_path;
  Manifest manifest;
  std::vector<std::string> passed_over;  // one line per unreadable newer manifest
};

// Collective over `world`. `identity`: this run's build, version, rank
// count and backend; `tests`: its tests as the record writes them.
ResumeSource open_checkpoint(const std::string& dir, const Manifest& identity,
                             const std::vector<nlohmann::json>& tests, MPI_Comm world);

// This rank's columns read into `a` (a device's through pinned memory and
// the compute queue, which is synchronized), and its state returned.
LoopState load_checkpoint(const ResumeSource& source, device::Device& dev,
                          const CheckpointMatrix& a);

// The run's identity for manifests: the program file's checksum, hplx's
// version, the world's size, the backend's name.
Manifest run_identity(MPI_Comm world, const std::string& backend);

// "nb 64 against 128", or "" where a and b agree (the first key that
// differs, nested keys joined with dots).
std::string first_difference(const nlohmann::json& theirs, const nlohmann::json& ours,
                             const std::string& prefix = "");

}  // namespace hplx::lu
