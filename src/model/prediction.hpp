// hplx's HPL performance models (module doc in model/model.hpp): the layout
// of a run on a spec'd machine, and the predictions of the original and the
// multi-communication-layer (MCL) models for it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/panel_model.hpp"
#include "model/system_spec.hpp"

namespace hplx::model {

// How P x Q devices sit on nodes. p and q are netlib's P and Q after the
// spec's grid reading; node_p x node_q is the node-local grid.
struct Layout {
  int p = 1, q = 1;
  bool swapped = false;  // the given grid was Q x P
  int nodes = 1;
  int node_p = 1, node_q = 1;
};

// Throws UsageError when P x Q cannot be split into the spec's nodes.
// `nodes` > 0 says how many nodes the devices are spread over (a published
// run with fewer devices per node than the node holds); 0: as few nodes as
// hold P x Q.
Layout plan_layout(const SystemSpec& spec, int p, int q, int nodes = 0);

// The layers a run crosses, innermost first, with their column ranges.
std::vector<LayerParams> mcl_layers(const SystemSpec& spec, const Layout& lay, long n);

struct Prediction {
  std::string model;  // "original (closed form)", "original (per panel)", "mcl"
  long n = 0;         // the run's N (Gflops count it)
  long model_n = 0;   // the order the model evaluated (N, or N padded to NB)
  int nb = 0;
  Layout layout;
  int threads = 0;
  double time_s = 0;
  double gflops = 0;
  double rpeak_gflops = 0;  // of the devices used; 0 when the spec has none
  double efficiency = 0;    // gflops / rpeak_gflops; 0 when unknown
  double compute_s = 0;     // fact_s + trsm_s + dgemm_s + tail_s (closed form: all of it)
  // The per-panel models' split of compute_s, and the local row swap / U
  // copy (a CPU term, 0 without it), part of time_s beside compute_s.
  double fact_s = 0, fact_total_s = 0, trsm_s = 0, dgemm_s = 0, swap_copy_s = 0;
  double tail_s = 0;       // the update's last-chunk imbalance beside FACT (in compute_s)
  bool cpu_terms = false;  // the spec's CPU terms were applied (MCL only)
  double pivot_s = 0, bcast_s = 0, update_comm_s = 0;
  std::vector<LayerTimes> layers;
  std::vector<double> iter_s;  // per panel, empty for the closed form
};

struct RunPoint {
  long n = 0;
  int nb = 0;
  int p = 1, q = 1;
  int threads = 0;  // per device (rank); 0: the spec's default rate
  int nodes = 0;    // 0: as few nodes as hold P x Q devices
  // A spec with a [host] table: where FACT runs (without one, FACT is on
  // the rank's own device or cores, as the papers' models have it).
  FactOn fact_on = FactOn::Host;
};

// netlib's model with the last layer's alpha and beta (the original model
// knows one network): the closed form and its per-panel sum.
Prediction predict_original_closed(const SystemSpec& spec, const RunPoint& run);
Prediction predict_original_panels(const SystemSpec& spec, const RunPoint& run);
// The MCL model: each panel's communication charged to its layer, with the
// spec's CPU terms when it has them (the original models never take them:
// they stay netlib's).
Prediction predict_mcl(const SystemSpec& spec, const RunPoint& run);

// The prediction API for `hplx lu --predict`: the MCL model for an N, NB,
// P x Q run with `threads` threads per rank. time_s, gflops and iter_s (one
// entry per panel k = 0 .. ceil(N/NB)-1) are what a run would be compared
// with. Throws UsageError for sizes the model cannot take.
// `nodes` > 0: the nodes the run's P x Q ranks actually sit on (hplx lu
// knows them); 0: as few as hold them.
Prediction predict_run(const SystemSpec& spec, long n, int nb, int p, int q, int threads,
                       int nodes = 0, FactOn fact_on = FactOn::Host);

// The largest N, a multiple of NB, whose N^2 doubles fill `fraction` of the
// memory of `nodes` nodes (device memory times devices, else node memory).
// Throws UsageError naming the key when the spec has no memory size.
long n_from_memory(const SystemSpec& spec, int nodes, double fraction, int nb);

// The grid for a weak-scaling point: the squarest P x Q (P >= Q) of all
// the devices of `nodes` nodes.
std::pair<int, int> grid_for_nodes(const SystemSpec& spec, int nodes);

// Checks N, NB, P, Q (UsageError on nonsense).
void check_run_point(const RunPoint& run);

nlohmann::json to_json(const Prediction& p, bool with_iterations);

// A test's "prediction" object in a run record, what `hplx report` overlays
// on the measured (or simulated) run: {"model", "spec", "time_s", "gflops",
// "iterations": [{"k", "iter_s"}], "detail" (the whole prediction)}.
nlohmann::json record_overlay(const Prediction& p, const std::string& spec_path);

}  // namespace hplx::model
