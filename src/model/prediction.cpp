#include "model/prediction.hpp"

#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/gemm_shape.hpp"

namespace hplx::model {
namespace {

// The squarest a x b = d with a | P and b | Q, preferring a <= b (the MCL
// paper's rule for intermediate layers, its section 3.1.4.2).
bool squarest_local(int d, int p, int q, int& a, int& b) {
  bool found = false;
  int best = 0;
  for (int x = 1; x <= d; ++x) {
    if (d % x || p % x || q % (d / x)) continue;
    const int y = d / x;
    const int score = std::abs(x - y) * 2 + (x > y ? 1 : 0);
    if (!found || score < best) {
      found = true;
      best = score;
      a = x;
      b = y;
    }
  }
  return found;
}

double device_rpeak_gflops(const SystemSpec& spec) {
  return spec.rpeak_flops() / 1e9;
}

void finish(Prediction& pr, const SystemSpec& spec) {
  pr.gflops = pr.time_s > 0 ? hpl_flops(pr.n) / pr.time_s / 1e9 : 0.0;
  pr.rpeak_gflops = device_rpeak_gflops(spec) * pr.layout.p * pr.layout.q;
  pr.efficiency = pr.rpeak_gflops > 0 ? pr.gflops / pr.rpeak_gflops : 0.0;
  pr.pivot_s = pr.bcast_s = pr.update_comm_s = 0;
  for (const auto& l : pr.layers) {
    pr.pivot_s += l.pivot_s;
    pr.bcast_s += l.bcast_s;
    pr.update_comm_s += l.update_s;
  }
}

// The order of the model's matrix: N, or the paper's Nnew (N padded up to
// a multiple of NB). Gflops always count the real N, as HPL reports.
long model_n(const SystemSpec& spec, const RunPoint& run) {
  if (spec.n_reading == NReading::AsGiven) return run.n;
  return (run.n + run.nb - 1) / run.nb * run.nb;
}

// Kernel launches per column of the device FACT's leaf on one process row
// (hplx sim's count: docs/SIM.md), for a spec without a measured table.
constexpr double kDeviceFactLaunchesPerColumn = 4;
constexpr double kDefaultLaunchUs = 5;  // hplx sim's default device.launch_us

// One panel's device FACT seconds at (local rows, width), alone and beside
// the update: the measured table, else (both alike) per column its
// launches and device.fact_column_us, and a read and a write of the
// columns right of it (8 rows b^2 bytes in all) at the memory's bandwidth.
std::function<std::pair<double, double>(double, double)> device_fact_time(const SystemSpec& spec) {
  const FactProbe& probe = spec.device.fact_probe;
  if (probe.present())
    return [&probe](double rows, double b) {
      return std::pair{probe.alone_s(rows, b), probe.beside_s(rows, b)};
    };
  const double column_s =
      (kDeviceFactLaunchesPerColumn * spec.device.launch_us.value_or(kDefaultLaunchUs) +
       spec.device.fact_column_us.value_or(0)) *
      1e-6;
  const double bw = spec.memory.present ? spec.memory.bandwidth_Bps : 0;
  return [column_s, bw](double rows, double b) {
    const double t = b * column_s + (bw > 0 ? 8.0 * rows * b * b / bw : 0.0);
    return std::pair{t, t};
  };
}

// The update's DGEMM on a GPU as hplx sim charges it: the spec's DGEMM
// rate times update_share_of_dgemm, at its shape (core/gemm_shape.hpp).
std::function<double(double, double, double, double)> device_gemm_time(const SystemSpec& spec) {
  const double peak = spec.device.update_share_of_dgemm.value_or(1) / spec.gamma_s(0);
  const double half = spec.device.dgemm_half_dim.value_or(0);
  return [peak, half](double m, double n, double k, double flops) {
    if (flops <= 0 || m <= 0 || n <= 0 || k <= 0) return 0.0;
    return flops / gemm_rate_at_shape(peak, half, m, n, k);
  };
}

// The spec's CPU terms at the run's threads (none when the spec has none).
CpuTerms cpu_terms(const SystemSpec& spec, const RunPoint& run) {
  CpuTerms c;
  const Device& d = spec.device;
  if (d.fact_gflops) c.fact_s_per_flop = 1.0 / (*d.fact_gflops * 1e9);
  if (d.fact_column_us) c.fact_column_s = *d.fact_column_us * 1e-6;
  c.trsm_s_per_flop = spec.trsm_s_per_flop(run.threads);
  c.swap_s_per_word = spec.swap_s_per_word(run.threads);
  c.gemm_s_per_flop = spec.update_s_per_flop(run.threads);
  c.threads = std::max(1, run.threads);
  const bool ahead = spec.schedule.look_ahead > 0;
  c.look_ahead = ahead;
  // FACT beside the update needs a second thread; the update keeps the
  // other T - 1 threads' rate meanwhile (of the dealt update when measured).
  if (ahead && spec.schedule.fact_overlap && run.threads >= 2) {
    c.overlap_ratio = c.gemm_s_per_flop > 0
                          ? c.gemm_s_per_flop / spec.update_s_per_flop(run.threads - 1)
                          : spec.gamma_s(run.threads) / spec.gamma_s(run.threads - 1);
    c.chunk_columns = spec.schedule.chunk_columns;
  }
  // FACT on the host of a GPU (hplx lu's device schedule): at the host's
  // rate, plus the panel's copies; beside the device's update it takes
  // nothing from it (r = 1) and leaves no chunk tail.
  if (spec.host.present) c.device_gemm = device_gemm_time(spec);
  if (const HostFact& h = spec.host; h.present && run.fact_on == FactOn::Device) {
    // FACT on the device's panel queue beside the update (hplx lu
    // --fact-on device): no copies; its time as measured alone and beside
    // the update (the update's own loss to it is in update_share_of_dgemm),
    // else the leaf's launches per column and the
    // panel's traffic; the update keeps its rate, no chunk tail.
    c.device_fact = device_fact_time(spec);
    c.overlap_ratio = ahead && spec.schedule.fact_overlap ? 1.0 : -1.0;
    c.chunk_columns = 0;
  } else if (h.present) {
    c.fact_s_per_flop = 1.0 / (h.fact_gflops * 1e9);
    c.fact_column_s = h.fact_column_us * 1e-6;
    c.panel_copy_alpha_s = h.link.alpha_s;
    c.panel_copy_s_per_word = h.link.beta_s();
    c.overlap_ratio = ahead && spec.schedule.fact_overlap ? 1.0 : -1.0;
    c.chunk_columns = 0;
  }
  return c;
}

Prediction from_panels(const std::string& model, const SystemSpec& spec, const RunPoint& run,
                       const Layout& lay, const std::vector<LayerParams>& layers,
                       bool with_cpu_terms) {
  Problem pb{model_n(spec, run), run.nb, lay.p, lay.q, spec.gamma_s(run.threads), {}};
  if (with_cpu_terms) pb.cpu = cpu_terms(spec, run);
  PanelSum s = per_panel_sum(pb, layers);
  Prediction pr;
  pr.model = model;
  pr.n = run.n;
  pr.model_n = pb.n;
  pr.nb = run.nb;
  pr.layout = lay;
  pr.threads = run.threads;
  pr.time_s = s.total_s;
  pr.compute_s = s.compute_s;
  pr.fact_s = s.fact_s;
  pr.fact_total_s = s.fact_total_s;
  pr.trsm_s = s.trsm_s;
  pr.dgemm_s = s.dgemm_s;
  pr.swap_copy_s = s.swap_copy_s;
  pr.tail_s = s.tail_s;
  pr.cpu_terms = with_cpu_terms && pb.cpu.any();
  pr.layers = std::move(s.layers);
  pr.iter_s = std::move(s.iter_s);
  finish(pr, spec);
  return pr;
}

LayerParams last_layer(const SystemSpec& spec, const RunPoint& run, Layout& lay) {
  check_run_point(run);
  lay = plan_layout(spec, run.p, run.q, run.nodes);
  auto layers = mcl_layers(spec, lay, model_n(spec, run));
  LayerParams one = layers.back();
  return one;
}

}  // namespace

void check_run_point(const RunPoint& run) {
  if (run.n < 1) throw UsageError(fmt::format("N = {}: allowed: N >= 1", run.n));
  if (run.nb < 1) throw UsageError(fmt::format("NB = {}: allowed: NB >= 1", run.nb));
  if (run.p < 1 || run.q < 1)
    throw UsageError(fmt::format("grid {}x{}: allowed: P, Q >= 1", run.p, run.q));
  if (run.threads < 0) throw UsageError(fmt::format("threads = {}: allowed: >= 0", run.threads));
}

Layout plan_layout(const SystemSpec& spec, int p, int q, int nodes) {
  Layout lay;
  lay.p = p;
  lay.q = q;
  if (spec.reading == GridReading::LargerIsP && q > p) {
    std::swap(lay.p, lay.q);
    lay.swapped = true;
  }
  const long devices = static_cast<long>(lay.p) * lay.q;
  int per_node = spec.node.devices;
  if (nodes > 0) {
    if (devices % nodes || devices / nodes > spec.node.devices)
      throw UsageError(fmt::format(
          "{}: grid {}x{} on {} node(s) is {} ranks (devices) per node, but the spec describes "
          "nodes of node.devices = {}; allowed: at most {} per node, or a spec made for {} per "
          "node (e.g. `mpirun -np {} hplx model calibrate -o {}` on one node)",
          spec.file, p, q, nodes, static_cast<double>(devices) / nodes, spec.node.devices,
          spec.node.devices, (devices + nodes - 1) / nodes, (devices + nodes - 1) / nodes,
          spec.file));
    per_node = static_cast<int>(devices / nodes);
  }
  if (devices <= per_node) {
    lay.nodes = 1;
    lay.node_p = lay.p;
    lay.node_q = lay.q;
    return lay;
  }
  if (devices % per_node)
    throw UsageError(fmt::format(
        "{}: grid {}x{} has {} devices, not a multiple of node.devices = {}; allowed: a grid "
        "whose P*Q fills whole nodes",
        spec.file, p, q, devices, per_node));
  lay.nodes = static_cast<int>(devices / per_node);
  if (spec.node.grid_p && *spec.node.grid_p * *spec.node.grid_q == per_node &&
      lay.p % *spec.node.grid_p == 0 && lay.q % *spec.node.grid_q == 0) {
    lay.node_p = *spec.node.grid_p;
    lay.node_q = *spec.node.grid_q;
  } else if (!squarest_local(per_node, lay.p, lay.q, lay.node_p, lay.node_q)) {
    throw UsageError(fmt::format(
        "{}: grid {}x{} cannot be cut into nodes of {} devices (no p x q = {} with p | {} and "
        "q | {}); allowed: a grid whose P and Q are multiples of a node-local grid",
        spec.file, p, q, per_node, per_node, lay.p, lay.q));
  }
  return lay;
}

std::vector<LayerParams> mcl_layers(const SystemSpec& spec, const Layout& lay, long n) {
  const double N = static_cast<double>(n);
  std::vector<LayerParams> layers;
  LayerParams dev;
  if (spec.memory.present) {
    dev.name = "memory";
    dev.alpha_s = spec.memory.alpha_s;
    dev.beta_s = spec.memory.beta_s;
  } else {
    // Without a memory layer, traffic inside a device is part of gamma.
    dev.name = "device";
  }
  dev.rows_end = N / lay.p;
  dev.cols_end = N / lay.q;
  layers.push_back(dev);
  const int local = lay.node_p * lay.node_q;
  if (local > 1) {
    LayerParams nl;
    nl.name = spec.node.link.name.empty() ? "node link" : spec.node.link.name;
    nl.alpha_s = spec.node.link.alpha_s;
    nl.beta_s = spec.node.link.beta_s();
    nl.rows_end = N * lay.node_p / lay.p;
    nl.cols_end = N * lay.node_q / lay.q;
    layers.push_back(nl);
  }
  if (lay.nodes > 1) {
    if (!spec.network.present)
      throw UsageError(fmt::format(
          "{}: key 'network': missing, and the run spans {} nodes; allowed: a [network] table "
          "with alpha_us and bandwidth_gbs",
          spec.file, lay.nodes));
    LayerParams net;
    net.name = spec.network.name.empty() ? "network" : spec.network.name;
    net.alpha_s = spec.network.alpha_s;
    net.beta_s = spec.network.beta_s();
    layers.push_back(net);
  }
  layers.back().rows_end = layers.back().cols_end = N;
  return layers;
}

Prediction predict_original_closed(const SystemSpec& spec, const RunPoint& run) {
  Layout lay;
  LayerParams one = last_layer(spec, run, lay);
  Problem pb{model_n(spec, run), run.nb, lay.p, lay.q, spec.gamma_s(run.threads), {}};
  ClosedForm f = closed_form(pb, one.alpha_s, one.beta_s);
  Prediction pr;
  pr.model = "original (closed form)";
  pr.n = run.n;
  pr.model_n = pb.n;
  pr.nb = run.nb;
  pr.layout = lay;
  pr.threads = run.threads;
  pr.time_s = f.total_s();
  pr.compute_s = f.compute_s;
  // The closed form's terms, traced back to the phases they come from:
  // alpha N log2 P pivoting; alpha N/NB + beta N^2/(2P) broadcast;
  // alpha N (log2 P + P - 1)/NB + 3 beta N^2/(2Q) update. (The pivoting
  // beta term and the panel's flops are among the dropped lower orders.)
  const double N = static_cast<double>(pb.n), NB = pb.nb, lp = log2p(lay.p);
  LayerTimes t;
  t.name = one.name;
  t.alpha_s = one.alpha_s;
  t.beta_s = one.beta_s;
  t.rows_end = t.cols_end = N;
  t.pivot_s = one.alpha_s * N * lp;
  t.bcast_s = one.alpha_s * N / NB + one.beta_s * N * N / (2.0 * lay.p);
  t.update_s = one.alpha_s * N * (lp + lay.p - 1.0) / NB + 3.0 * one.beta_s * N * N / (2.0 * lay.q);
  pr.layers.push_back(t);
  finish(pr, spec);
  return pr;
}

Prediction predict_original_panels(const SystemSpec& spec, const RunPoint& run) {
  Layout lay;
  LayerParams one = last_layer(spec, run, lay);
  return from_panels("original (per panel)", spec, run, lay, {one}, false);
}

Prediction predict_mcl(const SystemSpec& spec, const RunPoint& run) {
  check_run_point(run);
  Layout lay = plan_layout(spec, run.p, run.q, run.nodes);
  return from_panels("mcl", spec, run, lay, mcl_layers(spec, lay, model_n(spec, run)), true);
}

Prediction predict_run(const SystemSpec& spec, long n, int nb, int p, int q, int threads, int nodes,
                       FactOn fact_on) {
  return predict_mcl(spec, RunPoint{n, nb, p, q, threads, nodes, fact_on});
}

long n_from_memory(const SystemSpec& spec, int nodes, double fraction, int nb) {
  double bytes_per_node = 0;
  if (spec.device.memory_gib)
    bytes_per_node = *spec.device.memory_gib * spec.node.devices;
  else if (spec.node.memory_gib)
    bytes_per_node = *spec.node.memory_gib;
  else
    throw UsageError(fmt::format(
        "{}: key 'device.memory_gib': missing, and N is to be sized from memory; allowed: "
        "device.memory_gib or node.memory_gib in GiB, or an explicit N",
        spec.file));
  bytes_per_node *= 1024.0 * 1024.0 * 1024.0;
  const double n = std::sqrt(fraction * bytes_per_node * nodes / 8.0);
  const long k = static_cast<long>(n / nb);
  if (k < 1)
    throw UsageError(fmt::format("{}: memory fraction {} of {} node(s) holds no NB = {} block",
                                 spec.file, fraction, nodes, nb));
  return k * nb;
}

std::pair<int, int> grid_for_nodes(const SystemSpec& spec, int nodes) {
  // The squarest P x Q of all devices with P >= Q (seed 000 keeps its grids
  // square or 2:1); plan_layout() then fits the node-local grid into it.
  const long devices = static_cast<long>(nodes) * spec.node.devices;
  int p = static_cast<int>(devices), q = 1;
  for (long x = 1; x * x <= devices; ++x)
    if (devices % x == 0) q = static_cast<int>(x), p = static_cast<int>(devices / x);
  return {p, q};
}

nlohmann::json to_json(const Prediction& p, bool with_iterations) {
  nlohmann::json j;
  j["model"] = p.model;
  j["n"] = p.n;
  j["model_n"] = p.model_n;
  j["nb"] = p.nb;
  j["p"] = p.layout.p;
  j["q"] = p.layout.q;
  j["grid_swapped"] = p.layout.swapped;
  j["nodes"] = p.layout.nodes;
  j["node_grid"] = fmt::format("{}x{}", p.layout.node_p, p.layout.node_q);
  j["threads"] = p.threads;
  j["time_s"] = p.time_s;
  j["gflops"] = p.gflops;
  j["rpeak_gflops"] = p.rpeak_gflops;
  j["efficiency"] = p.efficiency;
  j["compute_s"] = p.compute_s;
  // compute_s split: FACT as charged (fact_total_s before overlap hid part
  // of it), DTRSM, DGEMM; the local row swap / U copy is beside compute_s.
  j["cpu_terms"] = p.cpu_terms;
  j["fact_s"] = p.fact_s;
  j["fact_total_s"] = p.fact_total_s;
  j["trsm_s"] = p.trsm_s;
  j["dgemm_s"] = p.dgemm_s;
  j["swap_copy_s"] = p.swap_copy_s;
  j["tail_s"] = p.tail_s;
  j["pivot_s"] = p.pivot_s;
  j["bcast_s"] = p.bcast_s;
  j["update_comm_s"] = p.update_comm_s;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : p.layers)
    layers.push_back({{"name", l.name},
                      {"alpha_s", l.alpha_s},
                      {"beta_s_per_word", l.beta_s},
                      {"rows_end", l.rows_end},
                      {"cols_end", l.cols_end},
                      {"row_panels", l.row_panels},
                      {"col_panels", l.col_panels},
                      {"pivot_s", l.pivot_s},
                      {"bcast_s", l.bcast_s},
                      {"update_s", l.update_s}});
  j["layers"] = layers;
  if (with_iterations) j["iter_s"] = p.iter_s;
  return j;
}

nlohmann::json record_overlay(const Prediction& p, const std::string& spec_path) {
  nlohmann::json its = nlohmann::json::array();
  for (std::size_t k = 0; k < p.iter_s.size(); ++k)
    its.push_back({{"k", k}, {"iter_s", p.iter_s[k]}});
  return {{"model", p.model},
          {"spec", spec_path},
          {"time_s", p.time_s},
          {"gflops", p.gflops},
          {"iterations", std::move(its)},
          {"detail", to_json(p, false)}};
}

}  // namespace hplx::model
