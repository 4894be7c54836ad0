#include "core/top500.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace hplx {

namespace {

std::string gf(double v) {
  return fmt::format("{:.4g}", v);
}

}  // namespace

std::optional<Top500Figures> top500_figures(const std::vector<SweepPoint>& passed,
                                            const std::optional<Rpeak>& rpeak,
                                            const std::string& rpeak_why_not,
                                            const std::optional<BlasKernels>& blas) {
  if (passed.empty()) return std::nullopt;
  Top500Figures f;
  f.tests = static_cast<int>(passed.size());
  // Rmax: the best test; on a tie the smaller N (it reached the rate first).
  const SweepPoint* best = &passed.front();
  for (const SweepPoint& p : passed)
    if (p.gflops > best->gflops || (p.gflops == best->gflops && p.n < best->n)) best = &p;
  f.rmax_gflops = best->gflops;
  f.nmax = best->n;
  f.nmax_nb = best->nb;
  if (best->watts && *best->watts > 0) {
    f.rmax_watts = best->watts;
    f.rmax_gflops_per_watt = best->gflops / *best->watts;
  }

  // The best rate at each N (several NB or grids may share one N).
  std::map<long, double> by_n;
  for (const SweepPoint& p : passed) by_n[p.n] = std::max(by_n[p.n], p.gflops);
  f.distinct_n = static_cast<int>(by_n.size());
  const double half = f.rmax_gflops / 2;
  std::optional<long> below_half;  // the largest N under the candidate that stays below half
  for (const auto& [n, g] : by_n) {
    if (n >= f.nmax) break;
    if (g >= half) {
      f.n_half = n;
      break;
    }
    below_half = n;
  }
  const std::string rule = fmt::format(
      "the smallest N measured below Nmax = {} whose best rate "
      "reaches half of Rmax ({} Gflops)",
      f.nmax, gf(half));
  if (f.n_half) {
    f.n_half_how = fmt::format("{}: N = {} at {} Gflops", rule, *f.n_half, gf(by_n[*f.n_half]));
    f.n_half_how +=
        below_half
            ? fmt::format("; N = {} reached {} Gflops, so the true N_half lies between {} and {}",
                          *below_half, gf(by_n[*below_half]), *below_half, *f.n_half)
            : fmt::format("; no smaller N was measured, so the true N_half is at most {}",
                          *f.n_half);
  } else if (!below_half) {
    f.n_half_how = fmt::format(
        "not measured: no N below Nmax = {} was run (add smaller N to the HPL.dat)", f.nmax);
  } else {
    f.n_half_how = fmt::format(
        "not measured: no N below Nmax = {} reached half of Rmax ({} Gflops); the largest, "
        "N = {}, reached {} Gflops, so N_half lies between {} and {}",
        f.nmax, gf(half), *below_half, gf(by_n[*below_half]), *below_half, f.nmax);
  }

  if (rpeak && rpeak->gflops > 0) {
    f.rpeak_gflops = rpeak->gflops;
    f.rpeak_source = rpeak->source;
    f.rmax_over_rpeak = f.rmax_gflops / rpeak->gflops;
    if (blas) {
      f.blas_kernels = describe(*blas);
      f.rpeak_reachable_share = blas->reachable_share();
    }
  } else {
    f.rpeak_source = rpeak_why_not.empty() ? "not known" : rpeak_why_not;
  }
  return f;
}

nlohmann::json to_json(const Top500Figures& f) {
  nlohmann::json j = {
      {"tests_counted", f.tests},
      {"distinct_n", f.distinct_n},
      {"rmax_gflops", f.rmax_gflops},
      {"nmax", f.nmax},
      {"nmax_nb", f.nmax_nb},
      {"n_half", f.n_half ? nlohmann::json(*f.n_half) : nlohmann::json("not measured")},
      {"n_half_how", f.n_half_how},
      {"rpeak_gflops", f.rpeak_gflops ? nlohmann::json(*f.rpeak_gflops) : nlohmann::json()},
      {"rpeak_source", f.rpeak_source},
      {"rmax_over_rpeak",
       f.rmax_over_rpeak ? nlohmann::json(*f.rmax_over_rpeak) : nlohmann::json()},
  };
  if (!f.blas_kernels.empty()) j["blas_kernels"] = f.blas_kernels;
  if (f.rpeak_reachable_share) j["rpeak_reachable_by_blas"] = *f.rpeak_reachable_share;
  if (f.rmax_watts) j["rmax_watts"] = *f.rmax_watts;
  if (f.rmax_gflops_per_watt) j["rmax_gflops_per_watt"] = *f.rmax_gflops_per_watt;
  return j;
}

std::vector<std::string> describe(const Top500Figures& f) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format(
      "hplx: TOP500 figures of the {} passed tests ({} distinct N):", f.tests, f.distinct_n));
  lines.push_back(fmt::format("hplx:   Rmax    {} Gflops", gf(f.rmax_gflops)));
  lines.push_back(fmt::format("hplx:   Nmax    {} (NB {})", f.nmax, f.nmax_nb));
  lines.push_back(f.n_half ? fmt::format("hplx:   N_half  {} ({})", *f.n_half, f.n_half_how)
                           : fmt::format("hplx:   N_half  {}", f.n_half_how));
  lines.push_back(f.rpeak_gflops ? fmt::format("hplx:   Rpeak   {} Gflops ({})",
                                               gf(*f.rpeak_gflops), f.rpeak_source)
                                 : fmt::format("hplx:   Rpeak   not known: {}", f.rpeak_source));
  if (f.rmax_over_rpeak)
    lines.push_back(fmt::format("hplx:   Rmax/Rpeak {:.1f}%", 100 * *f.rmax_over_rpeak));
  // Rmax/Rpeak read beside what the BLAS can reach at most.
  if (f.rpeak_reachable_share && *f.rpeak_reachable_share < 1)
    lines.push_back(fmt::format("hplx:   BLAS    at most {:.0f}% of Rpeak: {}",
                                100 * *f.rpeak_reachable_share, f.blas_kernels));
  if (f.rmax_gflops_per_watt)
    lines.push_back(fmt::format("hplx:   Green500: {:.3f} Gflops/W at Rmax ({:.1f} W)",
                                *f.rmax_gflops_per_watt, *f.rmax_watts));
  return lines;
}

}  // namespace hplx
