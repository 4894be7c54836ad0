// A machine described for the HPL performance models: what one device
// computes, the communication layers between devices (the device's own
// memory, the link inside a node, the network between nodes) and the run to
// predict. Specs are read from TOML files (examples/systems/*.toml,
// docs/MODEL.md lists every key); every bad, missing or unknown key is a
// UsageError naming the file, the key and what is allowed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hplx::model {

// How the spec's P x Q maps onto netlib's P (the process-column length that
// pivots) and Q. The MCL paper reproduces its own Table 5 only when the
// larger grid dimension plays netlib's P (docs/MODEL.md), so that is the
// default for specs; calibrated specs describe real hplx runs and use the
// grid as given.
enum class GridReading { LargerIsP, AsGiven };

// The equivalent-GPU memory layer of the MCL paper (its section 3.1.1).
struct MemoryLayer {
  bool present = false;
  // From the hardware description (all set) or given directly (alpha/beta only).
  std::optional<double> controllers;      // M
  std::optional<double> qwords_per_ctrl;  // W, 64-bit words per controller
  std::optional<double> clock_ghz;        // H, memory data rate
  std::optional<double> latency_cycles;   // at the device clock S
  double bw_per_core_Bps = 0;             // M W 8 H / C
  double bw_eq_Bps = 0;                   // BW_perCore * (M W)
  double bandwidth_Bps = 0;               // the memory's own: M W 8 H, or bandwidth_gbs
  double alpha_s = 0;                     // latency_cycles / S
  double beta_s = 0;                      // seconds per 8-byte word: 8 / BW_eq
};

// A link with a latency and a bandwidth (alpha + beta * words).
struct Link {
  bool present = false;
  std::string name;
  double alpha_s = 0;
  double bandwidth_Bps = 0;
  int share = 1;  // devices sharing one port's bandwidth (network only)
  double beta_s() const { return bandwidth_Bps > 0 ? 8.0 * share / bandwidth_Bps : 0.0; }
};

// FACT on a GPU as hplx_fact_probe measured it (bench/gpu/fact_probe.cpp),
// read by hplx sim only: one panel's milliseconds with the device to itself
// and beside the update's DGEMM, at each width (jb) and row count (rows).
struct FactProbe {
  std::vector<double> jb, rows;             // ascending
  std::vector<double> alone_ms, beside_ms;  // by jb, then rows
  bool present() const { return !jb.empty(); }
  // One panel's seconds at `rows` local rows and width `jb`, read as hplx
  // sim reads the table (core/fact_table.hpp); present() only.
  double alone_s(double rows, double jb) const;
  double beside_s(double rows, double jb) const;
};

struct Device {
  std::string name;
  // The ranks stand for GPUs (device.gpu; default: a [host] table given).
  // hplx sim runs a spec without [host] in order, one timeline per rank,
  // and still gives its ranks the choices hplx lu makes for a device (the
  // split update).
  std::optional<bool> gpu;
  std::optional<double> cores;                    // C
  std::optional<double> flops_per_cycle;          // F
  std::optional<double> clock_ghz;                // S
  std::optional<double> rpeak_gflops;             // C F S, or given
  std::optional<double> dgemm_gflops;             // sustained update rate (gamma); default Rpeak
  std::map<int, double> dgemm_gflops_by_threads;  // calibrated: rate per rank by threads
  // DGEMM's shape: with two dimensions large, the rate halves where the
  // third is this (rate = dgemm x s(m) s(n) s(k), s(d) = d / (d + half));
  // hplx sim's kernel model only.
  std::optional<double> dgemm_half_dim;
  std::optional<double> memory_gib;
  // What `hplx model calibrate` measured DGEMM with: the BLAS's kernels
  // against the CPU's units (core/blas_kernels.hpp describe()), so that a
  // prediction says which kernels it assumed.
  std::optional<std::string> blas_kernels;
  // The CPU terms of a calibrated rank (docs/MODEL.md, "CPU terms"); each
  // absent key leaves the netlib/MCL model as it was.
  std::optional<double> fact_gflops;                  // R_f: panel factorization, one thread
  std::optional<double> fact_column_us;               // lambda_f: its time per column
  std::map<int, double> trsm_gflops_by_threads;       // R_trsm(T): DTRSM of U
  std::map<int, double> swap_ns_per_word_by_threads;  // t_sw(T): local row swap / U copy
  // hplx sim's costs of the row swap's other copies, ns per element by
  // threads (calibrated on hplx lu's kernels; absent: t_sw): pivot rows
  // gathered into / scattered from a buffer, the diagonal block's adjacent
  // rows gathered, U stored back into them.
  std::map<int, double> gather_ns_per_word_by_threads;
  std::map<int, double> scatter_ns_per_word_by_threads;
  std::map<int, double> block_gather_ns_per_word_by_threads;
  std::map<int, double> block_store_ns_per_word_by_threads;
  // hplx sim: a DGEMM call's packing of A (M x K), ns per element.
  std::optional<double> dgemm_pack_ns_per_word;
  // One DGEMM call's spread (standard deviation over mean): hplx sim's
  // calls vary by it.
  std::optional<double> dgemm_cv;
  // hplx sim's GPU ranks: a kernel launch's time on a queue (its launch
  // and tail; default 5 us, assumed), charged per kernel body and per
  // queue BLAS call. FACT on the device (--fact-on device) pays it several
  // times per column, with fact_column_us above as its further time per
  // column.
  std::optional<double> launch_us;
  // R_upd(T): the update's DGEMM as hplx lu runs it, 256-column chunks dealt
  // over T threads with 1-thread BLAS each (absent: gamma(T))
  std::map<int, double> update_gflops_by_threads;
  // hplx sim's GPU ranks: FACT on the device as measured, and the update
  // (DTRSM + DGEMM as hplx lu runs them, beside FACT) at this share of the
  // DGEMM's rate at its shape (absent: 1).
  FactProbe fact_probe;
  std::optional<double> update_share_of_dgemm;
  // A GPU's streaming multiprocessors, which hplx lu --update-sms counts
  // (hplx sim: the update on fewer of them is slower in proportion, and
  // FACT beside it runs at its `alone` time).
  std::optional<double> multiprocessors;
};

// How the run overlaps FACT with the update (hplx lu's --depth and
// --fact-overlap); absent: netlib's model, every term added.
struct ScheduleSpec {
  int look_ahead = 0;         // panels factored ahead of the update (DEPTH)
  bool fact_overlap = false;  // with >= 2 threads, FACT on one thread beside the update
  long chunk_columns = 0;     // the update's chunk beside FACT (its tail imbalance); 0: none
};

struct Node {
  int devices = 1;
  std::optional<int> grid_p, grid_q;  // node-local grid; default: squarest that divides P x Q
  Link link;                          // between the devices of a node
  std::optional<double> memory_gib;   // for sizing N when devices have no own memory
  // GB/s one node writes to the file system checkpoints go to
  // (model/checkpoint_cost.hpp); none: unknown.
  std::optional<double> storage_write_gbs;
  // The node's CPU cores and NUMA domains, for `hplx tune`'s batch script
  // (each rank bound to cores / devices of them, in its domain). Absent
  // cores: a CPU spec's rank is one core (as `hplx model calibrate` writes
  // them), a GPU spec's host cores are unknown.
  std::optional<int> cores;
  int numa_domains = 1;
};

// Where FACT runs when the devices are GPUs whose matrix stays in their
// memory (hplx lu's device backends, rocHPL, seed 000): on the host, each
// panel's local rows copied to it and back over `link` (PCIe, NVLink-C2C).
// Absent: FACT on the device, as the papers' models have it.
struct HostFact {
  bool present = false;
  std::string name;
  double fact_gflops = 0;     // R_f,host: FACT's rate on the host share of one device
  double fact_column_us = 0;  // lambda_f,host: its time per column
  // The host's memory copy rate for one device's rank (GB/s; 0: not given):
  // hplx sim's host copies and row passes (the row swap's U on its way).
  double copy_gbs = 0;
  Link link;  // device <-> host
};

// Where a GPU rank with a [host] table factors its panels: on the host
// (the panel's rows to it and back over host.link; hplx lu --fact-on host)
// or on the device's panel queue beside the update (--fact-on device:
// device.fact_probe as measured, else launches and memory traffic).
enum class FactOn { Host, Device };
inline const char* fact_on_name(FactOn f) {
  return f == FactOn::Device ? "device" : "host";
}

// How the nodes' network links are joined: read only by `hplx sim`'s SimGrid
// platform (model/sim_platform.hpp); the models charge the network as one
// alpha-beta layer whatever the topology.
enum class TopologyKind { Star, FatTree, Dragonfly };
struct NetworkTopology {
  TopologyKind kind = TopologyKind::Star;
  // SimGrid's topo_parameters, normalized ("2;4,4;1,2;1,2"); empty for a star.
  std::string parameters;
};

// What to predict when the command line does not say.
struct Run {
  std::optional<long> n;
  std::optional<double> memory_fraction;
  int nb = 0;
  std::optional<int> p, q;
  std::optional<int> nodes;
};

// How `hplx model calibrate` measured the spec ([calibration]): rounds per
// term, each term's spread over its rounds in percent (by the key of the
// term: dgemm_1, update_2, swap_1, fact_4000, dgemm_pack, ...), the terms
// measured again and the warnings left.
struct CalibrationNotes {
  bool present = false;
  int rounds = 0;
  std::map<std::string, double> spread_pct;
  std::vector<std::string> remeasured;
  std::vector<std::string> noisy;  // measured again: their rounds spread too far at first
  std::vector<std::string> warnings;
};

// Which of the spec's figures were assumed rather than measured or
// published for its hardware ([provenance] assumed = ["device.launch_us",
// ...], docs/MODEL.md "Provenance"). Every key not listed is measured or
// published; the file's comments say where each comes from.
struct Provenance {
  bool present = false;              // the spec has a [provenance] table
  std::vector<std::string> assumed;  // "table.key", as the spec spells them
};

// A published result the model is compared with.
struct Published {
  std::string label;
  int nodes = 1;
  long n = 0;
  int nb = 0;
  int p = 1, q = 1;
  std::optional<double> rmax_gflops;
  std::optional<double> efficiency_pct;
  std::optional<double> rpeak_gflops;
  std::optional<double> paper_model_gflops;  // what the source's own model said
  std::string source;
};

// Which order the model's matrix has. The MCL paper pads N up to a
// multiple of NB (its Nnew, equation (17)); a real hplx run does not.
enum class NReading { PaddedToNb, AsGiven };

struct SystemSpec {
  std::string file;  // where it was read from (for messages)
  std::string name;
  std::string source;
  GridReading reading = GridReading::LargerIsP;
  NReading n_reading = NReading::PaddedToNb;
  Device device;
  MemoryLayer memory;
  Node node;
  HostFact host;
  Link network;
  NetworkTopology topology;  // network.topology, network.topology_parameters
  ScheduleSpec schedule;
  Run run;
  std::vector<Published> published;
  CalibrationNotes calibration;
  Provenance provenance;

  // Rpeak of one device in flop/s, 0 when unknown.
  double rpeak_flops() const;
  // Seconds per flop of the trailing update on one device running `threads`
  // threads (0: the spec's default rate).
  double gamma_s(int threads = 0) const;
  // The CPU terms at `threads` threads per rank; 0 when the spec has none.
  double trsm_s_per_flop(int threads) const;
  double swap_s_per_word(int threads) const;
  // A time per word by threads of `by` (one of the *_ns_per_word_by_threads
  // maps), in seconds; 0 when empty.
  static double s_per_word(const std::map<int, double>& by, int threads);
  double update_s_per_flop(int threads) const;
};

// Reads and checks a spec file. Throws UsageError ("FILE: key 'x.y': ...").
// A bare name that is not a file here ("summit", "summit.toml") is looked
// up among the installed examples (core/install_paths.hpp).
SystemSpec load_system_spec(const std::string& path);
// The file load_system_spec reads for `name`.
std::string resolve_system_spec(const std::string& name);
// The same from TOML text; `name` stands in for the file in messages.
SystemSpec parse_system_spec(const std::string& toml_text, const std::string& name);

// The paper's equivalent-GPU formulas (its equations (6)-(10)).
double bw_per_core_Bps(double controllers, double qwords, double mem_clock_ghz, double cores);
double bw_equivalent_Bps(double controllers, double qwords, double mem_clock_ghz, double cores);
double rpeak_flops(double cores, double flops_per_cycle, double clock_ghz);

// "PxQ" -> {P, Q}; throws UsageError naming `what` on anything else.
std::pair<int, int> parse_grid(const std::string& text, const std::string& what);

// The version of the TOML library the specs are read with, e.g. "3.3.0".
std::string toml_library_version();

}  // namespace hplx::model
