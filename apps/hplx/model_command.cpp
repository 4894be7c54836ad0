#include "model_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.hpp"
#include "core/blas_kernels.hpp"
#include "core/error.hpp"
#include "core/json_record.hpp"
#include "core/threads.hpp"
#include "lu/run/phase_timing.hpp"
#include "model/calibrate.hpp"
#include "model/checkpoint_cost.hpp"
#include "model/model.hpp"
#include "model/provenance.hpp"
#include "model_flags.hpp"
#include "root_check.hpp"

namespace hplx::app {
namespace {

// Calibration times hplx lu's own FACT and row swap; the app hands them to
// the model (which may not depend on the LU).
model::LuPhaseTimings lu_phase_timings() {
  model::LuPhaseTimings phases;
  phases.fact = [](const std::vector<double>& src, long ld, long m, int b) {
    auto fact = std::make_shared<lu::FactTiming>(src, ld, m, b);
    return model::TimedWork{[fact] { fact->prepare(); }, [fact] { fact->run(); }};
  };
  phases.row_copy = [](device::RowCopy kind, long m, long n, int b, int threads) {
    auto copy = std::make_shared<lu::RowCopyTiming>(kind, m, n, b, threads);
    return model::TimedWork{[copy] { copy->prepare(); }, [copy] { copy->run(); }};
  };
  return phases;
}

using model::Prediction;
using model::RunPoint;
using model::SystemSpec;

std::string si_time(double s) {
  return fmt::format("{:.4g}", s);
}

std::string eff(const Prediction& p) {
  return p.rpeak_gflops > 0 ? fmt::format("{:.1f}", 100.0 * p.efficiency) : "n/a";
}

void print_header(const SystemSpec& spec, int threads, model::FactOn fact_on) {
  fmt::print("hplx model: {} ({})\n", spec.name, spec.file);
  fmt::print("  {}\n", model::assumed_figures_line(spec, {false, fact_on == model::FactOn::Host,
                                                          fact_on == model::FactOn::Device}));
  const auto& d = spec.device;
  std::string dev =
      d.rpeak_gflops ? fmt::format("Rpeak {:.2f} GFLOPS", *d.rpeak_gflops) : "Rpeak unknown";
  if (d.cores)
    dev += fmt::format(" (C {} x F {} x S {} GHz)", *d.cores, *d.flops_per_cycle, *d.clock_ghz);
  dev += fmt::format(", gamma from {:.2f} GFLOPS", 1e-9 / spec.gamma_s(threads));
  if (threads > 0) dev += fmt::format(" at {} thread(s)", threads);
  fmt::print("  device{}: {}\n", d.name.empty() ? "" : " " + d.name, dev);
  if (d.blas_kernels) fmt::print("  DGEMM calibrated with: {}\n", *d.blas_kernels);
  if (d.fact_gflops || d.fact_column_us || !d.trsm_gflops_by_threads.empty() ||
      !d.swap_ns_per_word_by_threads.empty() || spec.schedule.look_ahead > 0) {
    std::string cpu;
    if (d.fact_gflops) cpu += fmt::format(", FACT {:.2f} GFLOPS", *d.fact_gflops);
    if (d.fact_column_us) cpu += fmt::format(" + {:.2f} us per column", *d.fact_column_us);
    if (spec.trsm_s_per_flop(threads) > 0)
      cpu += fmt::format(", DTRSM {:.2f} GFLOPS", 1e-9 / spec.trsm_s_per_flop(threads));
    if (spec.swap_s_per_word(threads) > 0)
      cpu += fmt::format(", row swap {:.3f} ns/word", spec.swap_s_per_word(threads) * 1e9);
    if (spec.schedule.look_ahead > 0)
      cpu += fmt::format(", look-ahead {}{}", spec.schedule.look_ahead,
                         spec.schedule.fact_overlap ? " with FACT beside the update" : "");
    fmt::print("  CPU terms (MCL only){}\n", cpu.empty() ? "" : ":" + cpu.substr(1));
  }
  if (spec.memory.present) {
    if (spec.memory.controllers)
      fmt::print(
          "  memory layer: BW_perCore = M W 8 H / C = {:.2f} MB/s, BW_Eq = {:.3f} GB/s, "
          "alpha = {:.3f} us, beta = {:.4g} s/word\n",
          spec.memory.bw_per_core_Bps / 1e6, spec.memory.bw_eq_Bps / 1e9, spec.memory.alpha_s * 1e6,
          spec.memory.beta_s);
    else
      fmt::print("  memory layer: {:.3f} GB/s, alpha = {:.3f} us\n", spec.memory.bw_eq_Bps / 1e9,
                 spec.memory.alpha_s * 1e6);
  }
  if (spec.node.devices > 1)
    fmt::print("  node: {} devices, link {}: {:.3f} GB/s, alpha = {:.3f} us\n", spec.node.devices,
               spec.node.link.name.empty() ? "(unnamed)" : spec.node.link.name,
               spec.node.link.bandwidth_Bps / 1e9, spec.node.link.alpha_s * 1e6);
  if (spec.network.present)
    fmt::print("  network {}: {:.3f} GB/s shared by {} device(s), alpha = {:.3f} us\n",
               spec.network.name.empty() ? "(unnamed)" : spec.network.name,
               spec.network.bandwidth_Bps / 1e9, spec.network.share, spec.network.alpha_s * 1e6);
  if (const auto c = model::estimate_checkpoint(spec))
    fmt::print(
        "  checkpoint (hplx lu --checkpoint): {:.1f} GB a node at {:.2f} GB/s: {:.1f} s, "
        "{:.2f}% of a 30-minute interval\n",
        c->bytes_per_node / 1e9, c->write_gbs, c->seconds, 100 * c->share_of_30_min);
}

void print_point(const Prediction& o, const Prediction& op, const Prediction& m) {
  const auto& l = m.layout;
  fmt::print(
      "  run: N = {}{}, NB = {}, netlib P x Q = {}x{}{}, {} node(s), node grid {}x{}, {} panels\n",
      m.n, m.model_n != m.n ? fmt::format(" (model matrix padded to {})", m.model_n) : "", m.nb,
      l.p, l.q, l.swapped ? " (given as QxP; larger dimension taken as P)" : "", l.nodes, l.node_p,
      l.node_q, m.iter_s.size());
  fmt::print("\n{:<24} {:>12} {:>12} {:>7} {:>11} {:>11} {:>11} {:>11}\n", "model", "time (s)",
             "Gflops", "eff %", "compute s", "pivot s", "bcast s", "update s");
  for (const Prediction* p : {&o, &op, &m})
    fmt::print("{:<24} {:>12} {:>12.2f} {:>7} {:>11} {:>11} {:>11} {:>11}\n", p->model,
               si_time(p->time_s), p->gflops, eff(*p), si_time(p->compute_s), si_time(p->pivot_s),
               si_time(p->bcast_s), si_time(p->update_comm_s));
  if (m.cpu_terms)
    fmt::print(
        "\nMCL CPU terms: FACT {} s charged of {} s (the rest hidden beside the update or "
        "behind the other process columns), DTRSM {} s, DGEMM {} s, local row swap / U copy {} "
        "s\n",
        si_time(m.fact_s), si_time(m.fact_total_s), si_time(m.trsm_s), si_time(m.dgemm_s),
        si_time(m.swap_copy_s));
  fmt::print(
      "\nMCL communication by layer (pivot and broadcast by row range, update by column range):\n");
  fmt::print("{:<22} {:>10} {:>10} {:>12} {:>12} {:>8} {:>8} {:>10} {:>10} {:>10}\n", "layer",
             "alpha us", "GB/s", "rows <", "cols <", "rowpan", "colpan", "pivot s", "bcast s",
             "update s");
  for (const auto& x : m.layers)
    fmt::print("{:<22} {:>10.3f} {:>10.3f} {:>12.0f} {:>12.0f} {:>8} {:>8} {:>10} {:>10} {:>10}\n",
               x.name, x.alpha_s * 1e6, x.beta_s > 0 ? 8.0 / x.beta_s / 1e9 : 0.0, x.rows_end,
               x.cols_end, x.row_panels, x.col_panels, si_time(x.pivot_s), si_time(x.bcast_s),
               si_time(x.update_s));
}

// What a calibration measured, term by term, and what it had to measure
// again or warn about; `output` names the file in the hint for 1 rank.
void print_calibration(const model::Calibration& c, const std::string& output) {
  // Each term: its median, and how its rounds spread (see calibration_rounds.hpp).
  size_t width = 0;
  for (const auto& t : c.terms) width = std::max(width, t.label.size());
  for (const auto& t : c.terms)
    fmt::print("  {:<{}}  {:>18}  ({} rounds, spread {:.1f}%{})\n", t.label, width, t.value,
               t.rounds, 100 * t.spread,
               t.sets > 1
                   ? fmt::format(", {} sets, the {} kept", t.sets, t.quietest ? "quietest" : "last")
                   : "");
  // The rates above are those of the kernels the BLAS ran: say when they are
  // narrower than the CPU's units, as hplx lu does.
  if (const std::string w = blas_kernels_warning(c.blas_kernels); !w.empty())
    fmt::print("  warning: {}\n", w);
  else
    fmt::print("  BLAS kernels: {}\n", describe(c.blas_kernels));
  fmt::print("  FACT fit: {:.2f} GFLOPS + {:.3f} us per column\n", c.fact_gflops,
             c.fact_column_s * 1e6);
  if (c.disturbed_reps > 0)
    fmt::print(
        "  {} timed repetition(s) left out and retried: other processes took the cpus "
        "meanwhile\n",
        c.disturbed_reps);
  if (c.concurrent_threads > 0)
    fmt::print("  ({} thread(s): measured on all {} ranks at once, slowest rank)\n",
               c.concurrent_threads, c.ranks_per_node);
  if (!c.remeasured.empty()) {
    std::string keys;
    for (const auto& k : c.remeasured) keys += (keys.empty() ? "" : ", ") + k;
    fmt::print("  measured again in extra rounds (a check among them failed at first): {}\n", keys);
  }
  if (!c.noisy.empty()) {
    std::string keys;
    for (const auto& k : c.noisy) keys += (keys.empty() ? "" : ", ") + k;
    fmt::print("  measured again, their rounds too spread to trust (above {:.0f}%): {}\n",
               100 * model::kSpreadWarning, keys);
  }
  for (const auto& w : c.warnings) fmt::print("  warning: {}\n", w);
  if (c.has_network) {
    for (const auto& pt : c.pingpong)
      fmt::print("  ping-pong {:>9.0f} bytes: {:10.3f} us one way\n", pt.bytes, pt.one_way_s * 1e6);
    fmt::print("  fit: alpha = {:.3f} us, bandwidth = {:.3f} GB/s (worst relative error {:.1f}%)\n",
               c.alpha_s * 1e6, c.bandwidth_Bps / 1e9, c.fit_max_rel_error * 100);
  } else {
    fmt::print(
        "  network terms need 2 ranks (mpirun -n 2 hplx model calibrate -o {}): no alpha/beta "
        "measured; the spec has DGEMM rates only (node.devices = 1, 1-rank runs)\n",
        output);
  }
}

}  // namespace

ModelCommand::ModelCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "model", "HPL performance model (original and multi-communication-layer) of a machine spec");
  sub_->add_option("spec", spec_file_, "system spec (TOML), e.g. examples/systems/summit.toml");
  sub_->add_option("--n", n_, "matrix order(s): N, A:B:S or a,b,c (default: the spec's run)");
  sub_->add_option("--nb", nb_, "block size(s): NB or a,b,c");
  sub_->add_option("--grid", grid_, "process grid(s): PxQ or PxQ,PxQ");
  sub_->add_option("--nodes", nodes_,
                   "weak scaling over node counts a,b,c: N fills --memory-fraction of memory, "
                   "grid from the node-local grid");
  sub_->add_option("--memory-fraction", memory_fraction_,
                   "fraction of memory N fills (weak scaling, or when the spec's run has no n)")
      ->check(CLI::Range(1e-6, 1.0));
  sub_->add_option("--threads", threads_, "threads per rank (picks a calibrated DGEMM rate)")
      ->check(CLI::NonNegativeNumber);
  sub_->add_option("--fact-on", fact_on_,
                   "a GPU spec with a [host] table: where FACT runs, as hplx lu: 'host' (the "
                   "panel to the host and back; default) or 'device' (device.fact_probe as "
                   "measured, docs/MODEL.md)")
      ->check(CLI::IsMember({"host", "device"}));
  sub_->add_option("--json", json_, "write the predictions as a JSON record");
  sub_->add_flag("--iterations", iterations_, "with --json: include the per-panel times");
  calibrate_ = sub_->add_subcommand(
      "calibrate",
      "measure DGEMM (gamma) and MPI alpha/beta on this machine and write a spec; alpha/beta need "
      ">= 2 ranks (mpirun -n 2 hplx model calibrate -o m.toml)");
  calibrate_->add_option("-o,--output", output_, "spec file to write")->required();
  calibrate_->add_option("--nb", cal_nb_, "K of the DGEMM, the NB of the runs to predict")
      ->check(CLI::Range(1, 4096));
  calibrate_->add_option("--size", cal_size_, "M = N of the DGEMM")->check(CLI::Range(64L, 40000L));
  calibrate_
      ->add_option("--max-threads", cal_threads_,
                   "largest thread count measured (default: usable cpus)")
      ->check(CLI::NonNegativeNumber);
  calibrate_->add_option("--rounds", cal_rounds_,
                         "rounds per term, interleaved across the terms; each term's value is the "
                         "median of its rounds (3..50, default 5)");
}

int ModelCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  if (calibrate_->parsed()) return run_calibrate(world, argv);
  if (spec_file_.empty())
    throw UsageError(
        "hplx model: a system spec is required; allowed: hplx model SPEC.toml [options] "
        "or hplx model calibrate -o FILE");
  return run_predict(world, argv);
}

// The NBs to predict: --nb, else the spec's run.nb.
std::vector<int> ModelCommand::block_sizes(const SystemSpec& spec) const {
  if (nb_) return parse_int_list(*nb_, "--nb");
  if (spec.run.nb > 0) return {spec.run.nb};
  throw UsageError(
      fmt::format("{}: key 'run.nb': missing and no --nb given; allowed: --nb NB or "
                  "nb = ... in [run]",
                  spec.file));
}

// Weak scaling over --nodes: N fills a fraction of the nodes' memory.
nlohmann::json ModelCommand::weak_scaling(const SystemSpec& spec, int nb, model::FactOn fact_on,
                                          bool print) const {
  if (n_ || grid_)
    throw UsageError(
        "--nodes sizes N and the grid itself; allowed: --nodes without --n and --grid");
  const std::vector<int> nodes = parse_int_list(*nodes_, "--nodes");
  const double frac = memory_fraction_ ? *memory_fraction_ : spec.run.memory_fraction.value_or(0.8);
  if (print) {
    print_header(spec, threads_, fact_on);
    fmt::print(
        "\nWeak scaling: N fills {:.0f}% of memory, NB = {}; weak-scaling efficiency = "
        "(Gflops / nodes) / (1-node Gflops)\n",
        frac * 100, nb);
    fmt::print("{:>7} {:>10} {:>11} {:>8} {:>12} {:>14} {:>7} {:>8} {:>14}\n", "nodes", "N", "PxQ",
               "panels", "MCL time s", "MCL Gflops", "eff %", "weak %", "orig Gflops");
  }
  nlohmann::json points = nlohmann::json::array();
  double base = 0;
  for (int nn : nodes) {
    auto [p, q] = model::grid_for_nodes(spec, nn);
    const long n = model::n_from_memory(spec, nn, frac, nb);
    RunPoint rp{n, nb, p, q, threads_, 0, fact_on};
    Prediction m = model::predict_mcl(spec, rp);
    Prediction o = model::predict_original_closed(spec, rp);
    if (base == 0) base = m.gflops / nn;
    if (print)
      fmt::print("{:>7} {:>10} {:>11} {:>8} {:>12} {:>14.1f} {:>7} {:>8.1f} {:>14.1f}\n", nn, n,
                 fmt::format("{}x{}", p, q), m.iter_s.size(), si_time(m.time_s), m.gflops, eff(m),
                 100.0 * (m.gflops / nn) / base, o.gflops);
    points.push_back(
        {{"nodes", nn}, {"mcl", model::to_json(m, false)}, {"original", model::to_json(o, false)}});
  }
  return points;
}

// The grids to predict: --grid, else the spec's run.grid, else its nodes'.
std::vector<std::pair<int, int>> ModelCommand::grids(const SystemSpec& spec) const {
  std::vector<std::pair<int, int>> grids;
  if (grid_) {
    for (const auto& g : split(*grid_, ',')) grids.push_back(model::parse_grid(g, "--grid"));
    if (grids.empty()) throw UsageError("--grid '': allowed: PxQ or a list PxQ,PxQ");
  } else if (spec.run.p) {
    grids.push_back({*spec.run.p, *spec.run.q});
  } else {
    grids.push_back(model::grid_for_nodes(spec, spec.run.nodes.value_or(1)));
  }
  return grids;
}

// The Ns to predict: --n, else the spec's run.n, else what fills a memory
// fraction of the first grid's nodes.
std::vector<long> ModelCommand::orders(const SystemSpec& spec, std::pair<int, int> grid,
                                       int nb) const {
  if (n_) return parse_n_list(*n_);
  if (spec.run.n && !memory_fraction_) return {*spec.run.n};
  if (!memory_fraction_ && !spec.run.memory_fraction)
    throw UsageError(
        fmt::format("{}: key 'run.n': missing and no --n given; allowed: --n N, or n "
                    "or memory_fraction in [run]",
                    spec.file));
  const double frac = memory_fraction_ ? *memory_fraction_ : *spec.run.memory_fraction;
  // Nodes of the grid, rounded up.
  const long dev = static_cast<long>(grid.first) * grid.second;
  const int nodes = static_cast<int>((dev + spec.node.devices - 1) / spec.node.devices);
  return {model::n_from_memory(spec, nodes, frac, nb)};
}

// Every N x NB x grid: one point in full (the original model's closed form
// and per-panel sum beside the MCL), or a table of the MCL's phases.
nlohmann::json ModelCommand::sweep(const SystemSpec& spec, const std::vector<int>& nbs,
                                   model::FactOn fact_on, bool print) const {
  const std::vector<std::pair<int, int>> gs = grids(spec);
  const std::vector<long> ns = orders(spec, gs.front(), nbs.front());
  // Every grid must fit the nodes before anything is printed.
  for (const auto& [p, q] : gs) model::plan_layout(spec, p, q);
  if (print) print_header(spec, threads_, fact_on);
  nlohmann::json points = nlohmann::json::array();
  if (ns.size() * nbs.size() * gs.size() == 1) {
    RunPoint rp{ns[0], nbs[0], gs[0].first, gs[0].second, threads_, 0, fact_on};
    Prediction o = model::predict_original_closed(spec, rp);
    Prediction op = model::predict_original_panels(spec, rp);
    Prediction m = model::predict_mcl(spec, rp);
    if (print) print_point(o, op, m);
    points.push_back({{"original_closed", model::to_json(o, false)},
                      {"original_panels", model::to_json(op, false)},
                      {"mcl", model::to_json(m, iterations_)}});
    return points;
  }
  if (print)
    fmt::print(
        "\n{:>10} {:>6} {:>9} {:>6} {:>13} {:>12} {:>12} {:>7} {:>10} {:>10} {:>10} {:>10}\n", "N",
        "NB", "PxQ", "nodes", "orig Gflops", "MCL time s", "MCL Gflops", "eff %", "compute s",
        "pivot s", "bcast s", "update s");
  for (const auto& [p, q] : gs)
    for (int nb : nbs)
      for (long n : ns) {
        RunPoint rp{n, nb, p, q, threads_, 0, fact_on};
        Prediction o = model::predict_original_closed(spec, rp);
        Prediction m = model::predict_mcl(spec, rp);
        if (print)
          fmt::print(
              "{:>10} {:>6} {:>9} {:>6} {:>13.1f} {:>12} {:>12.1f} {:>7} {:>10} {:>10} {:>10} "
              "{:>10}\n",
              n, nb, fmt::format("{}x{}", p, q), m.layout.nodes, o.gflops, si_time(m.time_s),
              m.gflops, eff(m), si_time(m.compute_s), si_time(m.pivot_s), si_time(m.bcast_s),
              si_time(m.update_comm_s));
        points.push_back({{"original_closed", model::to_json(o, false)},
                          {"mcl", model::to_json(m, iterations_)}});
      }
  return points;
}

// The spec's published results beside the model.
nlohmann::json ModelCommand::published(const SystemSpec& spec, model::FactOn fact_on,
                                       bool print) const {
  nlohmann::json pubs = nlohmann::json::array();
  if (print) {
    fmt::print("\nPublished results beside the model (diff = model / published - 1):\n");
    fmt::print(
        "{:<14} {:>6} {:>10} {:>5} {:>8} {:>14} {:>7} {:>12} {:>14} {:>7} {:>8} {:>14} {:>8} "
        "{:>11}\n",
        "label", "nodes", "N", "NB", "PxQ", "published GF", "eff %", "paper model", "MCL GF",
        "eff %", "diff %", "original GF", "diff %", "vs paper %");
    if (spec.published.front().paper_model_gflops)
      fmt::print(
          "(paper model: the source's own model estimate; MCL vs paper model in the last "
          "column)\n");
  }
  for (const auto& pub : spec.published) {
    RunPoint rp{pub.n, pub.nb, pub.p, pub.q, threads_, pub.nodes, fact_on};
    Prediction m = model::predict_mcl(spec, rp);
    Prediction o = model::predict_original_closed(spec, rp);
    double value = pub.rmax_gflops ? *pub.rmax_gflops : 0.0;
    const double rpeak = pub.rpeak_gflops ? *pub.rpeak_gflops : m.rpeak_gflops;
    if (!pub.rmax_gflops && pub.efficiency_pct) value = *pub.efficiency_pct / 100.0 * rpeak;
    const double pub_eff = rpeak > 0 ? 100.0 * value / rpeak : 0.0;
    if (print)
      fmt::print(
          "{:<14} {:>6} {:>10} {:>5} {:>8} {:>14.1f} {:>7.2f} {:>12} {:>14.1f} {:>7} {:>8.2f} "
          "{:>14.1f} {:>8.2f} {:>11}\n",
          pub.label, pub.nodes, pub.n, pub.nb, fmt::format("{}x{}", pub.p, pub.q), value, pub_eff,
          pub.paper_model_gflops ? fmt::format("{:.1f}", *pub.paper_model_gflops) : "-", m.gflops,
          eff(m), 100.0 * (m.gflops / value - 1.0), o.gflops, 100.0 * (o.gflops / value - 1.0),
          pub.paper_model_gflops
              ? fmt::format("{:.2f}", 100.0 * (m.gflops / *pub.paper_model_gflops - 1.0))
              : "-");
    pubs.push_back({{"label", pub.label},
                    {"source", pub.source},
                    {"published_gflops", value},
                    {"published_efficiency_pct", pub_eff},
                    {"paper_model_gflops", pub.paper_model_gflops ? *pub.paper_model_gflops : 0.0},
                    {"mcl", model::to_json(m, false)},
                    {"original", model::to_json(o, false)}});
  }
  return pubs;
}

// `hplx model SPEC`: the model's prediction of the spec's run, a sweep, or
// weak scaling over nodes; the published results beside it when the spec
// has them and no sweep was asked for.
int ModelCommand::run_predict(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const SystemSpec spec = model::load_system_spec(spec_file_);
  require_outputs_on_root(world, {{"--json", json_}});
  const bool print = rank == 0;
  const model::FactOn fact_on = fact_on_ == "device" ? model::FactOn::Device : model::FactOn::Host;
  if (fact_on == model::FactOn::Device && !spec.host.present)
    throw UsageError(fmt::format(
        "--fact-on device: {} has no [host] table, so its FACT is already on the device; "
        "allowed: --fact-on host, or a GPU spec with a [host] table",
        spec.file));
  const std::vector<int> nbs = block_sizes(spec);

  nlohmann::json record = make_record_header("model", argv);
  record["spec"] = {{"file", spec.file}, {"name", spec.name}, {"source", spec.source}};
  if (spec.device.blas_kernels) record["spec"]["blas_kernels"] = *spec.device.blas_kernels;
  record["spec"]["assumed"] = model::assumed_figures(
      spec, {false, fact_on == model::FactOn::Host, fact_on == model::FactOn::Device});
  if (spec.host.present) record["fact_on"] = fact_on_;
  if (nodes_) {
    record["weak_scaling"] = weak_scaling(spec, nbs.front(), fact_on, print);
  } else {
    record["points"] = sweep(spec, nbs, fact_on, print);
    if (!spec.published.empty() && !n_ && !nb_ && !grid_)
      record["published"] = published(spec, fact_on, print);
  }
  if (!json_.empty() && rank == 0) write_json_atomically(json_, record);
  return 0;
}

int ModelCommand::run_calibrate(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  model::check_rounds(cal_rounds_);
  require_outputs_on_root(world, {{"-o", output_}});
  // The largest count timed is started as it is: within what the node runs.
  ThreadCounts timed;
  if (cal_threads_ > 0)
    timed.emplace_back(fmt::format("--max-threads {}", cal_threads_), cal_threads_);
  (void)plan_threads(world, 0, timed);
  model::CalibrateOptions opt;
  opt.nb = cal_nb_;
  opt.size = cal_size_;
  opt.max_threads = cal_threads_;
  opt.rounds = cal_rounds_;
  if (rank == 0) {
    fmt::print("hplx model calibrate: DGEMM M = N = {}, K = NB = {} on rank 0", opt.size, opt.nb);
    fmt::print("{}\n",
               size >= 2 ? fmt::format("; MPI ping-pong between ranks 0 and 1 of {}", size) : "");
    fmt::print("  and the CPU terms: hplx's panel factorization, DTRSM of U, the local row swap\n");
    fmt::print("  each term in {} rounds interleaved across the terms; its value: their median\n",
               opt.rounds);
    std::fflush(stdout);
  }
  model::Calibration c = model::calibrate(world, opt, lu_phase_timings());
  if (rank != 0) return 0;
  print_calibration(c, output_);
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  if (size >= 2) cmd = fmt::format("mpirun -n {} {}", size, cmd);
  const std::string text = model::calibration_toml(c, opt, cmd);
  try {
    write_text_atomically(output_, text);
  } catch (const SystemError& e) {
    throw UsageError(fmt::format("-o {}: {}; allowed: a writable path", output_, e.what()));
  }
  // Read back what was written: a calibration that cannot be loaded is a bug.
  model::load_system_spec(output_);
  fmt::print("wrote {}\n", output_);
  return 0;
}

}  // namespace hplx::app
