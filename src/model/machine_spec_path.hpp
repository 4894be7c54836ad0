// Where a calibrated machine spec is found when a command (`hplx lu
// --predict` without a file) names none. In order:
//   1. $HPLX_MACHINE_SPEC, when set (it must name a readable file);
//   2. machine.toml in the working directory;
//   3. $XDG_CONFIG_HOME/hplx/machine.toml, else ~/.config/hplx/machine.toml.
// `mpirun -n 2 hplx model calibrate -o ~/.config/hplx/machine.toml` writes
// the last one.
#pragma once

#include <string>
#include <vector>

namespace hplx::model {

// The places searched, in order (those whose variables are unset left out).
std::vector<std::string> machine_spec_candidates();

// The first candidate that exists. Throws UsageError when none does (or
// when $HPLX_MACHINE_SPEC names a missing file), listing where it looked
// and how to make one.
std::string default_machine_spec_path();

}  // namespace hplx::model
