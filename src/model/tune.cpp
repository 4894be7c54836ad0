#include "model/tune.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/error.hpp"
#include "model/prediction.hpp"

namespace hplx::model {
namespace {

// A simulation's wall time grows faster than its panel count: each panel's
// host-side work (pivots, row swaps, the kernels' bookkeeping) grows with
// the local matrix. `hplx sim` of the dgx-h100 spec on 64 ranks took 7.6 s
// for 128 panels and 67 s for 512 (NB 512: panels^1.6), and 6.7 s for 181
// panels and 280 s for 711 (NB 256, on a loaded machine: panels^2.7); and
// it depends on the grid (32x2 took 14 times as long as 2x32 per panel^2:
// the pivot search crosses 32 ranks per column). So each grid and NB gets
// its own estimate, start-up + scale * panels^2, from two small probes, and
// the largest simulation of it so far corrects the scale.
constexpr double kSimCostExponent = 2.0;
// Panels of the two small simulations that measure a candidate's cost.
constexpr long kProbePanels = 16, kSecondProbePanels = 48;
// A simulation may run this many times its estimate (and never past the
// budget) before it is stopped.
constexpr double kOverrun = 2.0;
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
  return predict_run(spec, c.n, c.nb, c.p, c.q, c.threads, nodes, c.fact_on.value_or(FactOn::Host))
      .iter_s;
}

// Where FACT may run: both places for a spec with a [host] table (its
// figures describe each), unless the options name one; else nowhere to
// choose.
std::vector<std::optional<FactOn>> fact_places(const SystemSpec& spec, const TuneOptions& opt) {
  if (!spec.host.present) return {std::nullopt};
  if (opt.fact_on) return {opt.fact_on};
  return {FactOn::Host, FactOn::Device};
}

// What simulating one grid and NB costs: seconds = startup + scale *
// panels^2, from its probes, then the scale of its largest simulation.
struct SimCost {
  double startup = 0, scale = 0;
  long largest = 0;
  void probes(long p1, double w1, long p2, double w2) {
    const double a = std::pow(static_cast<double>(p1), kSimCostExponent);
    const double b = std::pow(static_cast<double>(p2), kSimCostExponent);
    scale = (w2 - w1) / (b - a);
    if (!(scale > 0)) scale = w2 / b;  // noise: no start-up to tell apart
    startup = std::max(0.0, w1 - scale * a);
    largest = p2;
  }
  void observe(long pan, double wall_s) {
    if (pan <= largest) return;
    largest = pan;
    scale = std::max(wall_s - startup, 0.0) / std::pow(static_cast<double>(pan), kSimCostExponent);
  }
  double seconds(long pan) const {
    return startup + scale * std::pow(static_cast<double>(pan), kSimCostExponent);
  }
  // The most panels that fit in `seconds`.
  long panels_within(double s) const {
    return scale > 0 ? static_cast<long>(
                           std::pow(std::max(s - startup, 0.0) / scale, 1.0 / kSimCostExponent))
                     : 0;
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
  // Simulates c at n_sim (the full N when it fits) and fills its fields;
  // false when it did not finish within its time (kOverrun, the budget).
  bool run(TuneCandidate& c, long n_sim);
  // The cost of c's grid and NB, probed when not yet known; false when the
  // probes did not finish within the budget.
  bool probe(const TuneCandidate& c);
  SimOutcome timed(const TuneCandidate& c, long n, double limit_s);
  long tail_for(const TuneCandidate& c, double seconds) const;
  long sim_n_with_tail(const TuneCandidate& c, long tail) const;
  double left() const { return opt_.budget_s - r_.sim_wall_s; }
  using CostKey = std::tuple<int, int, int, int>;  // p, q, nb, ranks per node
  static CostKey key(const TuneCandidate& c) { return {c.p, c.q, c.nb, c.ranks_per_node}; }

  const SystemSpec& spec_;
  const TuneOptions& opt_;
  const Simulate& sim_;
  const TuneProgress& progress_;
  TuneResult& r_;
  std::map<CostKey, SimCost> cost_;
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
      for (int nb : nbs)
        for (const std::optional<FactOn>& fact_on : fact_places(spec_, opt_)) {
          TuneCandidate c;
          c.fact_on = fact_on;
          c.nb = nb;
          c.p = p;
          c.q = ranks / p;
          c.ranks_per_node = rpn;
          c.threads = threads;
          c.depth = spec_.schedule.look_ahead > 0 ? 1 : 0;
          c.n = opt_.n > 0 ? opt_.n : n_from_memory(spec_, opt_.nodes, fraction, nb);
          try {
            const Prediction pr = predict_run(spec_, c.n, nb, c.p, c.q, threads, opt_.nodes,
                                              fact_on.value_or(FactOn::Host));
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

// The trailing order the last panels of c that fit in `seconds` factor
// (at least the second probe's panels; at most n).
long Search::tail_for(const TuneCandidate& c, double seconds) const {
  const long fit = std::max(kSecondProbePanels, cost_.at(key(c)).panels_within(seconds));
  return std::min(c.n, fit * c.nb);
}

// The order of the trailing matrix whose LU is c's last panels over at
// least `tail` rows: n less whole panels, so each simulated panel is one of
// the full run's.
long Search::sim_n_with_tail(const TuneCandidate& c, long tail) const {
  const long full = panels(c.n, c.nb), keep = std::min(full, panels(tail, c.nb));
  return keep >= full ? c.n : c.n - (full - keep) * c.nb;
}

SimOutcome Search::timed(const TuneCandidate& c, long n, double limit_s) {
  SimOutcome out = sim_(c, n, std::max(0.0, limit_s));
  r_.sim_wall_s += out.wall_s;
  if (!out.finished)
    r_.notes.push_back(fmt::format("the simulation of {} at N={} was stopped after {:.0f} s",
                                   c.label(), n, out.wall_s));
  return out;
}

bool Search::probe(const TuneCandidate& c) {
  if (cost_.count(key(c))) return true;
  const long p1 = std::min(panels(c.n, c.nb), kProbePanels);
  const long p2 = std::min(panels(c.n, c.nb), kSecondProbePanels);
  const SimOutcome a = timed(c, std::min(c.n, p1 * c.nb), left());
  if (!a.finished) return false;
  const SimOutcome b = timed(c, std::min(c.n, p2 * c.nb), left());
  if (!b.finished) return false;
  SimCost& cost = cost_[key(c)];
  if (p2 > p1)
    cost.probes(p1, a.wall_s, p2, b.wall_s);
  else
    cost.observe(p2, b.wall_s);
  r_.notes.push_back(fmt::format(
      "simulating NB={} {}x{} costs {:.1f} s for {} panels and {:.1f} s for {}: start-up {:.1f} s "
      "+ panels^2 x {:.3g} s",
      c.nb, c.p, c.q, a.wall_s, p1, b.wall_s, p2, cost.startup, cost.scale));
  return true;
}

bool Search::run(TuneCandidate& c, long n_sim) {
  SimCost& cost = cost_.at(key(c));
  const long pan = panels(n_sim, c.nb);
  const SimOutcome out = timed(c, n_sim, std::min(left(), kOverrun * cost.seconds(pan) + 5));
  if (!out.finished) return false;
  cost.observe(pan, out.wall_s);
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
  return true;
}

void Search::simulate_best() {
  if (opt_.budget_s <= 0 || !sim_) return;
  // The model's best few, each probed, then simulated within its share of
  // the first round, all over the same trailing order: a candidate whose
  // simulation costs more must not get a shorter tail (and more of the
  // model's head) than the others.
  const size_t k = std::min<size_t>(static_cast<size_t>(opt_.top), r_.ranked.size());
  const double share = opt_.budget_s * kFirstRoundShare / static_cast<double>(k);
  std::vector<TuneCandidate> probed;
  long tail = 0;
  for (size_t i = 0; i < k; ++i) {
    const TuneCandidate& c = r_.ranked[i];
    if (!probe(c)) break;
    probed.push_back(c);
    const long t = tail_for(c, share);
    tail = tail == 0 ? t : std::min(tail, t);
  }
  std::vector<TuneCandidate> done;
  for (size_t i = 0; i < probed.size(); ++i) {
    TuneCandidate c = probed[i];
    const long n_sim = sim_n_with_tail(c, tail);
    if (cost_.at(key(c)).seconds(panels(n_sim, c.nb)) > left()) {
      r_.notes.push_back(
          fmt::format("budget spent after {} of the model's best {}", i, probed.size()));
      break;
    }
    if (run(c, n_sim)) done.push_back(c);
  }
  if (done.empty()) return;
  TuneCandidate best = *std::max_element(done.begin(), done.end(),
                                         [](const TuneCandidate& a, const TuneCandidate& b) {
                                           return a.best_gflops() < b.best_gflops();
                                         });

  // The variants, one change at a time from the best so far, at its N
  // (the same grid and NB: its cost estimate holds).
  std::vector<std::function<void(TuneCandidate&)>> variants;
  // FACT's other place first: on a GPU it moves the rate most (3.4 times
  // on the H200, docs/SIM.md "One H200"), and every later variant is tried
  // from the faster.
  if (fact_places(spec_, opt_).size() > 1)
    variants.push_back([](TuneCandidate& c) {
      c.fact_on = c.fact_on == FactOn::Device ? FactOn::Host : FactOn::Device;
    });
  variants.push_back([](TuneCandidate& c) { c.depth = c.depth > 0 ? 0 : 1; });
  for (int b = 0; b < 6; ++b) variants.push_back([b](TuneCandidate& c) { c.bcast = b; });
  if (spec_is_gpu(spec_))
    for (double s : {0.0, 0.25, 0.75}) variants.push_back([s](TuneCandidate& c) { c.split = s; });
  for (const auto& change : variants) {
    TuneCandidate v = best;
    change(v);
    if (v.bcast == best.bcast && v.depth == best.depth && v.split == best.split &&
        v.fact_on == best.fact_on)
      continue;
    if (v.split >= 0 && v.p == 1) continue;  // no row swap to hide: hplx lu leaves it off
    // One process column broadcasts nothing, two send the one message
    // whatever the topology.
    if (v.bcast != best.bcast && v.q <= 2) continue;
    if (cost_.at(key(v)).seconds(panels(best.sim_n, v.nb)) > left()) {
      r_.notes.push_back("budget spent before every variant was simulated");
      break;
    }
    if (run(v, best.sim_n) && v.best_gflops() > best.best_gflops() * (1 + kMinGain)) best = v;
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
  if (fact_on) s += fmt::format(" FACT={}", fact_on_name(*fact_on));
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
  if (opt.fact_on && !spec.host.present)
    throw UsageError(fmt::format(
        "--fact-on {}: {} has no [host] table, so its ranks factor where they update; allowed: "
        "--fact-on auto, or a GPU spec with a [host] table",
        fact_on_name(*opt.fact_on), spec.file));
  Search search(spec, opt, simulate, progress, r);
  search.rank_by_model();
  search.simulate_best();
  // The best of each place, from the simulator where it ran both.
  if (fact_places(spec, opt).size() > 1) {
    auto best_of = [&](const std::vector<TuneCandidate>& cs) {
      std::map<FactOn, double> best;
      for (const auto& c : cs)
        if (c.fact_on) best[*c.fact_on] = std::max(best[*c.fact_on], c.best_gflops());
      return best;
    };
    r.best_by_fact = best_of(r.simulated);
    r.best_by_fact_simulated = r.best_by_fact.size() == 2;
    if (!r.best_by_fact_simulated) r.best_by_fact = best_of(r.ranked);
    // The chosen place at the choice's own rate: a variant less than
    // kMinGain faster was not taken and is not what the job runs.
    if (r.chosen.fact_on && r.best_by_fact_simulated == r.chosen.simulated)
      r.best_by_fact[*r.chosen.fact_on] = r.chosen.best_gflops();
  }
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
  if (c.fact_on) j["fact_on"] = fact_on_name(*c.fact_on);
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

nlohmann::json best_by_fact_json(const TuneResult& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [where, g] : r.best_by_fact) j[fact_on_name(where)] = g;
  if (!r.best_by_fact.empty()) j["by"] = r.best_by_fact_simulated ? "simulator" : "model";
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
            {"top", opt.top},
            {"fact_on", opt.fact_on ? fact_on_name(*opt.fact_on) : "auto"}}},
          {"candidates", ranked},
          {"simulated", simulated},
          {"chosen", candidate_json(r.chosen)},
          {"sim_wall_s", r.sim_wall_s},
          {"best_by_fact", best_by_fact_json(r)},
          {"notes", r.notes}};
}

}  // namespace hplx::model
