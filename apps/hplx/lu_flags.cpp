#include "lu_flags.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"
#include "lu/run/flag_values.hpp"

namespace hplx::app {

bool LuTestFlags::any() const {
  return n || nb || nbmin || ndiv || depth || swap_threshold || grid || pmap || pfact || rfact ||
         bcast || swap || threshold;
}

CLI::Validator finite_in(double lo, double hi, const std::string& allowed) {
  return CLI::Validator(
      [lo, hi, allowed](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
          return fmt::format("{}: allowed: {}", text, allowed);
        return {};
      },
      "FLOAT");
}

void check_update_sms(int n, int sms) {
  if (sms > 0 && n > sms)
    throw UsageError(fmt::format("--update-sms {}: allowed: 0 to {} (this GPU's SMs)", n, sms));
}

void add_test_flags(CLI::App& sub, LuTestFlags& f) {
  sub.add_option("--n", f.n, "matrix order N (>= 0)");
  sub.add_option("--nb", f.nb, "block size NB (>= 1; default 192, 1024 on a GPU backend)");
  sub.add_option("--grid", f.grid, "process grid PxQ (default: squarest grid of the ranks)");
  sub.add_option("--pmap", f.pmap, "process mapping: row | column");
  sub.add_option("--pfact", f.pfact, "panel factorization: left | crout | right");
  sub.add_option("--rfact", f.rfact, "recursive panel factorization: left | crout | right");
  sub.add_option("--nbmin", f.nbmin, "recursion stops at NBMIN columns (>= 1)");
  sub.add_option("--ndiv", f.ndiv, "panels in recursion (>= 2)");
  sub.add_option("--bcast", f.bcast,
                 "panel broadcast: 1ring | 1ringM | 2ring | 2ringM | long | longM");
  sub.add_option("--depth", f.depth,
                 "look-ahead depth: panels factored ahead of the update (>= 0)");
  sub.add_option("--swap", f.swap, "row swap: bin-exch | long | mix");
  sub.add_option("--swap-threshold", f.swap_threshold, "mix: long swap above this many columns");
  sub.add_option("--threshold", f.threshold, "residual threshold (<= 0 skips the check)")
      ->check(finite_in(-HUGE_VAL, HUGE_VAL, "a finite number"));
}

lu::HplDat dat_from_test_flags(const LuTestFlags& f, int ranks) {
  lu::HplDat dat;
  dat.source = "<command line>";
  // netlib's recommended variant (its tuning notes): look-ahead 1, 1ringM.
  dat.depths = {1};
  dat.bcasts = {lu::Broadcast::OneRingM};
  // No equilibration: hplx's long swap rolls unequal pieces in one
  // MPI_Iallgatherv, so evening them out first only adds a collective and
  // a copy (+0.1 s of RS at N = 5000 on 2x1 here). An HPL.dat's line 30
  // is still obeyed.
  dat.equilibration = false;
  if (f.nb) dat.nbs = {*f.nb};
  if (f.nb && *f.nb < 1) throw UsageError(fmt::format("--nb {}: allowed: NB >= 1", *f.nb));
  dat.grids = {f.grid ? lu::parse_grid_flag(*f.grid) : lu::default_grid(ranks)};
  if (f.pmap) dat.pmap = lu::parse_pmap_flag(*f.pmap);
  if (f.pfact) dat.pfacts = {lu::parse_factorization_flag("--pfact", *f.pfact)};
  if (f.rfact) dat.rfacts = {lu::parse_factorization_flag("--rfact", *f.rfact)};
  if (f.nbmin) dat.nbmins = {*f.nbmin};
  if (f.nbmin && *f.nbmin < 1) throw UsageError(fmt::format("--nbmin {}: allowed: >= 1", *f.nbmin));
  if (f.ndiv) dat.ndivs = {*f.ndiv};
  if (f.ndiv && *f.ndiv < 2) throw UsageError(fmt::format("--ndiv {}: allowed: >= 2", *f.ndiv));
  if (f.bcast) dat.bcasts = {lu::parse_bcast_flag(*f.bcast)};
  if (f.depth) dat.depths = {*f.depth};
  if (f.depth && *f.depth < 0) throw UsageError(fmt::format("--depth {}: allowed: >= 0", *f.depth));
  if (f.swap) dat.swap = lu::parse_swap_flag(*f.swap);
  if (f.swap_threshold) dat.swap_threshold = std::max(0, *f.swap_threshold);
  if (f.threshold) {
    if (!std::isfinite(*f.threshold))
      throw UsageError(fmt::format("--threshold {}: allowed: a finite number", *f.threshold));
    dat.threshold = *f.threshold;
  }
  dat.ns.clear();
  if (f.n) {
    if (*f.n < 0) throw UsageError(fmt::format("--n {}: allowed: N >= 0", *f.n));
    dat.ns = {*f.n};
  }
  return dat;
}

std::vector<std::string> test_flag_args(const LuTestFlags& f) {
  std::vector<std::string> args;
  auto add = [&](const char* name, const auto& value) {
    if (!value) return;
    args.push_back(name);
    args.push_back(fmt::format("{}", *value));
  };
  add("--n", f.n);
  add("--nb", f.nb);
  add("--grid", f.grid);
  add("--pmap", f.pmap);
  add("--pfact", f.pfact);
  add("--rfact", f.rfact);
  add("--nbmin", f.nbmin);
  add("--ndiv", f.ndiv);
  add("--bcast", f.bcast);
  add("--depth", f.depth);
  add("--swap", f.swap);
  add("--swap-threshold", f.swap_threshold);
  add("--threshold", f.threshold);
  return args;
}

void add_preflight_flags(CLI::App& sub, std::string& mode, double& threshold) {
  sub.add_option("--preflight", mode,
                 "before the run, every rank measures its DGEMM at the run's update shape, its "
                 "memory bandwidth and its links to its grid neighbours (about a second), and "
                 "the ranks more than the threshold below the others' median are named: on "
                 "(then the run), strict (stop with exit status 4 when one is slow), off "
                 "(default: on with more than one host)")
      ->check(CLI::IsMember({"off", "on", "strict"}));
  sub.add_option("--preflight-threshold", threshold,
                 "how far below the others' median a rank's figure must be to be named: a "
                 "fraction (default 0.10, 10%)")
      ->check(finite_in(0.001, 0.999, "a fraction in [0.001, 0.999], e.g. 0.10 for 10%"));
}

double parse_duration(const std::string& flag, const std::string& value) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = used > 0 ? value.substr(used) : "";
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (used == 0 || scale == 0 || !std::isfinite(v) || v <= 0 || v * scale > 1e9)
    throw UsageError(
        fmt::format("{} {}: not a duration; allowed: a positive number of seconds, "
                    "or with s, m or h (e.g. 30m, 1.5h)",
                    flag, value));
  return v * scale;
}

}  // namespace hplx::app
