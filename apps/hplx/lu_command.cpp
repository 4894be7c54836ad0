#include "lu_command.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <omp.h>

#include "checkpoint_flags.hpp"
#include "core/blas_core.hpp"
#include "core/blas_kernels.hpp"
#include "core/context.hpp"
#include "core/cpu_peak.hpp"
#include "core/error.hpp"
#include "core/system_info.hpp"
#include "core/threads.hpp"
#include "device/device.hpp"
#include "device/device_mpi.hpp"
#include "device/dgemm_probe.hpp"
#include "lu/config.hpp"
#include "lu/run/hpl_run.hpp"
#include "lu/run/node_preflight.hpp"
#include "lu/run/problem_size.hpp"
#include "lu/schedules/dag_schedule.hpp"
#include "lu_flags.hpp"
#include "model/machine_spec_path.hpp"
#include "model/prediction.hpp"
#include "model/system_spec.hpp"
#include "rank_memory.hpp"
#include "root_check.hpp"

namespace hplx::app {
namespace {

// The share of a device's free memory its default problem fills.
constexpr double kDeviceMemoryFraction = 0.85;
// NB on cuda without --nb or an HPL.dat: the update's DGEMM needs a deep K
// to run near its peak (on the H200, 2026-11-28: 61.4 TFLOP/s at NB 1024
// against 57.4 at 512, and NB 1024 the fastest hplx lu at full memory;
// bench/results/2026-11-28-gpu-check-h200). The CPU's 192 would leave a
// GPU at a fraction of that.
constexpr int kCudaDefaultNb = 1024;

// --predict: the MCL model's prediction of each test, printed before it,
// compared with the measurement after it and stored in the test's record
// (the "prediction" object `hplx report` overlays).
class PredictionObserver : public lu::TestObserver {
 public:
  // `ranks_per_node`: this job's ranks on each node (filled in rank order),
  // so the model sees the nodes the run really uses.
  PredictionObserver(std::shared_ptr<const model::SystemSpec> spec, std::string path, bool print,
                     int ranks_per_node)
      : spec_(std::move(spec)),
        path_(std::move(path)),
        print_(print),
        ranks_per_node_(std::max(1, ranks_per_node)) {}

  void before(const lu::TestCase& t) override {
    const int ranks = t.grid.p * t.grid.q;
    const int nodes = (ranks + ranks_per_node_ - 1) / ranks_per_node_;
    predicted_ =
        model::predict_run(*spec_, t.n, t.nb, t.grid.p, t.grid.q, omp_get_max_threads(), nodes);
    if (print_)
      std::fprintf(stderr,
                   "hplx: %s N=%ld NB=%d: the MCL model of %s predicts %.2f s, %.2f Gflops\n",
                   lu::variant_code(t).c_str(), t.n, t.nb, path_.c_str(), predicted_.time_s,
                   predicted_.gflops);
  }

  void after(const lu::TestCase& t, const lu::TestResult& r, nlohmann::json& record) override {
    if (print_ && r.seconds > 0)
      std::fprintf(stderr,
                   "hplx: %s N=%ld NB=%d: measured %.2f Gflops, %+.1f%% from the "
                   "predicted %.2f\n",
                   lu::variant_code(t).c_str(), t.n, t.nb, r.gflops,
                   100.0 * (r.gflops / predicted_.gflops - 1.0), predicted_.gflops);
    record["prediction"] = model::record_overlay(predicted_, path_);
  }

 private:
  std::shared_ptr<const model::SystemSpec> spec_;
  std::string path_;
  bool print_;
  int ranks_per_node_;
  model::Prediction predicted_;
};

// The environment's default for a dag knob whose flag was not given (the
// one place hplx reads them; kept for scripts written before the flags).
std::optional<long> group_columns_from_environment() {
  const char* env = std::getenv("HPLX_DAG_GROUP_COLUMNS");
  if (env == nullptr || *env == '\0') return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  if (*end != '\0' || v < 1)
    throw UsageError(fmt::format(
        "HPLX_DAG_GROUP_COLUMNS={}: expected a positive integer (or use --dag-group-columns)",
        env));
  return v;
}

std::optional<bool> early_swap_from_environment() {
  const char* env = std::getenv("HPLX_DAG_EARLY_SWAP");
  if (env == nullptr || *env == '\0') return std::nullopt;
  const std::string v = env;
  if (v != "0" && v != "1")
    throw UsageError(
        fmt::format("HPLX_DAG_EARLY_SWAP={}: expected 0 or 1 (or use --dag-early-swap)", v));
  return v == "1";
}

// Rpeak for the TOP500 figures (core/top500.hpp): --rpeak as Gflops or a
// system spec (its device Rpeak x the job's ranks, one device per rank, as
// `hplx model` reads a spec); else detected from the CPUs of each node, one
// rank per node probing, when the CPUs do the work.
void resolve_rpeak(const std::string& flag, MPI_Comm world, device::BackendKind backend,
                   lu::RunOptions& options) {
  int size = 1;
  MPI_Comm_size(world, &size);
  if (!flag.empty()) {
    char* end = nullptr;
    const double v = std::strtod(flag.c_str(), &end);
    if (end != flag.c_str() && *end == '\0') {
      if (!std::isfinite(v) || v <= 0)
        throw UsageError(fmt::format(
            "--rpeak {}: allowed: a positive number of Gflops, or a system spec (TOML)", flag));
      options.rpeak = Rpeak{v, fmt::format("--rpeak {}", flag)};
      return;
    }
    const model::SystemSpec spec = model::load_system_spec(flag);
    const double per_device = spec.rpeak_flops() / 1e9;
    if (!(per_device > 0))
      throw UsageError(
          fmt::format("--rpeak {}: the spec gives no device Rpeak; allowed: a spec with [device] "
                      "rpeak_gflops or cores, flops_per_cycle and clock_ghz, or --rpeak GFLOPS",
                      flag));
    options.rpeak =
        Rpeak{per_device * size,
              fmt::format("--rpeak {}: {} ranks x {:.1f} Gflops per device ({})",
                          model::resolve_system_spec(flag), size, per_device, spec.device.name)};
    return;
  }
  if (device::traits_of(backend).gpu) {
    options.rpeak_why_not = fmt::format(
        "the {} backend computes on GPUs, whose peak hplx does not detect; give --rpeak GFLOPS "
        "or --rpeak SPEC.toml",
        device::name_of(backend));
    return;
  }
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  CpuPeakProbe probe;
  if (node_rank == 0) probe = probe_cpu_peak();
  double sums[2] = {node_rank == 0 && probe.peak ? probe.peak->gflops() : 0.0,
                    node_rank == 0 ? 1.0 : 0.0};
  int ok = node_rank != 0 || probe.peak ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, world);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, world);
  // World rank 0 is its node's first rank: its probe describes the result.
  if (ok == 1 && probe.peak) {
    options.rpeak = Rpeak{sums[0], fmt::format("detected: {} node{}, on rank 0's: {}", sums[1],
                                               sums[1] == 1 ? "" : "s", probe.peak->describe())};
  } else {
    options.rpeak_why_not =
        probe.peak ? "not detected on every node; give --rpeak" : probe.why_not + "; give --rpeak";
  }
}

// The CPU's DGEMM does the work (host and emulated backends): its kernels
// against the CPU's units go beside Rpeak in the figures; the warning, when
// they cannot reach it, is returned for the log (empty otherwise).
std::string check_blas_kernels(device::BackendKind backend, lu::RunOptions& options) {
  if (!device::traits_of(backend).host_blas) return {};
  options.blas_kernels = probe_blas_kernels();
  return blas_kernels_warning(*options.blas_kernels);
}

}  // namespace

LuCommand::LuCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "lu",
      "HPL: solve a dense random system by distributed LU in FP64 with partial pivoting "
      "(the mixed-precision HPL-MxP is `hpl-mxp`)");
  sub_->alias("hpl");
  sub_->add_option("file", file_,
                   "HPL.dat input (netlib 2.3 format); without it, one test from "
                   "the flags, or the default problem sized to run about a minute");
  add_test_flags(*sub_, test_);
  sub_->add_option("--threads", threads_, "BLAS/OpenMP threads per rank (default: cores / ranks)");
  sub_->add_option("--seconds", seconds_, "target run time of the default problem")
      ->check(finite_in(1e-3, 1e9, "a finite number of seconds in [0.001, 1e9]"));
  add_fact_options();
  add_schedule_options();
  add_output_options();
}

// Where and how FACT runs, and the update's share of a GPU beside it.
void LuCommand::add_fact_options() {
  sub_->add_option("--fact-overlap", fact_overlap_,
                   "with DEPTH > 0: factor the next panel on one thread while the others "
                   "update (host backend, > 1 thread), or on the host while the device updates "
                   "(device backends) (default: on)")
      ->check(CLI::IsMember({"on", "off"}));
  sub_->add_option("--fact-threads", fact_threads_,
                   "a panel factorization not beside the update: 1 = unthreaded, BLAS threads "
                   "(default); N > 1 = a team of N threads on row tiles; 0 = team of all threads")
      ->check(CLI::Range(0, 4096));
  sub_->add_option("--fact-device-gemm", fact_device_gemm_,
                   "device backends: FACT's recursion levels at least this many columns wide run "
                   "their DGEMM on the device, the panel's columns copied there and back (seed "
                   "003 5.1.2); 0 = off (default 0)")
      ->check(CLI::Range(0L, 1L << 20));
  sub_->add_option("--fact-on", fact_on_,
                   "where FACT runs: device = on the device's queue (BLAS and kernels, pivots "
                   "kept in device memory); host = on the host's cores, the panel copied there "
                   "and back (default: device on cuda and emulated, host on host and sim)")
      ->check(CLI::IsMember({"host", "device"}));
  sub_->add_option("--fact-leaf", fact_leaf_,
                   "FACT on the device, PFACT Right, one process row: fused = each leaf of the "
                   "recursion as one kernel with a barrier between its steps (a cooperative "
                   "launch on a GPU), four per column; fused3 = the same with three barriers per "
                   "column (each row's update also finds the next column's pivot candidates, "
                   "rows taken four at a time); kernels = a launch per step of each column "
                   "(default fused)")
      ->check(CLI::IsMember({"fused", "fused3", "kernels"}));
  sub_->add_option("--fact-blocks", fact_blocks_,
                   "the most thread blocks of the fused leaf's cooperative launch on a GPU; the "
                   "rest of the SMs run the update beside it; 0 = as many as the GPU holds at "
                   "once (default 32)")
      ->check(CLI::Range(0, 1 << 20));
  sub_->add_option("--update-sms", update_sms_,
                   "with FACT on the device: the SMs the update beside FACT aims at (cuBLAS's SM "
                   "count target), the others left to FACT; 0 = every SM (default 0)")
      ->check(CLI::Range(0, 1 << 20));
  sub_->add_option("--update-sms-below", update_sms_below_,
                   "--update-sms only in the iterations whose trailing matrix has fewer than "
                   "this many rows, where FACT beside the update outlasts it; 0 = every "
                   "iteration (default 0)")
      ->check(CLI::NonNegativeNumber);
}

// The row swap, the split update, the broadcast and the schedule.
void LuCommand::add_schedule_options() {
  sub_->add_option(
          "--cuda-aware-mpi", cuda_aware_mpi_,
          "with FACT on the device: LBCAST (Q > 1) and the row swaps (P > 1) hand MPI "
          "device memory (a CUDA-aware MPI reads it); auto = when the MPI library says it is "
          "CUDA-aware (MPIX_Query_cuda_support), on, off (default auto)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  sub_->add_option("--swap-pipeline", swap_pipeline_,
                   "P > 1: cut row swap + update into growing column segments, the swap of "
                   "one overlapping the update of the previous (default: off)")
      ->check(CLI::IsMember({"on", "off"}));
  sub_->add_option("--swap-first", swap_first_,
                   "swap pipeline: first segment, as a fraction of the columns (default 0.125)")
      ->check(finite_in(1e-6, 1.0, "a finite number in [1e-6, 1]"));
  sub_->add_option("--swap-growth", swap_growth_,
                   "swap pipeline: each segment this many times wider (default 2)")
      ->check(finite_in(1.0, 1e6, "a finite number in [1, 1e6]"));
  sub_->add_option("--split", split_,
                   "split update: fraction of the columns in the right section, whose row swap "
                   "hides behind the left section's update and vice versa; 0 = off (default: 0.5 "
                   "with P > 1, DEPTH > 0 and the update on a device, else 0)")
      ->check(finite_in(0.0, 0.95, "a finite number in [0, 0.95]"));
  sub_->add_option("--long-swap", long_swap_,
                   "P > 1: 'modified' posts U's roll before packing the spread's rows so the "
                   "two overlap (seed 003 5.2, default); 'netlib' spreads, then rolls")
      ->check(CLI::IsMember({"modified", "netlib"}));
  sub_->add_option("--core-sharing", core_sharing_,
                   "bind each rank to a root core plus its process row's share of the node's "
                   "spare cores; FACT uses them all (seed 000 III.B; default: off)")
      ->check(CLI::IsMember({"on", "off"}));
  sub_->add_option("--bcast-pipeline", bcast_pipeline_,
                   "Q > 1: broadcast each finished top-level sub-panel (NDIV part) of FACT while "
                   "the rest is factored, then the last one and the changed rows (seed 003 "
                   "5.1.3.2; default: off)")
      ->check(CLI::IsMember({"on", "off"}));
  sub_->add_option("--schedule", schedule_,
                   "bsp = the look-ahead driver (DEPTH, default); dag = the LU as an OpenMP task "
                   "graph whose priorities make the look-ahead (seed 004; DEPTH is ignored)")
      ->check(CLI::IsMember({"bsp", "dag"}));
  sub_->add_option("--dag-priorities", dag_priorities_,
                   "dag schedule: task priorities (on, default) or none (off, the ablation); "
                   "libgomp honours them only with OMP_MAX_TASK_PRIORITY >= 3")
      ->check(CLI::IsMember({"on", "off"}));
  sub_->add_option("--dag-group-columns", dag_group_columns_,
                   "dag schedule: about how many columns one non-urgent update task takes, "
                   "rounded to whole blocks; NB or less = one task per block (default 512; "
                   "$HPLX_DAG_GROUP_COLUMNS when the flag is not given)")
      ->check(CLI::Range(1L, 1L << 40));
  sub_->add_option("--dag-early-swap", dag_early_swap_,
                   "dag schedule, one process column: post the rest's row swap before the next "
                   "panel's factorization (on, default) or swap blocking (off; "
                   "$HPLX_DAG_EARLY_SWAP=0|1 when the flag is not given)")
      ->check(CLI::IsMember({"on", "off"}));
}

// The backend, and what the run writes and checks against.
void LuCommand::add_output_options() {
  sub_->add_option("--backend", backend_,
                   "where the matrix lives and the update runs: host (the CPU, OpenBLAS); "
                   "emulated (a GPU's semantics on the CPU, to test GPU code paths: slow); "
                   "cuda (NVIDIA GPUs, CUDA and cuBLAS) or hip (AMD GPUs, HIP and rocBLAS) when "
                   "compiled in (docs/GPU.md) "
                   "(default: the best one compiled in and present)");
  sub_->add_option("--json", json_, "write a JSON record of the run to this file");
  sub_->add_option("--trace", trace_,
                   "write a Chrome trace (FACT, LBCAST, RS, UPDATE spans per rank and thread) to "
                   "this file; open it in ui.perfetto.dev or chrome://tracing");
  sub_->add_option("--predict", predict_,
                   "predict each test with the MCL model of a machine spec before running it, and "
                   "compare after (FILE from `hplx model calibrate`; without FILE: "
                   "$HPLX_MACHINE_SPEC, ./machine.toml, ~/.config/hplx/machine.toml)")
      ->expected(0, 1);
  sub_->add_option("--rpeak", rpeak_,
                   "the job's Rpeak for the TOP500 figures printed after a sweep: GFLOPS, or a "
                   "system spec (TOML file, or the name of an installed example) whose device "
                   "Rpeak is multiplied by the ranks (default: detected from each node's CPUs: "
                   "cores x clock x FP64 flops per cycle)");
  sub_->add_option("--watchdog", watchdog_,
                   "end the job (exit status 3) when a rank has made no progress for SECONDS, "
                   "saying where each rank stopped and whom it waited for, and mark the record "
                   "interrupted; 0 = off (default: 20x the longest step so far, at least 60 s)")
      ->check(finite_in(0.0, 1e9, "a finite number of seconds in [0, 1e9]; 0 = off"));
  add_preflight_flags(*sub_, preflight_, preflight_threshold_);
  add_checkpoint_flags(*sub_, checkpoint_);
  sub_->add_flag("--quiet,-q", quiet_, "print only the netlib-format output");
}

// The backend, checked against the schedule and FACT's flags.
device::BackendKind LuCommand::backend() const {
  const device::BackendKind backend =
      backend_.empty() ? device::default_backend() : device::parse_backend(backend_);
  if (schedule_ == "dag" && backend != device::BackendKind::Host)
    throw UsageError(fmt::format(
        "--schedule dag --backend {}: the dag schedule runs on the host backend only (its tasks "
        "share the host's cores); use --schedule bsp",
        device::name_of(backend)));
  if (fact_device_gemm_ > 0 && backend == device::BackendKind::Host)
    throw UsageError(fmt::format(
        "--fact-device-gemm {} --backend host: FACT's DGEMMs are on the host already; allowed: "
        "0 on the host backend, any width on a device backend (emulated, cuda, hip)",
        fact_device_gemm_));
  return backend;
}

// Where FACT runs: --fact-on, else the backend's default
// (BackendTraits::fact_on_host).
std::string LuCommand::fact_place(device::BackendKind backend) const {
  const std::string fact_on = !fact_on_.empty()                         ? fact_on_
                              : device::traits_of(backend).fact_on_host ? "host"
                                                                        : "device";
  if (fact_on == "device" && schedule_ == "dag")
    throw UsageError(
        "--fact-on device --schedule dag: the dag schedule factors on the host; allowed: "
        "--fact-on host, or --schedule bsp");
  if (fact_on == "device" && fact_device_gemm_ > 0)
    throw UsageError(fmt::format(
        "--fact-device-gemm {} --fact-on device: all of FACT runs on the device already; "
        "allowed: --fact-on host with --fact-device-gemm, or drop --fact-device-gemm",
        fact_device_gemm_));
  return fact_on;
}

// The tests: the HPL.dat given, or one from the flags whose N, when not
// given, fills a GPU's memory or takes about --seconds of this machine's
// DGEMM (`notes` says which).
lu::HplDat LuCommand::tests(MPI_Comm world, device::BackendKind backend, long long per_rank,
                            std::vector<std::string>& notes) const {
  int size = 1;
  MPI_Comm_size(world, &size);
  if (!file_.empty()) {
    lu::HplDat dat = lu::parse_hpl_dat_text(read_hpl_dat_on_root(file_, world), file_);
    if (dat.device_out != 6 && dat.device_out != 7)
      require_outputs_on_root(world, {{file_ + ": line 3 (output file)", dat.output_file}});
    return dat;
  }
  const bool gpu = device::traits_of(backend).gpu;
  lu::HplDat dat = dat_from_test_flags(test_, size);
  if (gpu && !test_.nb) dat.nbs = {kCudaDefaultNb};
  if (test_.n) return dat;  // --n given: dat.ns holds it
  if (gpu) {
    // A GPU fills its memory, as GPU HPL runs do (the emulated device,
    // slow by design, keeps the time-based default below).
    const lu::GridShape g = dat.grids.front();
    const int nb = dat.nbs.at(0);
    const long n = lu::largest_fitting_n(per_rank, kDeviceMemoryFraction, nb, g.p, g.q);
    if (n < nb)
      throw UsageError(fmt::format(
          "--backend {}: {:.2f} GiB of device memory free per rank holds no NB = {} problem; "
          "allowed: --n N small enough, or free device memory",
          device::name_of(backend), static_cast<double>(per_rank) / (1 << 30), nb));
    dat.ns = {n};
    notes.push_back(fmt::format(
        "hplx: default problem: N = {} fills about {:.0f}% of the {:.2f} GiB of device memory "
        "free per rank (a device backend sizes N by memory; --n sets it)",
        n, 100 * kDeviceMemoryFraction, static_cast<double>(per_rank) / (1 << 30)));
    return dat;
  }
  // The embedded default: about `seconds_` of work that fits in memory.
  const double mine = device::probe_dgemm_gflops(0);
  double total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, world);
  const auto choice =
      lu::choose_default_problem(total, per_rank * size, size, seconds_, dat.nbs.at(0));
  dat.ns = {choice.n};
  notes.push_back("hplx: default problem: " + choice.reason);
  return dat;
}

// The schedule's flags into `dat` (and the notes they earn).
void LuCommand::set_schedule(lu::HplDat& dat, device::BackendKind kind, const std::string& fact_on,
                             const device::DeviceMpi& device_mpi, device::Device& dev,
                             std::vector<std::string>& notes) const {
  lu::Schedule& s = dat.schedule;
  s.fact_overlap = fact_overlap_ == "on";
  s.swap_pipeline = swap_pipeline_ == "on";
  s.fact_threads = fact_threads_;
  if (const std::string note = fact_team_blas_note(fact_threads_, openblas_parallel());
      !note.empty())
    notes.push_back("hplx: " + note);
  s.fact_device_gemm = fact_device_gemm_;
  s.fact_on = fact_on == "device" ? lu::FactOn::Device : lu::FactOn::Host;
  if (!device::traits_of(kind).fact_on_host || !fact_on_.empty())
    notes.push_back(fmt::format("hplx: FACT on the {} (--fact-on {})", fact_on, fact_on));
  s.device_mpi = device_mpi.on && fact_on == "device";
  s.fact_leaf = fact_leaf_ == "kernels"  ? lu::FactLeaf::Kernels
                : fact_leaf_ == "fused3" ? lu::FactLeaf::Fused3
                                         : lu::FactLeaf::Fused;
  s.fact_blocks = fact_blocks_;
  check_update_sms(update_sms_, dev.backend().multiprocessors());
  s.update_sms = update_sms_;
  s.update_sms_below = update_sms_below_;
  if (!device_mpi.why.empty()) notes.push_back("hplx: " + device_mpi.why);
  s.swap_first = swap_first_;
  s.swap_growth = swap_growth_;
  s.split = split_;
  s.split_auto = sub_->count("--split") == 0;
  s.update_on_device = !dev.compute().runs_inline();
  s.modified_long_swap = long_swap_ == "modified";
  s.core_sharing = core_sharing_ == "on";
  s.bcast_pipeline = bcast_pipeline_ == "on";
  s.kind = schedule_ == "dag" ? lu::ScheduleKind::Dag : lu::ScheduleKind::Bsp;
  s.dag_priorities = dag_priorities_ == "on";
  s.dag_group_columns = dag_group_columns_;
  s.dag_early_swap = dag_early_swap_ == "on";
  if (s.kind != lu::ScheduleKind::Dag) return;
  if (sub_->count("--dag-group-columns") == 0)
    if (const auto env = group_columns_from_environment()) s.dag_group_columns = *env;
  if (sub_->count("--dag-early-swap") == 0)
    if (const auto env = early_swap_from_environment()) s.dag_early_swap = *env;
  if (s.dag_priorities && omp_get_max_task_priority() < lu::kDagMaxPriority)
    dat.warnings.push_back(fmt::format(
        "--schedule dag: OMP_MAX_TASK_PRIORITY is {}, so the OpenMP runtime ignores the task "
        "priorities; set OMP_MAX_TASK_PRIORITY={} in the environment of hplx",
        omp_get_max_task_priority(), lu::kDagMaxPriority));
}

// What the run writes (the record, the trace), its watchdog and the Rpeak
// its figures are held against.
lu::RunOptions LuCommand::run_options(MPI_Comm world, const std::vector<std::string>& argv,
                                      device::BackendKind kind) const {
  lu::RunOptions options;
  options.json_path = json_;
  options.trace_path = trace_;
  options.argv = argv;
  options.quiet = quiet_;
  options.watchdog_s = watchdog_;
  resolve_rpeak(rpeak_, world, kind, options);
  return options;
}

// HPL as the benchmark runs it: the options checked before anything large
// is made, the threads and the device set up, the tests sized, then the
// tests run.
int LuCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  if (!file_.empty() && test_.any())
    throw UsageError(
        fmt::format("{}: give either an HPL.dat file or test flags (--n, --nb, "
                    "--grid, ...), not both",
                    file_));
  refuse_ignored_options();
  // Where the record and trace go is checked now, not after an hour's run.
  require_outputs_on_root(world, {{"--json", json_}, {"--trace", trace_}});
  // A spec to predict with is read and checked before anything runs.
  std::shared_ptr<const model::SystemSpec> spec;
  const std::string spec_path = !predict_           ? ""
                                : predict_->empty() ? model::default_machine_spec_path()
                                                    : *predict_;
  if (predict_) spec = std::make_shared<model::SystemSpec>(model::load_system_spec(spec_path));
  const device::BackendKind kind = backend();
  const std::string fact_on = fact_place(kind);
  const device::DeviceMpi device_mpi = device::choose_device_mpi(kind, cuda_aware_mpi_);
  ThreadCounts team;
  if (fact_threads_ > 1)
    team.emplace_back(fmt::format("--fact-threads {}", fact_threads_), fact_threads_);
  const ThreadPlan plan = plan_threads(world, threads_, team);
  apply_threads(plan);
  // The device first: a backend that cannot run here (no GPU) says so now,
  // and the memory per rank sizes and checks the problem.
  std::shared_ptr<device::Device> dev = device::make_device(kind);
  const long long per_rank = memory_per_rank(world, *dev, kind, plan.local_ranks);
  lu::RunOptions options = run_options(world, argv, kind);
  const std::string blas_warning = check_blas_kernels(kind, options);
  std::unique_ptr<PredictionObserver> predict;
  if (spec) {
    predict = std::make_unique<PredictionObserver>(spec, spec_path, rank == 0 && !quiet_,
                                                   plan.local_ranks);
    options.observer = predict.get();
  }
  options.notes.push_back(describe(plan, size));
  // Every figure depends on the kernels OpenBLAS runs: say so when hplx
  // chose them (main()).
  if (const std::string note = blas_core_note(); !note.empty())
    options.notes.push_back("hplx: " + note);

  lu::HplDat dat = tests(world, kind, per_rank, options.notes);
  set_schedule(dat, kind, fact_on, device_mpi, *dev, options.notes);
  if (!blas_warning.empty()) dat.warnings.push_back(blas_warning);
  lu::preflight(dat, size, per_rank);
  options.checkpoints =
      checkpoint_options(checkpoint_, *sub_, world, kind, lu::test_records(dat), quiet_);
  if (rank == 0 && !quiet_) {
    for (const auto& w : dat.warnings) std::fprintf(stderr, "hplx: warning: %s\n", w.c_str());
    for (const auto& note : options.notes) std::fprintf(stderr, "%s\n", note.c_str());
  }
  const Context ctx(world, plan, std::move(dev));
  if (rank == 0 && !quiet_)
    std::fprintf(stderr, "hplx: backend %s\n", ctx.device().backend().describe().c_str());
  const lu::PreflightOutcome checked = lu::run_node_preflight(
      ctx, dat,
      {preflight_.empty() ? lu::PreflightMode::Auto : lu::parse_preflight_mode(preflight_),
       preflight_threshold_},
      quiet_);
  if (checked.stop) return lu::kPreflightStopStatus;
  options.preflight = checked.record;
  return lu::run_hpl(ctx, dat, options);
}

std::string LuCommand::given(const std::string& name) const {
  const CLI::Option* opt = sub_->get_option(name);
  return opt->results().empty() ? "" : opt->results().front();
}

void LuCommand::refuse_ignored_options() const {
  auto refuse = [&](const std::string& name, const std::string& user, const std::string& has,
                    const std::string& instead) {
    if (sub_->count(name) == 0) return;
    throw UsageError(fmt::format("{} {}: only {} uses it (this run has {}); allowed: drop it or {}",
                                 name, given(name), user, has, instead));
  };
  if (schedule_ == "dag") {
    for (const char* name :
         {"--depth", "--split", "--swap-pipeline", "--swap-first", "--swap-growth",
          "--fact-overlap", "--fact-threads", "--checkpoint", "--checkpoint-every", "--resume"})
      refuse(name, "the bsp schedule", "--schedule dag", "use --schedule bsp");
  } else {
    for (const char* name : {"--dag-priorities", "--dag-group-columns", "--dag-early-swap"})
      refuse(name, "the dag schedule", "--schedule " + schedule_, "use --schedule dag");
    if (swap_pipeline_ != "on")
      for (const char* name : {"--swap-first", "--swap-growth"})
        refuse(name, "the row-swap pipeline", "--swap-pipeline off", "add --swap-pipeline on");
  }
}

}  // namespace hplx::app
