// `hplx tune`'s search: which HPL run to make on K nodes of a spec'd
// machine. The analytic MCL model ranks every candidate of N (by memory),
// NB, ranks per node and P x Q in microseconds; the simulator (a callback:
// `hplx sim` in the command, a stand-in in the tests) runs the best few,
// then tries the look-ahead depth, the panel broadcast and the split
// update on the best of them, one at a time, as long as the time budget
// allows. Two small simulations of each grid and NB estimate what a larger
// one costs; one that runs past twice its estimate is stopped, so the
// budget holds. Where a full-size simulation would not fit the budget the
// simulator runs the last panels only: the LU of the trailing matrix of
// order N - h NB is the full run's last iterations. The first h panels come
// from the model's per-panel times, scaled by how the simulator's largest
// panels compared with the model's at the same trailing sizes where those
// are at least half of N (else unscaled); the candidate says so.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/system_spec.hpp"

namespace hplx::model {

struct TuneOptions {
  int nodes = 1;
  double memory_fraction = 0;  // 0: the spec's run.memory_fraction, else 0.8
  long n = 0;                  // > 0: this N for every candidate instead of memory's
  std::vector<int> nbs;        // empty: default_nbs(spec)
  double budget_s = 300;       // the simulator's wall time in all; 0: the model only
  int top = 3;                 // model candidates simulated before the variants
  // A spec with a [host] table (GPU ranks): FACT only here; empty: on the
  // host and on the device both, the faster chosen.
  std::optional<FactOn> fact_on;
};

// One HPL run the search considered.
struct TuneCandidate {
  long n = 0;
  int nb = 0;
  int p = 1, q = 1;
  int ranks_per_node = 1;
  int threads = 0;    // per rank; 0: the spec's default rate (GPU ranks)
  int bcast = 1;      // netlib's BCAST code (1 = 1ringM)
  int depth = 1;      // look-ahead DEPTH
  double split = -1;  // hplx lu --split; < 0: hplx lu's own choice
  // Where FACT runs (hplx lu --fact-on): set for a spec with a [host]
  // table, which describes both places; empty otherwise (FACT where the
  // rank's update is).
  std::optional<FactOn> fact_on;
  double model_gflops = 0, model_time_s = 0;
  // The simulator's view, when it ran: the N it ran, its rate there, its
  // wall time, and the rate at n (when sim_n < n: the simulated last
  // panels with the model's first ones, scaled by head_scale).
  bool simulated = false;
  long sim_n = 0;
  double sim_gflops = 0, sim_wall_s = 0, estimate_gflops = 0;
  double head_scale = 1;  // simulated / model seconds over the largest simulated panels
  bool extrapolated() const { return simulated && sim_n < n; }
  // The rate the choice is made on: the simulator's estimate, else the model's.
  double best_gflops() const { return simulated ? estimate_gflops : model_gflops; }
  std::string label() const;  // "NB=.. 2x4 (4 ranks/node) BCAST=1ringM DEPTH=1 FACT=device"
};

// What the simulator callback reports for a candidate run at `n`.
struct SimOutcome {
  double gflops = 0;
  double wall_s = 0;
  std::vector<double> iter_s;  // simulated seconds per panel, in order
  bool finished = true;        // false: stopped at its time limit (the rest unset)
};
// Simulates c at order n, stopping after limit_s seconds of wall time.
using Simulate = std::function<SimOutcome(const TuneCandidate& c, long n, double limit_s)>;
// The rate at n of a run whose last panels were simulated (`sim.iter_s`,
// the LU of order n_sim = n - h nb) and whose first h panels the model
// gives (`model_iter_s`, all ceil(n / nb) of them): those h panels scaled
// by the simulated over the model's seconds of the first quarter of the
// simulated panels when n_sim >= n / 2, unscaled otherwise. Sets
// head_scale. Exposed for the tests.
double stitched_gflops(long n, int nb, long n_sim, const std::vector<double>& model_iter_s,
                       const SimOutcome& sim, double& head_scale);

// One line of progress (stderr in the command).
using TuneProgress = std::function<void(const std::string& line)>;

struct TuneResult {
  std::vector<TuneCandidate> ranked;     // every placeable candidate, best model rate first
  std::vector<TuneCandidate> simulated;  // in the order the simulator ran them
  TuneCandidate chosen;
  std::vector<std::string> notes;  // skipped grids, extrapolations, budget
  double sim_wall_s = 0;
  bool is_gpu = false;
  // A [host] spec with both places compared: the best rate found with FACT
  // on each (the simulator's where it ran one, else the model's), for the
  // job's comment; empty when FACT's place was given or there is no choice.
  std::map<FactOn, double> best_by_fact;
  bool best_by_fact_simulated = false;
};

// The NB values tried when the options give none: GPU ranks 256 .. 1024,
// CPU ranks 64 .. 384.
std::vector<int> default_nbs(const SystemSpec& spec);

// Whether the spec's ranks drive GPUs (device.gpu, or a [host] table).
bool spec_is_gpu(const SystemSpec& spec);

// The CPU cores of a node (node.cores; a CPU spec without it: one per
// device, as calibrated specs describe ranks), 0 when unknown.
int node_cores(const SystemSpec& spec);

// Runs the search. Throws UsageError when the options are out of range or
// no P x Q of the nodes' ranks can be placed (the message names the spec,
// the nodes and why). `simulate` may be empty when budget_s is 0.
TuneResult tune(const SystemSpec& spec, const TuneOptions& opt, const Simulate& simulate,
                const TuneProgress& progress = {});

// The search as a JSON record (command "tune"): the options, every
// candidate, the simulated ones, the choice and the notes.
nlohmann::json to_json(const TuneResult& r, const TuneOptions& opt, const std::string& spec_path);

}  // namespace hplx::model
