// hplx tune's search (model/tune.hpp) with a stand-in simulator, and the
// batch files it writes (model/batch_script.hpp).
#include <gtest/gtest.h>

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
  opt.top = 8;         // all of them: 1x8, 2x4, 4x2, 8x1 at each NB
  opt.budget_s = 1e9;  // everything fits: the full N every time
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
