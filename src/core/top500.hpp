// The figures a site submits to the TOP500 after an HPL sweep, from the
// tests that passed: Rmax (the best Gflops), Nmax (its N), N_half (the
// smallest N measured that reaches half of Rmax), Rpeak (given: detected
// from the CPU, core/cpu_peak.hpp, or from a spec or a flag) and
// Rmax/Rpeak; for the Green500, the Rmax test's Gflops per watt when its
// energy was measured (core/energy.hpp).
//
// N_half is only ever a measured N below Nmax: when none below Nmax reaches
// half of Rmax (or none was run), it is "not measured", and `n_half_how`
// says which measured Ns bracket it, so a site knows what to add.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/blas_kernels.hpp"

namespace hplx {

// One test that passed its residual check.
struct SweepPoint {
  long n = 0;
  int nb = 0;
  double gflops = 0;
  std::optional<double> watts;  // average power during the solve, when measured
};

struct Rpeak {
  double gflops = 0;
  std::string source;  // e.g. "detected: 2 cores x ...", "--rpeak 134", "spec summit.toml: ..."
};

struct Top500Figures {
  int tests = 0;  // tests counted (passed)
  int distinct_n = 0;
  double rmax_gflops = 0;
  long nmax = 0;
  int nmax_nb = 0;
  std::optional<long> n_half;
  std::string n_half_how;  // how it was found, or why it was not
  std::optional<double> rpeak_gflops;
  std::string rpeak_source;  // where Rpeak came from, or why it is not known
  std::optional<double> rmax_over_rpeak;
  // With Rpeak known and the CPU's BLAS doing the work: its kernels against
  // the CPU's units (core/blas_kernels.hpp), and the most of Rpeak they reach.
  std::string blas_kernels;
  std::optional<double> rpeak_reachable_share;
  std::optional<double> rmax_watts, rmax_gflops_per_watt;  // Green500: the Rmax test's
};

// Empty when no test passed. `rpeak` empty: `rpeak_why_not` is recorded.
// `blas`: the kernels of the BLAS that did the work, when the CPU's.
std::optional<Top500Figures> top500_figures(const std::vector<SweepPoint>& passed,
                                            const std::optional<Rpeak>& rpeak,
                                            const std::string& rpeak_why_not = "",
                                            const std::optional<BlasKernels>& blas = std::nullopt);

// {"rmax_gflops", "nmax", "nmax_nb", "n_half" (a number or "not measured"),
//  "n_half_how", "rpeak_gflops" (a number or null), "rpeak_source",
//  "rmax_over_rpeak" (or null), "blas_kernels" and "rpeak_reachable_by_blas"
//  (when known), "tests_counted", "distinct_n",
//  "rmax_watts", "rmax_gflops_per_watt" (when measured)}.
nlohmann::json to_json(const Top500Figures& f);

// The lines `hplx lu` prints on stderr after a sweep, each starting "hplx: ".
std::vector<std::string> describe(const Top500Figures& f);

}  // namespace hplx
