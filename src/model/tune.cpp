#include "model/tune.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "model/prediction.hpp"

namespace hplx::model {
namespace {

// A simulation's wall time grows faster than its panel count: each panel's
// host-side work (pivots, row swaps, the kernels' bookkeeping) grows with
// the local matrix. `hplx sim` of the dgx-h100 spec on 64 ranks took 7.6 s
// for 128 panels and 67 s for 512 (NB 512: panels^1.6), and 6.7 s for 181
// panels and 280 s for 711 (NB 256, on a loaded machine: panels^2.7). The
// budget's estimates take panels^2 from the largest simulation so far.
constexpr double kSimCostExponent = 2.0;
// Panels of the first, small simulation that measures the simulator's cost.
constexpr long kProbePanels = 16;
// The share of the budget for the model's best candidates; the rest tries
// the variants (depth, broadcast, split) on the best of them.
constexpr double kFirstRoundShare = 0.6;

const char* bcast_name(int code) {
  static const char* names[] = {"1ring", "1ringM", "2ring", "2ringM", "Blong", "BlongM"};
  return code >= 0 && code < 6 ? names[code] : "?";
}

// (ranks per node, threads per rank) the search tries. GPU ranks: one per
// device. CPU ranks: every split of the node's cores into equal ranks whose
// thread count the spec has a measured rate for (a calibrated spec), else
// the spec's devices per node.
std::vector<std::pair<int, int>> rank_layouts(const SystemSpec& spec) {
  const int devices = spec.node.devices;
  if (spec_is_gpu(spec)) return {{devices, 0}};
  const int cores = node_cores(spec);
  const auto& by = spec.device.dgemm_gflops_by_threads;
  std::vector<std::pair<int, int>> out;
  if (!by.empty() && cores > 0)
    for (int r = 1; r <= std::min(devices, cores); ++r)
      if (cores % r == 0 && by.count(cores / r)) out.emplace_back(r, cores / r);
  if (out.empty()) out.emplace_back(devices, cores >= devices ? cores / devices : 0);
  return out;
}

long panels(long n, int nb) {
  return (n + nb - 1) / nb;
}

// A variant replaces the best so far only when the simulator finds it this
// much faster: smaller differences are within a simulation's own spread
// (its DGEMM calls vary by dgemm_cv).
constexpr double kMinGain = 0.01;

std::vector<double> model_iter_s(const SystemSpec& spec, const TuneCandidate& c, int nodes) {
  return predict_run(spec, c.n, c.nb, c.p, c.q, c.threads, nodes).iter_s;
}

// The simulator's running cost estimate: seconds = scale * panels^exponent,
// the scale of the largest simulation so far (a small one's start-up cost
// overstates the cost per panel).
struct SimCost {
  double scale = 0;
  long largest = 0;
  void observe(long pan, double wall_s) {
    if (pan < largest) return;
    largest = pan;
    scale = wall_s / std::pow(static_cast<double>(pan), kSimCostExponent);
  }
  double seconds(long pan) const {
    return scale * std::pow(static_cast<double>(pan), kSimCostExponent);
  }
  // The most panels that fit in `seconds`.
  long panels_within(double s) const {
    return scale > 0 ? static_cast<long>(std::pow(s / scale, 1.0 / kSimCostExponent)) : 0;
  }
};

class Search {
 public:
  Search(const SystemSpec& spec, const TuneOptions& opt, const Simulate& sim,
         const TuneProgress& progress, TuneResult& r)
      : spec_(spec), opt_(opt), sim_(sim), progress_(progress), r_(r) {}

  void rank_by_model();
  void simulate_best();

 private:
  void say(const std::string& line) {
    if (progress_) progress_(line);
  }
  // Simulates c at n_sim (the full N when it fits) and fills its fields.
  TuneCandidate run(TuneCandidate c, long n_sim);
  // The N a simulation of c may run within `seconds`.
  long sim_n_for(const TuneCandidate& c, double seconds) const;
  double left() const { return opt_.budget_s - r_.sim_wall_s; }

  const SystemSpec& spec_;
  const TuneOptions& opt_;
  const Simulate& sim_;
  const TuneProgress& progress_;
  TuneResult& r_;
  SimCost cost_;
};

void Search::rank_by_model() {
  const double fraction =
      opt_.memory_fraction > 0 ? opt_.memory_fraction : spec_.run.memory_fraction.value_or(0.8);
  const std::vector<int> nbs = opt_.nbs.empty() ? default_nbs(spec_) : opt_.nbs;
  std::set<std::string> refused;
  std::string first_refusal;
  for (const auto& [rpn, threads] : rank_layouts(spec_)) {
    const int ranks = opt_.nodes * rpn;
    for (int p = 1; p <= ranks; ++p) {
      if (ranks % p) continue;
      for (int nb : nbs) {
        TuneCandidate c;
        c.nb = nb;
        c.p = p;
        c.q = ranks / p;
        c.ranks_per_node = rpn;
        c.threads = threads;
        c.depth = spec_.schedule.look_ahead > 0 ? 1 : 0;
        c.n = opt_.n > 0 ? opt_.n : n_from_memory(spec_, opt_.nodes, fraction, nb);
        try {
          const Prediction pr = predict_run(spec_, c.n, nb, c.p, c.q, threads, opt_.nodes);
          c.model_gflops = pr.gflops;
          c.model_time_s = pr.time_s;
          r_.ranked.push_back(c);
        } catch (const UsageError& e) {
          const std::string why = fmt::format("{}x{}: {}", c.p, c.q, e.what());
          if (refused.insert(fmt::format("{}x{}", c.p, c.q)).second)
            r_.notes.push_back("not placed: " + why);
          if (first_refusal.empty()) first_refusal = e.what();
        }
      }
    }
  }
  if (r_.ranked.empty())
    throw UsageError(fmt::format(
        "{}: no P x Q of {} node(s) can be placed ({}); allowed: --nodes whose ranks the spec's "
        "node layout (node.devices, node.grid) divides",
        spec_.file, opt_.nodes, first_refusal));
  std::stable_sort(r_.ranked.begin(), r_.ranked.end(),
                   [](const TuneCandidate& a, const TuneCandidate& b) {
                     return a.model_gflops > b.model_gflops;
                   });
  r_.chosen = r_.ranked.front();
}

// The order of the trailing matrix the last `fit` panels factor: n less
// whole panels, so each simulated panel is one of the full run's.
long Search::sim_n_for(const TuneCandidate& c, double seconds) const {
  const long full = panels(c.n, c.nb);
  const long fit = std::max(kProbePanels, cost_.panels_within(seconds));
  return fit >= full ? c.n : c.n - (full - fit) * c.nb;
}

TuneCandidate Search::run(TuneCandidate c, long n_sim) {
  const SimOutcome out = sim_(c, n_sim);
  r_.sim_wall_s += out.wall_s;
  cost_.observe(panels(n_sim, c.nb), out.wall_s);
  c.simulated = true;
  c.sim_n = n_sim;
  c.sim_gflops = out.gflops;
  c.sim_wall_s = out.wall_s;
  c.estimate_gflops = n_sim >= c.n
                          ? out.gflops
                          : stitched_gflops(c.n, c.nb, n_sim, model_iter_s(spec_, c, opt_.nodes),
                                            out, c.head_scale);
  r_.simulated.push_back(c);
  say(fmt::format(
      "hplx tune: simulated {} at N={}: {:.4g} Gflops{} ({:.1f} s)", c.label(), n_sim, out.gflops,
      c.extrapolated() ? fmt::format(", {:.4g} at N={} with the model's first {} panels x {:.3f}",
                                     c.estimate_gflops, c.n,
                                     panels(c.n, c.nb) - panels(n_sim, c.nb), c.head_scale)
                       : "",
      out.wall_s));
  return c;
}

void Search::simulate_best() {
  if (opt_.budget_s <= 0 || !sim_) return;
  // The simulator's cost, measured on the model's best at a small N.
  const TuneCandidate& first = r_.ranked.front();
  const long probe_n = std::min(first.n, kProbePanels * first.nb);
  const SimOutcome probe = sim_(first, probe_n);
  r_.sim_wall_s += probe.wall_s;
  cost_.observe(panels(probe_n, first.nb), probe.wall_s);
  r_.notes.push_back(fmt::format(
      "the simulator's cost: {:.1f} s for {} panels (N={}), estimated as panels^{} from there",
      probe.wall_s, panels(probe_n, first.nb), probe_n, kSimCostExponent));

  // The model's best few, each within its share of the first round.
  const size_t k = std::min<size_t>(static_cast<size_t>(opt_.top), r_.ranked.size());
  const double share = left() * kFirstRoundShare / static_cast<double>(k);
  std::vector<TuneCandidate> done;
  for (size_t i = 0; i < k; ++i) {
    const TuneCandidate& c = r_.ranked[i];
    const long n_sim = sim_n_for(c, share);
    if (cost_.seconds(panels(n_sim, c.nb)) > left()) {
      r_.notes.push_back(fmt::format("budget spent after {} of the model's best {}", i, k));
      break;
    }
    TuneCandidate d = run(c, n_sim);
    // The first estimate came from the small probe, whose start-up weighs
    // on its few panels: with the first real simulation's cost the share
    // may hold a much larger N, which the rest of the round will get. The
    // first candidate is simulated again at it, so the round compares like
    // with like (its smaller run stays in the record).
    const long again = sim_n_for(c, share);
    if (i == 0 && again > n_sim + n_sim / 2 && cost_.seconds(panels(again, c.nb)) <= left())
      d = run(c, again);
    done.push_back(d);
  }
  if (done.empty()) return;
  TuneCandidate best = *std::max_element(done.begin(), done.end(),
                                         [](const TuneCandidate& a, const TuneCandidate& b) {
                                           return a.best_gflops() < b.best_gflops();
                                         });

  // The variants, one change at a time from the best so far, at its N.
  std::vector<std::function<void(TuneCandidate&)>> variants;
  variants.push_back([](TuneCandidate& c) { c.depth = c.depth > 0 ? 0 : 1; });
  for (int b = 0; b < 6; ++b) variants.push_back([b](TuneCandidate& c) { c.bcast = b; });
  if (spec_is_gpu(spec_))
    for (double s : {0.0, 0.25, 0.75}) variants.push_back([s](TuneCandidate& c) { c.split = s; });
  for (const auto& change : variants) {
    TuneCandidate v = best;
    change(v);
    if (v.bcast == best.bcast && v.depth == best.depth && v.split == best.split) continue;
    if (v.split >= 0 && v.p == 1) continue;           // no row swap to hide: hplx lu leaves it off
    if (v.bcast != best.bcast && v.q == 1) continue;  // one process column: nothing broadcast
    if (cost_.seconds(panels(best.sim_n, v.nb)) > left()) {
      r_.notes.push_back("budget spent before every variant was simulated");
      break;
    }
    v = run(v, best.sim_n);
    if (v.best_gflops() > best.best_gflops() * (1 + kMinGain)) best = v;
  }
  r_.chosen = best;
  if (best.extrapolated())
    r_.notes.push_back(fmt::format(
        "the choice's last {} panels were simulated (N={}), its first {} are the model's times "
        "{:.3f} (the simulated over the model's seconds of the largest simulated panels, where "
        "they are at least half of N; else 1)",
        panels(best.sim_n, best.nb), best.sim_n,
        panels(best.n, best.nb) - panels(best.sim_n, best.nb), best.head_scale));
}

}  // namespace

double stitched_gflops(long n, int nb, long n_sim, const std::vector<double>& model_iter_s,
                       const SimOutcome& sim, double& head_scale) {
  const long k = panels(n, nb), ks = static_cast<long>(sim.iter_s.size()), head = k - ks;
  if (ks < 1 || head < 0 || static_cast<long>(model_iter_s.size()) != k || panels(n_sim, nb) != ks)
    throw Error(fmt::format("tune: {} simulated panels of N={} do not end the {} of N={}", ks,
                            n_sim, k, n));
  // The largest simulated panels stand for the head only when they are of
  // its kind: trailing matrices of at least half the order. Smaller ones
  // are bound by latency and FACT where the head is bound by the update,
  // and their ratio would misstate it (2.2 for the dgx-h100 spec's 8 nodes
  // with 168 of 2985 panels simulated); then the head is the model's own.
  head_scale = 1.0;
  if (2 * n_sim >= n) {
    const long j = std::max(1L, ks / 4);
    double sim_s = 0, model_s = 0;
    for (long i = 0; i < j; ++i) {
      sim_s += sim.iter_s[static_cast<size_t>(i)];
      model_s += model_iter_s[static_cast<size_t>(head + i)];
    }
    if (model_s > 0) head_scale = sim_s / model_s;
  }
  double t = 0;
  for (long i = 0; i < head; ++i) t += head_scale * model_iter_s[static_cast<size_t>(i)];
  for (double s : sim.iter_s) t += s;
  const double flops =
      2.0 / 3.0 * std::pow(static_cast<double>(n), 3) + 1.5 * std::pow(static_cast<double>(n), 2);
  return t > 0 ? flops / t * 1e-9 : 0;
}

std::string TuneCandidate::label() const {
  std::string s = fmt::format("NB={} {}x{} ({} rank{}/node", nb, p, q, ranks_per_node,
                              ranks_per_node == 1 ? "" : "s");
  if (threads > 0) s += fmt::format(" x {} thread{}", threads, threads == 1 ? "" : "s");
  s += fmt::format(") BCAST={} DEPTH={}", bcast_name(bcast), depth);
  if (split >= 0) s += fmt::format(" split={}", split);
  return s;
}

bool spec_is_gpu(const SystemSpec& spec) {
  return spec.device.gpu.value_or(spec.host.present);
}

int node_cores(const SystemSpec& spec) {
  if (spec.node.cores) return *spec.node.cores;
  return spec_is_gpu(spec) ? 0 : spec.node.devices;
}

std::vector<int> default_nbs(const SystemSpec& spec) {
  if (spec_is_gpu(spec)) return {256, 384, 512, 768, 1024};
  return {64, 96, 128, 160, 192, 224, 256, 320, 384};
}

TuneResult tune(const SystemSpec& spec, const TuneOptions& opt, const Simulate& simulate,
                const TuneProgress& progress) {
  if (opt.nodes < 1)
    throw UsageError(fmt::format("--nodes {}: allowed: a whole number >= 1", opt.nodes));
  if (!(opt.memory_fraction >= 0 && opt.memory_fraction < 1))
    throw UsageError(
        fmt::format("--memory-fraction {}: allowed: a number in (0, 1)", opt.memory_fraction));
  if (!(opt.budget_s >= 0) || !std::isfinite(opt.budget_s))
    throw UsageError(
        fmt::format("--budget {}: allowed: seconds >= 0 (0: the model only)", opt.budget_s));
  if (opt.top < 1) throw UsageError(fmt::format("--top {}: allowed: >= 1", opt.top));
  for (int nb : opt.nbs)
    if (nb < 1) throw UsageError(fmt::format("--nbs {}: allowed: block sizes >= 1", nb));
  if (opt.budget_s > 0 && !simulate)
    throw UsageError("a simulation budget was given but no simulator is available");
  TuneResult r;
  r.is_gpu = spec_is_gpu(spec);
  Search search(spec, opt, simulate, progress, r);
  search.rank_by_model();
  search.simulate_best();
  return r;
}

namespace {

nlohmann::json candidate_json(const TuneCandidate& c) {
  nlohmann::json j = {{"n", c.n},
                      {"nb", c.nb},
                      {"p", c.p},
                      {"q", c.q},
                      {"ranks_per_node", c.ranks_per_node},
                      {"threads", c.threads},
                      {"bcast", c.bcast},
                      {"bcast_name", bcast_name(c.bcast)},
                      {"depth", c.depth},
                      {"model_gflops", c.model_gflops},
                      {"model_time_s", c.model_time_s}};
  if (c.split >= 0) j["split"] = c.split;
  if (c.simulated) {
    j["sim_n"] = c.sim_n;
    j["sim_gflops"] = c.sim_gflops;
    j["sim_wall_s"] = c.sim_wall_s;
    j["estimate_gflops"] = c.estimate_gflops;
    j["extrapolated"] = c.extrapolated();
    if (c.extrapolated()) j["head_scale"] = c.head_scale;
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const TuneResult& r, const TuneOptions& opt, const std::string& spec_path) {
  nlohmann::json ranked = nlohmann::json::array(), simulated = nlohmann::json::array();
  for (const auto& c : r.ranked) ranked.push_back(candidate_json(c));
  for (const auto& c : r.simulated) simulated.push_back(candidate_json(c));
  return {{"command", "tune"},
          {"spec", spec_path},
          {"gpu", r.is_gpu},
          {"options",
           {{"nodes", opt.nodes},
            {"memory_fraction", opt.memory_fraction},
            {"n", opt.n},
            {"nbs", opt.nbs},
            {"budget_s", opt.budget_s},
            {"top", opt.top}}},
          {"candidates", ranked},
          {"simulated", simulated},
          {"chosen", candidate_json(r.chosen)},
          {"sim_wall_s", r.sim_wall_s},
          {"notes", r.notes}};
}

}  // namespace hplx::model
