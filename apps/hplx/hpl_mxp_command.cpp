#include "hpl_mxp_command.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "core/blas_core.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/grid.hpp"
#include "core/json_record.hpp"
#include "core/run_harness.hpp"
#include "core/system_info.hpp"
#include "core/threads.hpp"
#include "core/trace.hpp"
#include "device/device.hpp"
#include "device/dgemm_probe.hpp"
#include "lu/config.hpp"
#include "lu/run/flag_values.hpp"
#include "lu/run/hpl_run.hpp"
#include "lu/run/node_preflight.hpp"
#include "lu/run/problem_size.hpp"
#include "lu_flags.hpp"
#include "root_check.hpp"

namespace hplx::app {
namespace {

// The share of a device's free memory a default problem fills (as hplx lu's).
constexpr double kDeviceMemoryFraction = 0.85;
// NB on cuda without --nb: the 16-bit GemmEx of the update runs near its
// peak only with a deep K. On the H200 (2026-11-28) the FP16 GemmEx probe
// ran 482, 674 and 753 TFLOP/s at NB 1024, 2048 and 4096, and every
// full-memory hplx hpl-mxp run (7.94x hplx lu) used 4096
// (bench/results/2026-11-28-gpu-check-h200); bench/gpu/check.sh tries 2048.
constexpr int kCudaDefaultNb = 4096;

device::Precision parse_precision(const std::string& text) {
  for (device::Precision p :
       {device::Precision::Fp32, device::Precision::Fp16, device::Precision::Bf16})
    if (text == device::name_of(p)) return p;
  throw UsageError("--precision '" + text + "': allowed: fp32, fp16, bf16");
}

// The tests an HPL.dat lists, in netlib's order (grid outermost, then N,
// NB, BCAST, DEPTH, each DEPTH the LU's look-ahead depth). The lines about pivoting and the LU's
// other schedule choices (PFACT, NBMIN, NDIV, RFACT, SWAP, the forms,
// equilibration, alignment) have no meaning for an LU without pivoting;
// the run's note says so.
std::vector<hplmxp::HplMxpConfig> tests_of(const lu::HplDat& dat, const hplmxp::HplMxpConfig& base,
                                           int world_size) {
  if (!(dat.threshold > 0))
    throw UsageError(fmt::format(
        "{}:13: threshold {}: HPL-MxP refines until its check is below the threshold, so it "
        "cannot skip the check; allowed: a number > 0 (16 is HPL-MxP's rule)",
        dat.source, dat.threshold));
  std::vector<hplmxp::HplMxpConfig> tests;
  for (const lu::GridShape& g : dat.grids) {
    if (static_cast<long>(g.p) * g.q > world_size)
      throw UsageError(fmt::format(
          "{}: process grid P x Q = {} x {} needs {} MPI ranks, this job has {}; allowed: P*Q "
          "<= {} (start more ranks with mpiexec -n, or list a smaller grid)",
          dat.source, g.p, g.q, g.p * g.q, world_size, world_size));
    for (long n : dat.ns)
      for (int nb : dat.nbs)
        for (lu::Broadcast b : dat.bcasts)
          for (int depth : dat.depths) {
            hplmxp::HplMxpConfig c = base;
            c.n = n;
            c.nb = nb;
            c.nprow = g.p;
            c.npcol = g.q;
            c.pmap = dat.pmap;
            c.bcast = b;
            c.threshold = dat.threshold;
            c.depth = depth;
            tests.push_back(c);
          }
  }
  return tests;
}

// HPL on the same N, NB and grid (--compare-hpl): `hplx lu`'s test with its
// defaults for flags (WR11C2R4, its per-grid split), run as `hplx lu` runs
// it (lu::run_one_test), in this process on the same device.
struct HplComparison {
  std::string variant;
  double time_s = 0, gflops = 0, residual = 0;
  bool passed = false;
};

HplComparison run_hpl_beside(const Context& ctx, const hplmxp::HplMxpConfig& c, int world_size) {
  lu::HplDat dat = dat_from_test_flags(LuTestFlags{}, world_size);
  dat.ns = {c.n};
  dat.nbs = {c.nb};
  dat.grids = {{c.nprow, c.npcol}};
  dat.pmap = c.pmap;
  dat.schedule.split_auto = true;  // as `hplx lu` without --split
  dat.schedule.update_on_device = !ctx.device().compute().runs_inline();
  lu::TestCase t = lu::expand_tests(dat).front();
  lu::choose_for_grid(t);
  HplComparison r;
  r.variant = lu::variant_code(t);
  const ProcessGrid grid(ctx.world(), c.nprow, c.npcol, c.pmap);
  if (!grid.in_grid()) return r;
  const lu::CheckedTest run = lu::run_one_test(ctx, t, grid, 16.0);
  r.time_s = run.seconds;
  r.gflops = run.gflops;
  r.residual = run.residual;
  r.passed = run.passed;
  return r;
}

}  // namespace

HplMxpCommand::HplMxpCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "hpl-mxp",
      "HPL-MxP: dense LU in FP32 without pivoting, refined by GMRES in FP64 (the TOP500's "
      "mixed-precision benchmark; not `mxp`, which is HPG-MxP)");
  sub_->add_option("file", file_,
                   "HPL.dat input (netlib 2.3 format; N, NB, PMAP, P x Q, threshold and BCAST "
                   "apply): every combination runs; without it, one test from the flags");
  sub_->add_option("--dat", dat_, "the HPL.dat input, as FILE");
  sub_->add_option("--n", n_,
                   "matrix order N (>= 3; default: sized from memory and a DGEMM probe to take "
                   "about --seconds)");
  sub_->add_option("--nb", config_.nb,
                   "block size NB (>= 1; default 256, 4096 on cuda: the 16-bit update's GEMM "
                   "wants a deep K)");
  sub_->add_option("--grid", grid_, "process grid PxQ (default: squarest grid of the ranks)");
  sub_->add_option("--pmap", pmap_,
                   "how ranks fill the process grid: row (row-major, default) | column");
  sub_->add_option("--bcast", bcast_,
                   "panel broadcast along process rows: 1ring | 1ringM | 2ring | 2ringM | long | "
                   "longM (default 1ringM)");
  sub_->add_option("--depth", config_.depth,
                   "look-ahead depth, as hplx lu's: D panels factored and sent ahead of the "
                   "update (default 1; 0: none)");
  sub_->add_option(
      "--backend", backend_,
      "where the factorization and the preconditioner's solves run: host, emulated "
      "(the emulated device, for testing), cuda (NVIDIA GPUs) or hip (AMD GPUs; docs/GPU.md); "
      "the FP64 refinement's products run there too, its vectors on the host "
      "(default host)");
  sub_->add_option("--precision", precision_,
                   "the update's operands: fp32, fp16 or bf16 (16-bit operands, FP32 products "
                   "and sums); default fp16 on cuda, fp32 otherwise");
  sub_->add_option("--panel-solve", panel_solve_,
                   "L21 and U12 from the diagonal block: trsm (STRSM: default on host), inverse "
                   "(SGEMMs by its triangles' inverses, made once per panel: default on device "
                   "backends beside an fp32 update, where STRSM of a tall panel is slow) or "
                   "inverse-tf32 (the same GEMMs multiplied in TF32 on the tensor cores: "
                   "default on device backends beside an fp16 or bf16 update)");
  sub_->add_option("--update-sms", config_.update_sms,
                   "device backends: the SMs the update beside FACT aims at (cuBLAS's SM count "
                   "target), the others left to FACT, as hplx lu's; 0 = every SM (default 0)")
      ->check(CLI::Range(0, 1 << 20));
  sub_->add_option("--update-sms-below", config_.update_sms_below,
                   "--update-sms only where the trailing matrix has fewer than this many rows; "
                   "0 = every iteration (default 0)")
      ->check(CLI::NonNegativeNumber);
  sub_->add_option("--restart", config_.restart, "GMRES restart length (default 30)");
  sub_->add_option(
      "--max-iterations", config_.max_iterations,
      "GMRES iterations allowed in all before the run fails to converge (default 100)");
  sub_->add_option("--threshold", config_.threshold,
                   "the check passes below this (default 16, HPL-MxP's rule)");
  sub_->add_option("--diagonal-scale", config_.diagonal_scale,
                   "testing: multiply the matrix's diagonal by this (default 1; other values "
                   "are not the benchmark's matrix)");
  sub_->add_option("--threads", threads_,
                   "OpenMP/OpenBLAS threads per rank (default cores / ranks)");
  sub_->add_option("--seconds", seconds_, "target run time of the default problem (default 60)")
      ->check(finite_in(1e-3, 1e9, "a finite number of seconds in [0.001, 1e9]"));
  sub_->add_flag("--compare-hpl", compare_hpl_,
                 "after each test, run HPL (`hplx lu`, FP64 with pivoting) on the same N, NB "
                 "and grid and print both rates and the speed-up");
  sub_->add_option(
      "--trace", trace_,
      "write a Chrome trace (SETUP, FACT, LBCAST, UBCAST, UPDATE, SOLVE spans per rank) "
      "to "
      "FILE, for ui.perfetto.dev");
  sub_->add_option("--watchdog", watchdog_,
                   "end the job (exit status 3) when a rank has made no progress for SECONDS, "
                   "saying where each rank stopped and whom it waited for, and mark the record "
                   "interrupted; 0 = off (default: 20x the longest step so far, at least 60 s)")
      ->check(finite_in(0.0, 1e9, "a finite number of seconds in [0, 1e9]; 0 = off"));
  add_preflight_flags(*sub_, preflight_, preflight_threshold_);
  add_checkpoint_flags(*sub_, checkpoint_);
  sub_->add_flag("--quiet", quiet_, "no progress lines on stderr");
  sub_->add_option("--json", json_, "write a JSON record of the run to this file");
}

// The tests a run makes and what it says about them.
struct MxpInput {
  std::string file;  // the HPL.dat, or empty: one test from the flags
  lu::HplDat dat;
  std::vector<hplmxp::HplMxpConfig> tests;
  std::vector<std::string> notes;
};

namespace {

// What a rank may take: its share of its node's memory and of its device's
// free memory (the smallest over the ranks, so all agree on the verdict).
struct MxpMemory {
  long long per_rank = 0;  // host bytes
  long long free_dev = 0;  // device bytes (0 on the host backend)
  device::BackendKind backend = device::BackendKind::Host;
  bool on_device() const { return backend != device::BackendKind::Host; }
  // Host memory a test needs; the emulated device's memory is host memory
  // too, so there both sides count.
  long long host_bytes(const hplmxp::HplMxpConfig& t) const {
    return hplmxp::bytes_per_process(t, on_device()) +
           (backend == device::BackendKind::Emulated ? hplmxp::device_bytes_per_process(t) : 0LL);
  }
};

// A device backend sizes N by memory, as `hplx lu` does there: the largest
// multiple of NB whose FP32 matrix and panels fill at most
// kDeviceMemoryFraction of the device and whose host side (the panels' host
// sides and the vectors) fits the host's share.
std::string size_by_device_memory(hplmxp::HplMxpConfig& c, const MxpMemory& mem) {
  long lo = 0, hi = 1L << 24;  // multiples of NB: hi * NB is beyond any device
  auto fits = [&](long blocks) {
    hplmxp::HplMxpConfig t = c;
    t.n = blocks * c.nb;
    return hplmxp::device_bytes_per_process(t) <= kDeviceMemoryFraction * mem.free_dev &&
           mem.host_bytes(t) <= lu::kMemoryLimitFraction * mem.per_rank;
  };
  while (lo < hi) {
    const long mid = (lo + hi + 1) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  c.n = lo * c.nb;
  if (c.n < 3)
    throw UsageError(fmt::format(
        "--backend {}: {:.2f} GiB of device memory free per rank holds no NB = {} problem; "
        "allowed: --n N small enough, or free device memory",
        device::name_of(mem.backend), static_cast<double>(mem.free_dev) / (1 << 30), c.nb));
  const double dev_share = static_cast<double>(hplmxp::device_bytes_per_process(c)) /
                           static_cast<double>(std::max(1LL, mem.free_dev));
  const double host_share =
      static_cast<double>(mem.host_bytes(c)) / static_cast<double>(std::max(1LL, mem.per_rank));
  return fmt::format(
      "hplx hpl-mxp: default problem: N = {}: the FP32 matrix and panels take {:.0f}% of the "
      "{:.2f} GiB of device memory free per rank (limit {:.0f}%), the host side {:.0f}% of "
      "the {:.2f} GiB of host memory per rank (limit {:.0f}%); a device backend sizes N by "
      "memory; --n sets it",
      c.n, 100 * dev_share, static_cast<double>(mem.free_dev) / (1 << 30),
      100 * kDeviceMemoryFraction, 100 * host_share, static_cast<double>(mem.per_rank) / (1 << 30),
      100 * lu::kMemoryLimitFraction);
}

// On the host, as `hplx lu`'s embedded default, from a DGEMM probe on every
// rank; the factorization is FP32, whose BLAS rate on CPUs is about twice
// FP64's (twice the SIMD lanes), so twice the probe stands for it.
std::string size_by_time(hplmxp::HplMxpConfig& c, const MxpMemory& mem, MPI_Comm world, int size,
                         double seconds) {
  const double mine = device::probe_dgemm_gflops(0);
  double fp64 = 0;
  MPI_Allreduce(&mine, &fp64, 1, MPI_DOUBLE, MPI_SUM, world);
  const double fp64_grid = fp64 * c.nprow * c.npcol / size;
  const hplmxp::DefaultSize d =
      hplmxp::choose_default_size(c, 2 * fp64_grid, mem.per_rank, seconds);
  c.n = d.n;
  return fmt::format(
      "hplx hpl-mxp: default problem: N = {}{}: DGEMM probe {:.1f} Gflop/s on the {}x{} grid, "
      "FP32 taken as 2x that ({:.1f}) x {:.2f} efficiency -> about {:.3g} s of FP32 LU "
      "(target {:g} s); 12 bytes per element (FP64 matrix + FP32 copy): {:.2f} GiB of {:.2f} "
      "GiB per rank (limit {:.0f}%); --n sets N",
      d.n, d.memory_bound ? " (capped by memory)" : "", fp64_grid, c.nprow, c.npcol, 2 * fp64_grid,
      lu::kLuEfficiency, d.predicted_seconds, seconds,
      static_cast<double>(d.bytes_per_process) / (1 << 30),
      static_cast<double>(mem.per_rank) / (1 << 30), 100 * lu::kMemoryLimitFraction);
}

// Every test fits its rank's host memory and, on a device, its device's
// (the host checked for every test first).
void check_fits(const std::vector<hplmxp::HplMxpConfig>& tests, const MxpMemory& mem) {
  for (const hplmxp::HplMxpConfig& c : tests)
    hplmxp::check_memory(
        c, mem.per_rank - (mem.host_bytes(c) - hplmxp::bytes_per_process(c, mem.on_device())),
        mem.on_device());
  if (!mem.on_device()) return;
  for (const hplmxp::HplMxpConfig& c : tests) {
    const long long need = hplmxp::device_bytes_per_process(c);
    if (need > mem.free_dev)
      throw UsageError(fmt::format(
          "--n {}: needs {:.2f} GiB of device memory per rank (FP32 matrix, panels), {:.2f} "
          "GiB free; allowed: a smaller N",
          c.n, static_cast<double>(need) / (1 << 30),
          static_cast<double>(mem.free_dev) / (1 << 30)));
  }
}

// The tests of one `hplx hpl-mxp` run, one at a time: the report where the
// HPL.dat's lines 3-4 send it (stdout without one), the JSON record on disk
// after every test and marked interrupted on SIGINT/SIGTERM or by the
// watchdog, as `hplx lu`'s, and the trace.
class MxpRun {
 public:
  struct Settings {
    std::string json, trace;
    std::optional<double> watchdog_s;
    bool quiet = false, compare_hpl = false;
    const std::vector<std::string>* argv = nullptr;
    std::string plan;          // the thread plan, described
    nlohmann::json preflight;  // what --preflight measured (null: it did not run)
    lu::CheckpointOptions checkpoints;
  };
  MxpRun(const Context& ctx, const MxpInput& in, Settings settings)
      : ctx_(ctx),
        in_(in),
        set_(std::move(settings)),
        rank_(rank_in(ctx.world())),
        harness_(ctx, {.command = "hplx hpl-mxp",
                       .say = "hplx hpl-mxp",
                       .json_path = set_.json,
                       .trace_path = set_.trace,
                       .watchdog_s = set_.watchdog_s,
                       .quiet = set_.quiet,
                       .argv = *set_.argv,
                       .planned = static_cast<long>(in.tests.size())}) {
    open_report();
    if (rank_ == 0 && !set_.json.empty()) {
      record_ = make_record_header("hpl-mxp", *set_.argv);
      record_["thread_plan"] = set_.plan;
      record_["backend"] = device::name_of(ctx.device().kind());
      record_["notes"] = in.notes;
      if (!set_.preflight.is_null()) record_["preflight"] = set_.preflight;
      if (!in.file.empty()) record_["input"] = in.file;
      record_["tests"] = nlohmann::json::array();
      harness_.keep(record_, 0);
    }
  }
  // The test `index` of the run.
  void test(const hplmxp::HplMxpConfig& c, long index);
  // The summary, the trace and the final record; the status every rank returns.
  int close();

 private:
  void open_report() {
    const lu::HplDat& dat = in_.dat;
    if (in_.file.empty()) return;
    if (dat.device_out == 7) out_ = stderr;
    if (dat.device_out != 6 && dat.device_out != 7 && rank_ == 0) {
      out_file_.reset(std::fopen(dat.output_file.c_str(), "w"));
      if (!out_file_) throw Error(fmt::format("{}: cannot write the report", dat.output_file));
      out_ = out_file_.get();
    }
  }
  void compare_with_hpl(const hplmxp::HplMxpConfig& c, const hplmxp::HplMxpResult& result,
                        nlohmann::json& test);
  void add_to_record(nlohmann::json test);

  const Context& ctx_;
  const MxpInput& in_;
  const Settings set_;
  const int rank_;
  std::FILE* out_ = stdout;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out_file_{nullptr, &std::fclose};
  RunHarness harness_;  // the live record, the trace, the activity and its watchdog
  nlohmann::json record_;
  int passed_ = 0, failed_ = 0;
};

void MxpRun::test(const hplmxp::HplMxpConfig& c, long index) {
  // A resumed run goes on at the checkpoint's test.
  const auto& resume = set_.checkpoints.resume;
  if (resume && index < resume->manifest.test_index) return;
  MPI_Comm world = ctx_.world();
  {  // what the watchdog names: the test, and whom this rank waits for
    const ProcessGrid grid(world, c.nprow, c.npcol, c.pmap);
    harness_.begin_test(grid,
                        fmt::format("HPL-MxP N={} NB={} P={} Q={}", c.n, c.nb, c.nprow, c.npcol));
  }
  const hplmxp::HplMxpResult result = hplmxp::run_hpl_mxp(
      harness_.context(), c, {&set_.checkpoints, index, hplmxp::config_json(c)});
  (result.passed() ? passed_ : failed_) += 1;
  if (rank_ == 0) {
    hplmxp::print_result(result, c.threshold, out_);
    if (!set_.quiet) lu::print_segments(result.segments, c.n);
    if (c.diagonal_scale != 1.0)
      std::fprintf(out_,
                   "hplx hpl-mxp: --diagonal-scale %g: not the benchmark's matrix, no result\n",
                   c.diagonal_scale);
    std::fflush(out_);
  }
  nlohmann::json test = rank_ == 0 ? hplmxp::to_json(result, c) : nlohmann::json();
  if (set_.compare_hpl) compare_with_hpl(c, result, test);
  if (rank_ == 0 && !set_.json.empty()) add_to_record(std::move(test));
}

// HPL on the same N, NB and grid, after the HPL-MxP test has freed its
// matrices (the LU's 8 bytes per element fit where its 12 did).
void MxpRun::compare_with_hpl(const hplmxp::HplMxpConfig& c, const hplmxp::HplMxpResult& result,
                              nlohmann::json& test) {
  int size = 1;
  MPI_Comm_size(ctx_.world(), &size);
  const HplComparison hpl = run_hpl_beside(ctx_, c, size);
  const double speedup = hpl.gflops > 0 ? result.gflops / hpl.gflops : 0.0;
  if (rank_ != 0) return;
  std::fprintf(out_,
               "HPL (hplx lu %s) N=%ld NB=%d P=%d Q=%d time %.4f s %.4e Gflops, residual "
               "%.7e ...... %s\n",
               hpl.variant.c_str(), c.n, c.nb, c.nprow, c.npcol, hpl.time_s, hpl.gflops,
               hpl.residual, hpl.passed ? "PASSED" : "FAILED");
  std::fprintf(out_, "HPL-MxP speed-up over HPL: %.2fx (score %.4e / HPL %.4e Gflops)\n", speedup,
               result.gflops, hpl.gflops);
  std::fflush(out_);
  test["compare_hpl"] = {{"variant", hpl.variant},   {"gflops", hpl.gflops}, {"time_s", hpl.time_s},
                         {"residual", hpl.residual}, {"passed", hpl.passed}, {"speedup", speedup}};
}

// Written after every test, so a long sweep's finished tests are kept.
void MxpRun::add_to_record(nlohmann::json test) {
  record_["tests"].push_back(std::move(test));
  if (record_["tests"].size() == 1)
    record_["result"] = record_["tests"][0];  // the single test's shape, as before the list
  else
    record_.erase("result");
  record_["summary"] = {{"tests", passed_ + failed_}, {"passed", passed_}, {"failed", failed_}};
  harness_.keep(record_, static_cast<long>(record_["tests"].size()));
}

int MxpRun::close() {
  if (rank_ == 0 && (!in_.file.empty() || in_.tests.size() > 1)) {
    std::fprintf(out_,
                 "Finished %6d tests with the following results:\n"
                 "         %6d tests passed the HPL-MxP check,\n"
                 "         %6d tests failed to converge.\n",
                 passed_ + failed_, passed_, failed_);
    std::fflush(out_);
  }
  const bool recorded = rank_ == 0 && !set_.json.empty();
  return harness_.close(recorded ? &record_ : nullptr,
                        recorded ? static_cast<long>(record_["tests"].size()) : 0,
                        failed_ > 0 ? 1 : 0);
}

}  // namespace

device::BackendKind HplMxpCommand::settle_flags() {
  if (grid_) {
    const lu::GridShape g = lu::parse_grid_flag(*grid_);
    config_.nprow = g.p;
    config_.npcol = g.q;
  }
  if (pmap_) config_.pmap = lu::parse_pmap_flag(*pmap_);
  if (bcast_) config_.bcast = lu::parse_bcast_flag(*bcast_);
  const device::BackendKind backend =
      backend_ ? device::parse_backend(*backend_) : device::BackendKind::Host;
  if (backend == device::BackendKind::Sim)
    throw UsageError("--backend sim: allowed for hpl-mxp: host, emulated, cuda, hip");
  config_.precision = precision_                       ? parse_precision(*precision_)
                      : device::traits_of(backend).gpu ? device::Precision::Fp16
                                                       : device::Precision::Fp32;
  const bool low = config_.precision != device::Precision::Fp32;
  config_.panel_solve = panel_solve_ ? hplmxp::parse_panel_solve(*panel_solve_)
                        : backend == device::BackendKind::Host ? hplmxp::PanelSolve::Trsm
                        : low                                  ? hplmxp::PanelSolve::InverseTf32
                                                               : hplmxp::PanelSolve::Inverse;
  if (device::traits_of(backend).gpu && sub_->count("--nb") == 0) config_.nb = kCudaDefaultNb;
  return backend;
}

// The HPL.dat given, as the argument or --dat, or empty; test flags with
// it are refused.
std::string HplMxpCommand::input_file() const {
  if (!file_.empty() && !dat_.empty() && file_ != dat_)
    throw UsageError(fmt::format("{} and --dat {}: give one HPL.dat", file_, dat_));
  const std::string file = file_.empty() ? dat_ : file_;
  if (!file.empty())
    for (const char* flag :
         {"--n", "--nb", "--grid", "--pmap", "--bcast", "--depth", "--threshold"})
      if (sub_->count(flag) > 0)
        throw UsageError(fmt::format(
            "{}: give either an HPL.dat file or test flags ({} ...), not both", file, flag));
  return file;
}

// The tests: the HPL.dat's (its N, NB, PMAP, P x Q, threshold, BCAST and
// DEPTH), or one from the flags, each checked against the job.
MxpInput HplMxpCommand::read_tests(const std::string& file, MPI_Comm world, int size) {
  MxpInput in;
  in.file = file;
  if (!file.empty()) {
    in.dat = lu::parse_hpl_dat_text(read_hpl_dat_on_root(file, world), file);
    in.tests = tests_of(in.dat, config_, size);
    in.notes.push_back(fmt::format(
        "hplx hpl-mxp: {}: N, NB, PMAP, P x Q, the threshold, BCAST and DEPTH (the look-ahead "
        "depth, as hplx lu's) apply; the LU's pivoting and schedule lines (PFACT, "
        "NBMIN, NDIV, RFACT, SWAP, lines 27-31) do not and are ignored",
        file));
    if (in.dat.device_out != 6 && in.dat.device_out != 7)
      require_outputs_on_root(world, {{file + ": line 3 (output file)", in.dat.output_file}});
  } else {
    config_.n = n_.value_or(3);  // checked with a placeholder, sized later
    hplmxp::check_config(config_, size);
    in.tests = {config_};
  }
  for (hplmxp::HplMxpConfig& c : in.tests) hplmxp::check_config(c, size);
  return in;
}

int HplMxpCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const std::string file = input_file();
  const device::BackendKind backend = settle_flags();
  MxpInput in = read_tests(file, world, size);
  require_outputs_on_root(world, {{"--json", json_}, {"--trace", trace_}});

  const ThreadPlan plan = plan_threads(world, threads_);
  MxpMemory mem;  // before any large allocation
  mem.backend = backend;
  mem.per_rank = available_memory_bytes() / std::max(1, plan.local_ranks);
  MPI_Allreduce(MPI_IN_PLACE, &mem.per_rank, 1, MPI_LONG_LONG, MPI_MIN, world);
  apply_threads(plan);
  const Context ctx(world, plan, device::make_device(backend));
  check_update_sms(config_.update_sms, ctx.device().backend().multiprocessors());
  if (mem.on_device()) {
    mem.free_dev = static_cast<long long>(ctx.device().backend().free_device_bytes());
    MPI_Allreduce(MPI_IN_PLACE, &mem.free_dev, 1, MPI_LONG_LONG, MPI_MIN, world);
  }
  if (in.file.empty() && !n_) {  // the default problem
    hplmxp::HplMxpConfig& c = in.tests.front();
    in.notes.push_back(mem.on_device() ? size_by_device_memory(c, mem)
                                       : size_by_time(c, mem, world, size, seconds_));
    hplmxp::check_config(c, size);
  }
  check_fits(in.tests, mem);
  if (rank == 0 && !quiet_) {
    std::fprintf(stderr, "%s\n", describe(plan, size).c_str());
    std::fprintf(stderr, "hplx hpl-mxp: backend %s\n", ctx.device().backend().describe().c_str());
    if (const std::string note = blas_core_note(); !note.empty())
      std::fprintf(stderr, "hplx: %s\n", note.c_str());
    for (const std::string& note : in.notes) std::fprintf(stderr, "%s\n", note.c_str());
  }
  // The slow node named before the run: at the largest test's shape.
  const auto largest = std::max_element(
      in.tests.begin(), in.tests.end(),
      [](const hplmxp::HplMxpConfig& a, const hplmxp::HplMxpConfig& b) { return a.n < b.n; });
  const lu::PreflightOutcome checked = lu::run_node_preflight(
      ctx, {largest->n, largest->nb, {largest->nprow, largest->npcol}, largest->pmap},
      {preflight_.empty() ? lu::PreflightMode::Auto : lu::parse_preflight_mode(preflight_),
       preflight_threshold_},
      quiet_);
  if (checked.stop) return lu::kPreflightStopStatus;
  std::vector<nlohmann::json> tests;
  for (const hplmxp::HplMxpConfig& c : in.tests) tests.push_back(hplmxp::config_json(c));
  MxpRun run(
      ctx, in,
      {json_, trace_, watchdog_, quiet_, compare_hpl_, &argv, describe(plan, size), checked.record,
       checkpoint_options(checkpoint_, *sub_, world, backend, tests, quiet_)});
  for (std::size_t i = 0; i < in.tests.size(); ++i) run.test(in.tests[i], static_cast<long>(i));
  return run.close();
}

}  // namespace hplx::app
