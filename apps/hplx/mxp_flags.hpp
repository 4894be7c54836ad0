// The flags of `hplx mxp` that describe the problem (--nx ... --smoother,
// --graphs, --cgs2,
// --npx/--npy/--npz, --expect-bandwidth): their CLI11 definitions and the
// checked configuration they make, without the solver, so that tests and
// the fuzz target (fuzz/fuzz_mxp_flags.cpp) parse an argv as the command
// does.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "mxp/flag_values.hpp"

namespace hplx::app {

struct MxpFlags {
  mxp::MxpConfig config;  // --nx ... --iterations, --nonsymmetric
  std::string validation = "standard";
  std::string precision = "mixed";
  std::string smoother = "multicolor";
  std::string graphs = "on";
  std::string cgs2 = "gemv";
  int npx = 0, npy = 0, npz = 0;
  std::optional<double> expect_gbs;  // --expect-bandwidth
};

// Adds the flags to `sub`; parsing fills `flags`, which must outlive `sub`.
void add_mxp_flags(CLI::App& sub, MxpFlags& flags);

// The configuration the flags describe for a job of `ranks` ranks, checked
// (mxp::check_config, --expect-bandwidth). Throws UsageError naming the
// value and what is allowed.
mxp::MxpConfig mxp_config_from_flags(const MxpFlags& flags, int ranks);

}  // namespace hplx::app
