// --checkpoint DIR, --checkpoint-every DURATION and --resume DIR, as
// `hplx lu` and `hplx hpl-mxp` take them (lu/checkpoint/, docs/USAGE.md
// "Long runs on many nodes").
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/backend_kind.hpp"
#include "lu/run/run_checkpoints.hpp"

namespace hplx::app {

struct CheckpointFlags {
  std::string dir;            // --checkpoint
  std::string every = "30m";  // --checkpoint-every
  std::string resume;         // --resume
};

// Adds the three flags to `sub`; parsing fills `flags`, which must
// outlive `sub`.
void add_checkpoint_flags(CLI::App& sub, CheckpointFlags& flags);

// The flags checked (--checkpoint-every alone, a duration that is not
// one), the checkpoint to resume from chosen and checked against `tests`
// (the run's tests as its record writes them), the folder made and
// written to; what --resume chose said on stderr unless `quiet`.
// Collective over `world`; before anything large is allocated.
lu::CheckpointOptions checkpoint_options(const CheckpointFlags& flags, const CLI::App& sub,
                                         MPI_Comm world, device::BackendKind kind,
                                         const std::vector<nlohmann::json>& tests, bool quiet);

}  // namespace hplx::app
