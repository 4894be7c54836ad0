// hplx tune's search (model/tune.hpp) with a stand-in simulator, and the
// batch files it writes (model/batch_script.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/error.hpp"
#include "model/batch_script.hpp"
#include "model/prediction.hpp"
#include "model/system_spec.hpp"
#include "model/tune.hpp"

namespace {

using namespace hplx::model;

// A calibrated 2-core node, as `hplx model calibrate` writes one: a rank
// per core, rates by threads.
const char* kCpuNode = R"([system]
name = "two cores"
grid_reading = "as-given"
n_reading = "as-given"
[device]
dgemm_gflops_by_threads = { "1" = 40, "2" = 76 }
[node]
devices = 2
memory_gib = 4
[node.link]
alpha_us = 2
bandwidth_gbs = 5
)";

// Four GPUs per node with FACT on the host.
const char* kGpuNode = R"([system]
name = "four gpus"
[device]
dgemm_gflops = 50000
memory_gib = 80
[node]
devices = 4
cores = 64
numa_domains = 2
[node.link]
alpha_us = 1
bandwidth_gbs = 400
[host]
fact_gflops = 200
fact_column_us = 20
[host.link]
alpha_us = 5
bandwidth_gbs = 50
[network]
alpha_us = 1
bandwidth_gbs = 25
[schedule]
look_ahead = 1
fact_overlap = true
)";

SystemSpec spec_of(const char* text, const char* name) {
  return parse_system_spec(text, name);
}

const std::string kSrc = HPLX_SOURCE_DIR;

SystemSpec dgx_h100() {
  return load_system_spec(kSrc + "/examples/systems/dgx-h100.toml");
}

// A stand-in simulator that runs the model with FACT where the candidate
// puts it, times `host_factor` for FACT on the host: the search's choice
// follows the figures it is given.
Simulate model_simulator(const SystemSpec& spec, int nodes, double host_factor = 1) {
  return [&spec, nodes, host_factor](const TuneCandidate& c, long n, double) {
    const FactOn at = c.fact_on.value_or(FactOn::Host);
    Prediction p = predict_run(spec, n, c.nb, c.p, c.q, c.threads, nodes, at);
    const double f = at == FactOn::Host ? host_factor : 1;
    for (double& t : p.iter_s) t /= f;
    return SimOutcome{p.gflops * f, 0.001, p.iter_s};
  };
}

std::string usage_error(const SystemSpec& spec, const TuneOptions& opt) {
  try {
    tune(spec, opt, {});
  } catch (const hplx::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// The model alone: every N x NB x ranks-per-node x P x Q is ranked, best
// first; the choice is the model's best.
TEST(Tune, TheModelRanksEveryCandidateBestFirst) {
  const SystemSpec spec = spec_of(kCpuNode, "cpu.toml");
  TuneOptions opt;
  opt.nodes = 1;
  opt.budget_s = 0;
  opt.nbs = {128, 192, 256};
  const TuneResult r = tune(spec, opt, {});
  // 1 rank x 2 threads (1x1) and 2 ranks x 1 thread (1x2, 2x1), 3 NBs each.
  ASSERT_EQ(r.ranked.size(), 9u);
  std::set<std::string> grids;
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    const auto& c = r.ranked[i];
    grids.insert(std::to_string(c.p) + "x" + std::to_string(c.q) + "/" + std::to_string(c.threads));
    if (i > 0) EXPECT_GE(r.ranked[i - 1].model_gflops, c.model_gflops);
    // N fills 80% of the node's 4 GiB, a multiple of NB.
    EXPECT_EQ(c.n, n_from_memory(spec, 1, 0.8, c.nb));
    EXPECT_NEAR(c.model_gflops, predict_run(spec, c.n, c.nb, c.p, c.q, c.threads, 1).gflops,
                1e-9 * c.model_gflops);
    EXPECT_FALSE(c.simulated);
  }
  EXPECT_EQ(grids, (std::set<std::string>{"1x1/2", "1x2/1", "2x1/1"}));
  EXPECT_EQ(r.chosen.label(), r.ranked.front().label());
  EXPECT_TRUE(r.simulated.empty());
}

// A stand-in simulator whose rates differ from the model's: the choice
// follows the simulator, the variants are tried one at a time and kept
// only when clearly faster, and the simulated seconds stay in the budget.
TEST(Tune, TheSimulatorDecidesAmongTheModelsBestAndItsVariants) {
  const SystemSpec spec = spec_of(kGpuNode, "gpu.toml");
  TuneOptions opt;
  opt.nodes = 2;  // 8 GPUs
  opt.nbs = {256, 512};
  opt.top = 8;                 // all of them: 1x8, 2x4, 4x2, 8x1 at each NB
  opt.budget_s = 1e9;          // everything fits: the full N every time
  opt.fact_on = FactOn::Host;  // one place: FACT's choice has tests of its own
  std::vector<std::string> calls;
  const Simulate sim = [&](const TuneCandidate& c, long n, double) {
    calls.push_back(c.label());
    double g = 1000;
    if (c.nb == 512) g *= 1.10;    // the simulator prefers NB 512 ...
    if (c.bcast == 3) g *= 1.05;   // ... 2ringM, clearly
    if (c.depth == 0) g *= 1.005;  // ... depth 0 within noise: not taken
    const long panels = (n + c.nb - 1) / c.nb;
    return SimOutcome{g, 0.001, std::vector<double>(static_cast<size_t>(panels), 1.0)};
  };
  const TuneResult r = tune(spec, opt, sim);
  EXPECT_EQ(r.chosen.nb, 512);
  EXPECT_EQ(r.chosen.bcast, 3);
  EXPECT_EQ(r.chosen.depth, 1);
  EXPECT_TRUE(r.chosen.simulated);
  EXPECT_FALSE(r.chosen.extrapolated());
  EXPECT_NEAR(r.chosen.best_gflops(), 1000 * 1.10 * 1.05, 1e-6);
  // Two probes and a run of each of the model's 8, then depth, 5 other
  // broadcasts and the split's 3 values (P > 1 on GPUs); every run (not
  // the probes) is recorded.
  ASSERT_EQ(r.ranked.size(), 8u);
  EXPECT_EQ(calls.size(), 8u * 3 + 1 + 5 + (r.chosen.p > 1 ? 3 : 0));
  EXPECT_EQ(r.simulated.size(), calls.size() - 16);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(r.simulated[i].label(), r.ranked[i].label());
}

// A budget that does not hold a full-size simulation: the simulations run
// the last panels only, and their total stays within the budget.
TEST(Tune, ATightBudgetSimulatesTheLastPanelsWithinIt) {
  const SystemSpec spec = spec_of(kGpuNode, "gpu.toml");
  TuneOptions opt;
  opt.nodes = 2;
  opt.nbs = {512};
  opt.budget_s = 100;
  // A simulation costs 0.002 s x panels^2, as the search estimates.
  const Simulate sim = [&](const TuneCandidate& c, long n, double) {
    const long panels = (n + c.nb - 1) / c.nb;
    return SimOutcome{500, 0.002 * std::pow(static_cast<double>(panels), 2.0),
                      std::vector<double>(static_cast<size_t>(panels), 0.5)};
  };
  const TuneResult r = tune(spec, opt, sim);
  ASSERT_FALSE(r.simulated.empty());
  EXPECT_LE(r.sim_wall_s, opt.budget_s);
  for (const auto& c : r.simulated) {
    EXPECT_TRUE(c.extrapolated()) << c.label();
    EXPECT_LT(c.sim_n, c.n);
    // Whole panels less: every simulated panel is one of the full run's.
    EXPECT_EQ((c.n - c.sim_n) % c.nb, 0) << c.sim_n;
  }
}

// What a simulation costs depends on the grid: each grid and NB is probed
// (two small runs), and the first round runs every candidate over the same
// trailing order, the one the dearest affords in its share; a simulation
// that runs past twice its estimate is stopped at its limit and the search
// goes on without it, within the budget.
TEST(Tune, EachGridIsProbedAndARunawaySimulationIsStopped) {
  const SystemSpec spec = spec_of(kGpuNode, "gpu.toml");
  TuneOptions opt;
  opt.nodes = 2;
  opt.nbs = {512};
  opt.top = 4;
  opt.budget_s = 400;
  opt.fact_on = FactOn::Host;
  std::map<std::string, int> calls;
  std::vector<double> limits;
  const Simulate sim = [&](const TuneCandidate& c, long n, double limit_s) {
    const long panels = (n + c.nb - 1) / c.nb;
    ++calls[c.label()];
    limits.push_back(limit_s);
    // 8x1 costs 10 times 1x8's per panel^2 after a 1 s start-up; 4x2's
    // simulations beyond the probes take 10 times their estimate.
    double cost = 1 + (c.p == 8 ? 1e-3 : 1e-4) * std::pow(static_cast<double>(panels), 2.0);
    if (c.p == 4 && panels > 48) cost *= 10;
    SimOutcome out{500, std::min(cost, limit_s),
                   std::vector<double>(static_cast<size_t>(panels), 0.5), cost <= limit_s};
    return out;
  };
  const TuneResult r = tune(spec, opt, sim);
  std::map<int, TuneCandidate> first;  // by P, the first round's run
  for (const auto& c : r.simulated)
    if (!first.count(c.p)) first[c.p] = c;
  ASSERT_TRUE(first.count(1) && first.count(8)) << r.simulated.size();
  EXPECT_EQ(first[1].sim_n, first[8].sim_n);  // alike
  EXPECT_LT(first[8].sim_n, first[8].n);
  // 8x1's tail fits its share (400 s x 0.6 / 4): its own cost, not 1x8's.
  EXPECT_LE(first[8].sim_wall_s, 60.0);
  EXPECT_GT(first[8].sim_wall_s, 30.0);  // and uses it
  EXPECT_FALSE(first.count(4));          // 4x2's runaway was stopped, not recorded
  bool stopped = false;
  for (const auto& note : r.notes) stopped |= note.find("was stopped after") != std::string::npos;
  EXPECT_TRUE(stopped);
  for (double l : limits) EXPECT_GT(l, 0);
  EXPECT_LE(r.sim_wall_s, opt.budget_s + 1e-9);
}

// The stitched rate: the model's first panels and the simulated last ones.
TEST(Tune, StitchedRateAddsTheModelsHeadToTheSimulatedTail) {
  const long n = 10000;
  const int nb = 100;                                   // 100 panels
  std::vector<double> model(100, 0.1);                  // 10 s by the model
  SimOutcome tail{0, 0, std::vector<double>(60, 0.2)};  // the last 60, twice the model's
  const double flops = 2.0 / 3.0 * 1e12 + 1.5 * 1e8;
  double scale = 0;
  // n_sim = 6000 >= n / 2: the head is scaled by 0.2 / 0.1.
  double g = stitched_gflops(n, nb, 6000, model, tail, scale);
  EXPECT_DOUBLE_EQ(scale, 2.0);
  EXPECT_NEAR(g, flops / (40 * 0.2 + 60 * 0.2) * 1e-9, 1e-9);
  // n_sim = 3000 < n / 2: the head is the model's own.
  tail.iter_s.assign(30, 0.2);
  g = stitched_gflops(n, nb, 3000, model, tail, scale);
  EXPECT_DOUBLE_EQ(scale, 1.0);
  EXPECT_NEAR(g, flops / (70 * 0.1 + 30 * 0.2) * 1e-9, 1e-9);
  // Panels that do not end the full run are refused.
  EXPECT_THROW(stitched_gflops(n, nb, 3050, model, tail, scale), hplx::Error);
}

TEST(Tune, BadOptionsAreUsageErrorsNamingTheValue) {
  const SystemSpec spec = spec_of(kCpuNode, "cpu.toml");
  TuneOptions opt;
  opt.budget_s = 0;
  opt.nodes = 0;
  EXPECT_EQ(usage_error(spec, opt), "--nodes 0: allowed: a whole number >= 1");
  opt.nodes = 1;
  opt.memory_fraction = 1.5;
  EXPECT_EQ(usage_error(spec, opt), "--memory-fraction 1.5: allowed: a number in (0, 1)");
  opt.memory_fraction = 0;
  opt.budget_s = -1;
  EXPECT_EQ(usage_error(spec, opt), "--budget -1: allowed: seconds >= 0 (0: the model only)");
  opt.budget_s = 0;
  opt.nbs = {0};
  EXPECT_EQ(usage_error(spec, opt), "--nbs 0: allowed: block sizes >= 1");
}

// Without a memory size N cannot be chosen: the error names the key.
TEST(Tune, ASpecWithoutMemoryNeedsAnN) {
  SystemSpec spec = spec_of(kCpuNode, "cpu.toml");
  spec.node.memory_gib.reset();
  TuneOptions opt;
  opt.budget_s = 0;
  EXPECT_NE(usage_error(spec, opt).find("memory_gib"), std::string::npos) << usage_error(spec, opt);
  opt.n = 3000;
  EXPECT_EQ(usage_error(spec, opt), "(no error)");
}

// The one Hopper GPU measured: FACT on the device ran 3.4 times as fast as
// on the host (docs/SIM.md "One H200"); tune finds it so from the spec's
// figures, by the model alone and with a simulator.
TEST(TuneFactOn, TheMeasuredH200FactorsOnTheDevice) {
  const SystemSpec spec = load_system_spec(kSrc + "/examples/systems/h200.toml");
  TuneOptions opt;
  opt.budget_s = 0;
  const TuneResult m = tune(spec, opt, {});
  EXPECT_EQ(m.chosen.fact_on, FactOn::Device) << m.chosen.label();
  EXPECT_GT(m.best_by_fact.at(FactOn::Device), m.best_by_fact.at(FactOn::Host));
  opt.budget_s = 1e9;
  const TuneResult r = tune(spec, opt, model_simulator(spec, 1));
  EXPECT_EQ(r.chosen.fact_on, FactOn::Device) << r.chosen.label();
  EXPECT_EQ(lu_flags_for(spec, r.chosen).back(), "device");
}

// The DGX H100 spec carries the H200's measured device FACT and update.
// With tune's own NB list the update's DGEMM at its shape (49 TF at NB
// 256, 62 at NB 1024 on the H200) favours wide panels, and there FACT on
// the device is faster on 1 node and on 8, by the model and with a
// simulator: the job says --fact-on device. Held to NB 256 on 8 nodes (64
// GPUs, 32 process rows) each GPU's panel is some 24000 rows, where the
// host's FACT (10 us a column and its flops) beats the device's (some 38
// us a column alone): the choice follows the figures there too.
TEST(TuneFactOn, TheDgxH100FactorsOnTheDeviceAtOneAndEightNodes) {
  const SystemSpec spec = dgx_h100();
  for (int nodes : {1, 8}) {
    SCOPED_TRACE(nodes);
    TuneOptions opt;
    opt.nodes = nodes;
    opt.budget_s = 0;
    const TuneResult m = tune(spec, opt, {});
    EXPECT_EQ(m.chosen.nb, 1024);
    ASSERT_TRUE(m.chosen.fact_on);
    EXPECT_EQ(*m.chosen.fact_on, FactOn::Device) << m.chosen.label();
    ASSERT_EQ(m.best_by_fact.size(), 2u);
    EXPECT_GT(m.best_by_fact.at(FactOn::Device), m.best_by_fact.at(FactOn::Host));
    EXPECT_FALSE(m.best_by_fact_simulated);
    // Both places are ranked.
    std::set<FactOn> ranked;
    for (const auto& c : m.ranked) ranked.insert(c.fact_on.value());
    EXPECT_EQ(ranked.size(), 2u);

    opt.budget_s = 1e9;
    const TuneResult r = tune(spec, opt, model_simulator(spec, nodes));
    ASSERT_TRUE(r.chosen.fact_on);
    EXPECT_EQ(*r.chosen.fact_on, FactOn::Device) << r.chosen.label();
    EXPECT_TRUE(r.chosen.simulated);
    EXPECT_TRUE(r.best_by_fact_simulated);
    const std::vector<std::string> flags = lu_flags_for(spec, r.chosen);
    ASSERT_GE(flags.size(), 2u);
    EXPECT_EQ(flags[flags.size() - 2], "--fact-on");
    EXPECT_EQ(flags.back(), "device");
  }
  TuneOptions narrow;
  narrow.nodes = 8;
  narrow.nbs = {256};
  narrow.budget_s = 0;
  EXPECT_EQ(tune(spec, narrow, {}).chosen.fact_on, FactOn::Host);
}

// Make the host's FACT fast (and its link free) and the device's slow: the
// choice moves to the host, by the model and by the simulator.
TEST(TuneFactOn, AHostFasterThanTheDeviceFactorsOnTheHost) {
  SystemSpec spec = dgx_h100();
  spec.host.fact_gflops = 1e6;
  spec.host.fact_column_us = 0;
  spec.host.link.alpha_s = 0;
  spec.host.link.bandwidth_Bps = 1e15;
  for (double& t : spec.device.fact_probe.alone_ms) t *= 100;
  for (double& t : spec.device.fact_probe.beside_ms) t *= 100;
  for (int nodes : {1, 8}) {
    SCOPED_TRACE(nodes);
    TuneOptions opt;
    opt.nodes = nodes;
    opt.budget_s = 0;
    const TuneResult m = tune(spec, opt, {});
    EXPECT_EQ(m.chosen.fact_on, FactOn::Host) << m.chosen.label();
    opt.budget_s = 1e9;
    const TuneResult r = tune(spec, opt, model_simulator(spec, nodes));
    EXPECT_EQ(r.chosen.fact_on, FactOn::Host) << r.chosen.label();
    EXPECT_EQ(lu_flags_for(spec, r.chosen).back(), "host");
  }
}

// One node at NB 1024 with every candidate simulated: where both FACT
// places are tried on the same grid.
TuneOptions one_node_nb1024() {
  TuneOptions opt;
  opt.nodes = 1;
  opt.nbs = {1024};
  opt.budget_s = 1e9;
  return opt;
}

// Where the simulator disagrees with the model, the simulator decides: the
// model ranks the DGX H100's device FACT first, the stand-in finds the
// host twice as fast, and the job factors on the host.
TEST(TuneFactOn, TheSimulatorNotTheModelDecidesWhereFactRuns) {
  const SystemSpec spec = dgx_h100();
  const TuneResult r = tune(spec, one_node_nb1024(), model_simulator(spec, 1, 2.0));
  EXPECT_EQ(r.ranked.front().fact_on, FactOn::Device);
  EXPECT_EQ(r.chosen.fact_on, FactOn::Host) << r.chosen.label();
  EXPECT_GT(r.best_by_fact.at(FactOn::Host), r.best_by_fact.at(FactOn::Device));
}

// The job's comment: where FACT runs, the rates it was chosen on and the
// assumed figures each place alone rests on; --fact-on host asks for one
// place only, and a spec without [host] has no choice to make.
TEST(TuneFactOn, TheJobSaysWhyFactRunsWhereItDoesAndWhatIsAssumed) {
  const SystemSpec spec = dgx_h100();
  const TuneResult r = tune(spec, one_node_nb1024(), model_simulator(spec, 1));
  const std::vector<std::string> lines = fact_choice_comments(spec, r, true);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("FACT on the device (--fact-on device): "), std::string::npos);
  EXPECT_NE(lines[0].find(" with FACT on the host, the best of each that the simulator found"),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1], "FACT on the device rests on no assumed figure of its own") << lines[1];
  EXPECT_EQ(lines[2],
            "FACT on the host rests on assumed figures: host.fact_gflops, host.fact_column_us")
      << lines[2];
  BatchOptions bo;
  bo.comments = lines;
  EXPECT_NE(batch_files(spec, r.chosen, 1, bo).sbatch.find("# " + lines[2] + "\n"),
            std::string::npos);

  TuneOptions opt = one_node_nb1024();
  opt.fact_on = FactOn::Host;
  const TuneResult h = tune(spec, opt, model_simulator(spec, 1));
  for (const auto& c : h.ranked) EXPECT_EQ(c.fact_on, FactOn::Host);
  EXPECT_TRUE(h.best_by_fact.empty());
  EXPECT_EQ(fact_choice_comments(spec, h, true).front(),
            "FACT on the host (--fact-on host), as asked: the other place was not compared");

  const SystemSpec cpu = spec_of(kCpuNode, "cpu.toml");
  TuneOptions c;
  c.budget_s = 0;
  const TuneResult rc = tune(cpu, c, {});
  EXPECT_FALSE(rc.chosen.fact_on);
  EXPECT_TRUE(fact_choice_comments(cpu, rc, false).empty());
  c.fact_on = FactOn::Device;
  EXPECT_NE(usage_error(cpu, c).find("--fact-on device: cpu.toml has no [host] table"),
            std::string::npos)
      << usage_error(cpu, c);
}

TEST(BatchScript, SlurmScriptAsksForTheNodesRanksCpusAndGpus) {
  const SystemSpec spec = spec_of(kGpuNode, "gpu.toml");
  TuneCandidate c;
  c.n = 100000;
  c.nb = 512;
  c.p = 2;
  c.q = 4;
  c.ranks_per_node = 4;
  c.model_gflops = 400000;
  c.split = 0.25;
  BatchOptions o;
  o.hplx = "/opt/hplx's bin/hplx";
  o.lu_flags = lu_flags_for(spec, c);
  EXPECT_EQ(o.lu_flags, (std::vector<std::string>{"--split", "0.25", "--fact-on", "host"}));
  const BatchFiles f = batch_files(spec, c, 2, o);
  for (const char* want :
       {"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=4\n", "#SBATCH --cpus-per-task=16\n",
        "#SBATCH --gpus-per-task=1\n", "#SBATCH --time=00:06:00\n",
        "HPLX=${HPLX:-'/opt/hplx'\\''s bin/hplx'}\n",
        "srun --mpi=pmix --cpu-bind=none ./hplx-bind.sh \"$HPLX\" lu HPL.dat --json "
        "hplx-lu.json '--split' '0.25' '--fact-on' 'host'\n"})
    EXPECT_NE(f.sbatch.find(want), std::string::npos) << want << "\n" << f.sbatch;
  EXPECT_NE(f.bind.find("export CUDA_VISIBLE_DEVICES=$local\n"), std::string::npos);
  EXPECT_NE(f.bind.find("cpus_per_rank=16\n"), std::string::npos);
  EXPECT_NE(f.bind.find("numa_domains=2\n"), std::string::npos);
  o.launcher = Launcher::Mpirun;
  EXPECT_NE(batch_files(spec, c, 2, o)
                .sbatch.find("mpirun -n 8 --map-by ppr:4:node --bind-to none ./hplx-bind.sh"),
            std::string::npos);
  // A CPU node: no GPUs asked for, none made visible.
  const SystemSpec cpu = spec_of(kCpuNode, "cpu.toml");
  c.ranks_per_node = 1;
  c.threads = 2;
  const BatchFiles g = batch_files(cpu, c, 1, o);
  EXPECT_EQ(g.sbatch.find("gpus"), std::string::npos);
  EXPECT_NE(g.sbatch.find("#SBATCH --cpus-per-task=2\n"), std::string::npos);
  EXPECT_EQ(g.bind.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST(BatchScript, TimeLimitIsOneAndAHalfThePredictionPlusFiveMinutes) {
  EXPECT_EQ(slurm_time_limit(0), "00:05:00");
  EXPECT_EQ(slurm_time_limit(60), "00:07:00");  // 90 + 300 s: 6.5 -> 7 min
  EXPECT_EQ(slurm_time_limit(7200), "03:05:00");
  EXPECT_EQ(slurm_time_limit(86400), "1-12:05:00");
}

}  // namespace
