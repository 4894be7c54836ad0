// The flags of `hplx lu` that describe a single test without an HPL.dat
// (--n, --nb, --grid, ...): their CLI11 definitions and the HPL.dat they
// make, as pure functions, so tests and the fuzz targets (fuzz/) parse an
// argv into options without running the command.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "lu/config.hpp"

namespace hplx::app {

struct LuTestFlags {
  std::optional<long> n;
  std::optional<int> nb, nbmin, ndiv, depth, swap_threshold;
  std::optional<std::string> grid, pmap, pfact, rfact, bcast, swap;
  std::optional<double> threshold;
  bool any() const;  // was any of them given?
};

// Adds --n ... --threshold to `sub`; parsing fills `flags`, which must
// outlive `sub`.
void add_test_flags(CLI::App& sub, LuTestFlags& flags);

// The HPL.dat the flags describe for a job of `ranks` ranks: netlib's
// recommended variant with the given values in place. `ns` holds --n, or
// is empty without it (the caller sizes the default problem). Throws
// UsageError for a value out of range.
lu::HplDat dat_from_test_flags(const LuTestFlags& flags, int ranks);

// The flags given, back as command-line arguments ("--n", "1000", ...), to
// hand the same test to another program (hplx sim's ranks).
std::vector<std::string> test_flag_args(const LuTestFlags& flags);

// A floating-point option's check: a finite number in [lo, hi] (CLI::Range
// lets NaN through: every comparison with it is false).
CLI::Validator finite_in(double lo, double hi, const std::string& allowed);

// --preflight off|on|strict and --preflight-threshold (lu/run/node_preflight.hpp),
// for hplx lu and hplx hpl-mxp; parsing fills `mode` ("" when not given)
// and `threshold`, which must outlive `sub`.
void add_preflight_flags(CLI::App& sub, std::string& mode, double& threshold);

// A duration as --checkpoint-every takes it: seconds, or a number with
// s, m or h ("90", "45s", "30m", "1.5h"). Throws UsageError naming `flag`
// and the value unless it is a finite positive duration.
double parse_duration(const std::string& flag, const std::string& value);

// --update-sms N against the device's SMs (`sms`, 0 where it has none, and
// then any N is taken): a UsageError for N beyond them.
void check_update_sms(int n, int sms);

}  // namespace hplx::app
