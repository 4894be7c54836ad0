#include "lu/run/hpl_run.hpp"

#include <algorithm>

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <omp.h>
#include <nlohmann/json.hpp>

#include "core/activity.hpp"
#include "core/core_sharing.hpp"
#include "core/energy.hpp"
#include "core/error.hpp"
#include "core/flops.hpp"
#include "core/json_record.hpp"
#include "core/progress.hpp"
#include "core/run_harness.hpp"
#include "core/slow_ranks.hpp"
#include "core/threads.hpp"
#include "core/timer.hpp"
#include "core/trace.hpp"
#include "device/backend.hpp"
#include "device/backend_kind.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/run/netlib_output.hpp"
#include "lu/run/problem_size.hpp"
#include "lu/run/verify.hpp"
#include "lu/schedules/dag_schedule.hpp"
#include "lu/schedules/pdgesv.hpp"
#include "lu/schedules/workspace.hpp"
#include "lu/update_work.hpp"

namespace hplx::lu {

static_assert(Schedule{}.dag_group_columns == kDagGroupColumns,
              "--dag-group-columns' default is the dag schedule's constant");

namespace {

// "HPL.dat:11: " for values from a file, "" for values from flags.
std::string where(const HplDat& dat, int line) {
  if (dat.source.empty() || dat.source.front() == '<' || dat.source.front() == '-') return "";
  return fmt::format("{}:{}: ", dat.source, line);
}

std::string gib(long long bytes) {
  return fmt::format("{:.2f} GiB", bytes / 1073741824.0);
}

struct OutputFile {
  std::FILE* fp = nullptr;
  bool owned = false;
  std::string path;
  ~OutputFile() {
    if (owned && fp) std::fclose(fp);
  }
  // A run that fails part-way leaves no half-written output file.
  void discard() {
    if (owned && fp) {
      std::fclose(fp);
      std::remove(path.c_str());
      fp = nullptr;
    }
  }
};

nlohmann::json to_json(const TestCase& t) {
  return {{"n", t.n},
          {"nb", t.nb},
          {"p", t.grid.p},
          {"q", t.grid.q},
          {"pmap", t.pmap == GridOrder::RowMajor ? "row" : "column"},
          {"depth", t.depth},
          {"bcast", name_of(t.bcast)},
          {"rfact", name_of(t.rfact)},
          {"pfact", name_of(t.pfact)},
          {"nbmin", t.nbmin},
          {"ndiv", t.ndiv},
          {"swap", name_of(t.swap)},
          {"swap_threshold", t.swap_threshold},
          {"variant", variant_code(t)},
          {"schedule",
           {{"fact_overlap", t.schedule.fact_overlap},
            {"fact_threads", t.schedule.fact_threads},
            {"fact_device_gemm", t.schedule.fact_device_gemm},
            {"fact_on", name_of(t.schedule.fact_on)},
            {"fact_leaf", name_of(t.schedule.fact_leaf)},
            {"fact_blocks", t.schedule.fact_blocks},
            {"update_sms", t.schedule.update_sms},
            {"update_sms_below", t.schedule.update_sms_below},
            {"cuda_aware_mpi", t.schedule.device_mpi},
            {"swap_pipeline", t.schedule.swap_pipeline},
            {"swap_first", t.schedule.swap_first},
            {"swap_growth", t.schedule.swap_growth},
            {"split", t.schedule.split},
            {"split_auto", t.schedule.split_auto && t.schedule.split > 0},
            {"long_swap", t.schedule.modified_long_swap ? "modified" : "netlib"},
            {"core_sharing", t.schedule.core_sharing},
            {"bcast_pipeline", t.schedule.bcast_pipeline},
            {"kind", name_of(t.schedule.kind)},
            {"dag_priorities", t.schedule.dag_priorities},
            {"dag_group_columns", t.schedule.dag_group_columns},
            {"dag_early_swap", t.schedule.dag_early_swap},
            {"omp_max_task_priority", omp_get_max_task_priority()}}}};
}

// Simulated: the sim backend solved nothing (no data), so there is no residual.
enum class Verdict { Passed, Failed, Unchecked, Skipped, Simulated };

constexpr const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Passed:
      return "PASSED";
    case Verdict::Failed:
      return "FAILED";
    case Verdict::Unchecked:
      return "UNCHECKED";
    case Verdict::Skipped:
      return "SKIPPED";
    case Verdict::Simulated:
      return "SIMULATED";
  }
  return "";
}

// The energy of one solve over the test's grid: the packages of each node
// (read by the node's first rank of the grid) and each rank's device.
struct EnergyUse {
  std::optional<double> cpu_joules, device_joules;
  std::string cpu_why_not, device_why_not;  // rank 0's reasons
  std::string sources;
  bool measured() const { return cpu_joules || device_joules; }
  double joules() const { return cpu_joules.value_or(0) + device_joules.value_or(0); }
};

// What one rank reads at one instant: its node's package counters when it
// reads for the node, and its device's counter.
struct EnergySample {
  std::optional<std::vector<unsigned long long>> packages;
  EnergyCounter device;
};

class EnergyMeter {
 public:
  EnergyMeter(const PackageEnergy& packages, device::Backend& backend, MPI_Comm grid)
      : packages_(packages), backend_(backend), grid_(grid) {
    MPI_Comm node = MPI_COMM_NULL;
    HPLX_MPI_CHECK(MPI_Comm_split_type(grid, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    reads_node_ = node_rank == 0;
  }
  EnergySample sample() const {
    EnergySample s;
    if (reads_node_ && packages_.available()) s.packages = packages_.read();
    s.device = backend_.energy_counter();
    return s;
  }
  // Collective over the grid.
  EnergyUse use(const EnergySample& before, const EnergySample& after) const {
    EnergyUse u;
    // ok[0]: packages read (ranks that do not read for a node agree);
    // ok[1]: device counter read; -1 where the backend has no device.
    int ok[2] = {1, 1};
    double joules[2] = {0, 0}, nodes = 0;
    if (reads_node_) {
      nodes = 1;
      if (packages_.available() && before.packages && after.packages)
        joules[0] = packages_.joules_between(*before.packages, *after.packages);
      else
        ok[0] = 0;
    }
    const bool no_device = !after.device.joules && after.device.why_not.empty();
    if (no_device) {
      ok[1] = -1;
    } else if (before.device.joules && after.device.joules) {
      joules[1] = *after.device.joules - *before.device.joules;
    } else {
      ok[1] = 0;
    }
    double devices = ok[1] == 1 ? 1 : 0;
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_MIN, grid_));
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, joules, 2, MPI_DOUBLE, MPI_SUM, grid_));
    double counts[2] = {nodes, devices};
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_DOUBLE, MPI_SUM, grid_));
    if (ok[0] == 1) {
      u.cpu_joules = joules[0];
      u.sources = fmt::format("{} on {} node{}", packages_.describe(), counts[0],
                              counts[0] == 1 ? "" : "s");
    } else {
      u.cpu_why_not = !packages_.available() ? packages_.why_not()
                      : reads_node_ && !(before.packages && after.packages)
                          ? "a RAPL counter could not be read again"
                          : "the RAPL counters are not readable on every node";
    }
    if (ok[1] == 1) {
      u.device_joules = joules[1];
      u.sources +=
          fmt::format("{}{} on {} device{}", u.sources.empty() ? "" : "; ",
                      device::name_of(backend_.kind()), counts[1], counts[1] == 1 ? "" : "s");
    } else if (ok[1] == 0) {
      u.device_why_not = !after.device.why_not.empty()    ? after.device.why_not
                         : !before.device.why_not.empty() ? before.device.why_not
                                                          : "not readable on every rank";
    }
    return u;
  }

 private:
  const PackageEnergy& packages_;
  device::Backend& backend_;
  MPI_Comm grid_;
  bool reads_node_ = false;
};

nlohmann::json to_json(const EnergyUse& u, double seconds, double gflops) {
  if (!u.measured()) {
    return {{"not_available", "not available on this machine: " + u.cpu_why_not +
                                  (u.device_why_not.empty() ? "" : "; " + u.device_why_not)}};
  }
  nlohmann::json j = {{"joules", u.joules()}, {"sources", u.sources}};
  if (seconds > 0) {
    const double watts = u.joules() / seconds;
    j["watts"] = watts;
    if (watts > 0) j["gflops_per_watt"] = gflops / watts;
  }
  if (u.cpu_joules) j["cpu_packages_joules"] = *u.cpu_joules;
  if (u.device_joules) j["device_joules"] = *u.device_joules;
  std::string missing;
  if (!u.cpu_joules) missing = "cpu packages: " + u.cpu_why_not;
  if (!u.device_joules && !u.device_why_not.empty())
    missing += (missing.empty() ? "" : "; ") + std::string("device: ") + u.device_why_not;
  if (!missing.empty()) j["not_measured"] = missing;
  return j;
}

struct TestOutcome {
  double seconds = 0, gflops = 0;  // wall time of the solve, maximum over ranks
  EnergyUse energy;
  std::time_t start = 0, end = 0;
  long info = 0;
  PhaseTimes phases;                       // this rank's
  std::vector<IterationTimes> iterations;  // each field the maximum over the ranks
  std::optional<BalancePoint> balance;
  std::vector<RankFigures> ranks;  // every rank's totals and host, on rank 0 (empty elsewhere)
  std::vector<SlowRank> slow;      // those whose update was slow (find_slow_ranks)
  // The device's counters over the iteration loop, each the maximum over
  // the ranks (-1 where the backend does not count them).
  device::DeviceCounters loop;
  ResidualReport residual;
  Verdict verdict = Verdict::Unchecked;
  TestSegments segments;       // a resumed test's segments, the checkpoints' costs
  std::uint64_t solution = 0;  // solution_checksum, where x was computed
};

// The counters' maximum over `comm` (a rank that does not count gives -1).
device::DeviceCounters max_over(device::DeviceCounters c, MPI_Comm comm) {
  long long v[6] = {c.allocations,
                    c.host_waits,
                    c.bytes_to_device,
                    c.bytes_to_host,
                    c.bytes_device_to_device,
                    c.blas_on_fewer_sms};
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v, 6, MPI_LONG_LONG, MPI_MAX, comm));
  return {static_cast<long>(v[0]), static_cast<long>(v[1]), v[2], v[3], v[4],
          static_cast<long>(v[5])};
}

// What a long local step (the matrix made, the residual's sums) calls as
// it goes: a mark of the rank's activity, so the watchdog sees progress.
std::function<void()> progress_mark(const Context& run_ctx) {
  Activity* const activity = run_ctx.activity();
  if (!activity) return {};
  return [activity] { activity->mark(); };
}

// netlib's HPL_pdtest: generate, time the solve, check the residual.
// `index`: the test's place in the run (-1: none; no checkpoints).
TestOutcome run_test(const Context& run_ctx, const TestCase& t, long index, const ProcessGrid& grid,
                     double threshold, const RunOptions& options, TraceRecorder& trace,
                     const PackageEnergy& packages) {
  TestOutcome o;
  LocalMatrix a(run_ctx.device(), t.n, t.nb, grid, t.alignment);
  const CheckpointOptions& cp = options.checkpoints;
  const ResumeSource* from = resume_source(cp, index);
  std::optional<LoopState> resumed;
  if (from) {
    ActivityScope reading(run_ctx.activity(), Activity::kMatgen);
    resumed = load_checkpoint(*from, run_ctx.device(), checkpoint_view(a));
  } else {
    ActivityScope generating(run_ctx.activity(), Activity::kMatgen);
    generate_matrix(run_ctx.device().compute(), a, grid, progress_mark(run_ctx));
    run_ctx.device().compute().synchronize();
  }
  // The buffers kept from panel to panel are made and touched here, as the
  // matrix is, not while the solve is timed.
  SolveWorkspace workspace;
  if (t.schedule.kind != ScheduleKind::Dag)
    reserve_workspace(workspace, a, t, grid, run_ctx.device().compute().runs_inline());
  const EnergyMeter meter(packages, run_ctx.device().backend(), grid.all());
  HPLX_MPI_CHECK(MPI_Barrier(grid.all()));
  o.start = std::time(nullptr);
  const EnergySample energy_before = meter.sample();
  const double t0 = wall_time();
  // Live progress from the grid's first rank, for runs longer than a second.
  int grid_rank = 0;
  MPI_Comm_rank(grid.all(), &grid_rank);
  ProgressMeter::Options shown;
  shown.enabled = grid_rank == 0 && !options.quiet;
  shown.silent_first_s = 1.0;
  ProgressMeter progress(fmt::format("hplx lu N={} NB={}", t.n, t.nb),
                         hpl_flops(static_cast<double>(t.n)), shown);
  Context ctx = run_ctx;
  ctx.set_trace(&trace);
  ctx.set_progress(&progress);
  const std::unique_ptr<Checkpointer> checkpointer =
      index >= 0 ? make_checkpointer(cp, index, to_json(t), from, run_ctx.device(),
                                     checkpoint_view(a), grid.all(), t0)
                 : nullptr;
  const SolveOutcome solved =
      pdgesv(ctx, a, t, grid, &workspace, {checkpointer.get(), resumed ? &*resumed : nullptr});
  o.seconds = wall_time() - t0;
  // The device counter after the device's work (pdgesv returns with it done).
  const EnergySample energy_after = meter.sample();
  o.end = std::time(nullptr);
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &o.seconds, 1, MPI_DOUBLE, MPI_MAX, grid.all()));
  if (from) {  // the earlier segments' time counts; the time between them does not
    o.segments = resumed_segments(*from, t.n, o.seconds);
    o.seconds += from->manifest.seconds;
  }
  if (checkpointer) o.segments.checkpoints = checkpointer->costs();
  o.gflops = o.seconds > 0 ? hpl_gflops(t.n, o.seconds) : 0.0;
  o.energy = meter.use(energy_before, energy_after);
  o.info = solved.info;
  o.phases = solved.phases;
  o.iterations = max_on_root(solved.iterations, grid.all());  // empty off rank 0
  o.balance = find_balance_point(o.iterations, t.n);
  o.ranks = gather_rank_figures(
      rank_totals(solved.phases, solved.iterations, t.n, t.n + 1, t.nb, grid, t.depth), grid.all());
  o.slow = find_slow_ranks(o.ranks, kSlowRankThreshold);
  o.loop = max_over(solved.loop, grid.all());
  if (!run_ctx.device().backend().holds_data()) {  // a simulated run: nothing to check
    o.verdict = Verdict::Simulated;
  } else if (threshold <= 0) {
    o.verdict = Verdict::Unchecked;
  } else if (solved.info != 0) {
    o.verdict = Verdict::Skipped;  // as netlib: a zero pivot skips the check
  } else {
    ActivityScope checking(run_ctx.activity(), Activity::kVerify);
    o.residual =
        check_solution(run_ctx.device(), a, solved.x, grid, threshold, progress_mark(run_ctx));
    o.verdict = o.residual.scaled_residual < threshold ? Verdict::Passed : Verdict::Failed;
  }
  if (run_ctx.device().backend().holds_data() && solved.info == 0)
    o.solution = solution_checksum(solved.x, grid.all());
  // The test is done: its checkpoints are of no more use.
  if (checkpointer) checkpointer->remove_all();
  return o;
}

nlohmann::json to_json(const TestCase& t, const TestOutcome& o) {
  nlohmann::json rec = to_json(t);
  rec["time_s"] = o.seconds;
  rec["gflops"] = o.gflops;
  rec["phases_s"] = {{"fact", o.phases.fact},
                     {"bcast", o.phases.bcast},
                     {"swap", o.phases.swap},
                     {"update", o.phases.update},
                     {"solve", o.phases.solve},
                     {"swap_copy", o.phases.swap_copy},
                     {"wait", o.phases.wait},
                     {"bcast_hidden", o.phases.bcast_hidden},
                     {"swap_hidden", o.phases.swap_hidden}};
  rec["iterations"] = iterations_to_json(o.iterations, t.n);
  rec["balance_point"] = balance_point_json(o.balance);
  if (!o.ranks.empty()) rec["ranks"] = rank_figures_json(o.ranks, o.slow, kSlowRankThreshold);
  if (o.loop.host_waits >= 0) {
    nlohmann::json& loop = rec["device_loop"];
    loop = {{"host_waits", o.loop.host_waits}, {"allocations", o.loop.allocations}};
    if (o.loop.bytes_to_device >= 0)
      loop.update({{"bytes_to_device", o.loop.bytes_to_device},
                   {"bytes_to_host", o.loop.bytes_to_host},
                   {"bytes_device_to_device", o.loop.bytes_device_to_device}});
    if (o.loop.blas_on_fewer_sms >= 0) loop["blas_on_fewer_sms"] = o.loop.blas_on_fewer_sms;
  }
  rec["verdict"] = verdict_name(o.verdict);
  rec["energy"] = to_json(o.energy, o.seconds, o.gflops);
  if (o.verdict == Verdict::Passed || o.verdict == Verdict::Failed)
    rec["residual"] = o.residual.scaled_residual;
  if (o.info != 0) rec["info"] = o.info;
  if (o.solution != 0) rec["solution_xxh3"] = hex(o.solution);
  rec.update(to_json(o.segments));
  return rec;
}

int node_cpu_count() {
  return static_cast<int>(usable_cpus().size());
}

// Rank 0's binding and the node-level formula behind it.
nlohmann::json to_json(const CoreShare& s) {
  return {{"node_grid", fmt::format("{}x{}", s.local_p, s.local_q)},
          {"node_cpus", node_cpu_count()},
          {"rank0_root_cpu", s.root_cpu},
          {"rank0_cpus", format_cpu_list(s.cpus)},
          {"pool_per_row", static_cast<int>(s.pool.size())},
          {"fact_threads", s.fact_threads},
          {"update_threads", s.update_threads}};
}

// On stderr, beside the netlib-format output (never inside it).
void print_balance_point(const TestCase& t, const TestOutcome& o) {
  if (o.iterations.empty()) return;
  std::fprintf(stderr, "hplx: %s N=%ld NB=%d: %s\n", variant_code(t).c_str(), t.n, t.nb,
               balance_point_sentence(o.balance, static_cast<long>(o.iterations.size())).c_str());
}

// On stderr beside the balance point, with more than one rank: each rank
// whose update was slow, or that none was and which came closest.
void print_slow_ranks(const TestCase& t, const TestOutcome& o) {
  const std::string test = fmt::format("{} N={} NB={}", variant_code(t), t.n, t.nb);
  for (const std::string& line : slow_rank_lines(o.ranks, o.slow, kSlowRankThreshold))
    std::fprintf(stderr, "hplx: %s: %s\n", test.c_str(), line.c_str());
}

// On stderr beside the balance point: the test's energy, or once per run
// why there is none.
void print_energy(const TestCase& t, const TestOutcome& o, bool& said_not_available) {
  if (o.energy.measured()) {
    const nlohmann::json j = to_json(o.energy, o.seconds, o.gflops);
    std::fprintf(stderr, "hplx: %s N=%ld NB=%d: energy %.1f J, %.1f W, %.3f Gflops/W (%s)%s\n",
                 variant_code(t).c_str(), t.n, t.nb, o.energy.joules(), j.value("watts", 0.0),
                 j.value("gflops_per_watt", 0.0), o.energy.sources.c_str(),
                 j.contains("not_measured")
                     ? (", not measured: " + j["not_measured"].get<std::string>()).c_str()
                     : "");
  } else if (!said_not_available) {
    said_not_available = true;
    std::fprintf(stderr, "hplx: energy: %s\n",
                 to_json(o.energy, 0, 0)["not_available"].get<std::string>().c_str());
  }
}

}  // namespace

void preflight(const HplDat& dat, int world_size, long long available_per_rank) {
  for (const GridShape& g : dat.grids) {
    if (static_cast<long>(g.p) * g.q > world_size) {
      throw UsageError(fmt::format(
          "{}process grid P x Q = {} x {} needs {} MPI ranks, this job has {}; allowed: P*Q <= {} "
          "(start more ranks with mpiexec -n, or list a smaller grid)",
          where(dat, 11), g.p, g.q, static_cast<long>(g.p) * g.q, world_size, world_size));
    }
  }
  if (available_per_rank <= 0) return;
  for (const GridShape& g : dat.grids) {
    for (long n : dat.ns) {
      for (int nb : dat.nbs) {
        const long long need = lu_memory_bytes(n, nb, g.p, g.q);
        if (need > available_per_rank) {
          throw UsageError(fmt::format(
              "{}N = {} on a {} x {} grid needs {} per rank, only {} is available per rank; "
              "allowed: N up to about {}",
              where(dat, 6), n, g.p, g.q,
              need == std::numeric_limits<long long>::max() ? "more than 8 EiB" : gib(need),
              gib(available_per_rank),
              static_cast<long>(std::sqrt(0.8 * available_per_rank * g.p * g.q / 8.0))));
        }
      }
    }
  }
}

namespace {

// The output netlib names in HPL.dat (lines 3-4): stdout, stderr or a file.
void open_output(OutputFile& out, const HplDat& dat) {
  if (dat.device_out == 6) {
    out.fp = stdout;
  } else if (dat.device_out == 7) {
    out.fp = stderr;
  } else {
    out.fp = std::fopen(dat.output_file.c_str(), "w");
    if (out.fp == nullptr)
      throw UsageError(fmt::format("{}cannot open output file '{}' for writing", where(dat, 3),
                                   dat.output_file));
    out.owned = true;
    out.path = dat.output_file;
  }
}

// One hplx lu run over an HPL.dat's tests, the way netlib's HPL_pdtest loop
// runs them: rank 0 writes netlib's output and the JSON record (on disk
// after every test and on SIGINT/SIGTERM), every rank its trace; a
// watchdog watches what each rank is doing.
class HplRun {
 public:
  HplRun(const Context& ctx, const HplDat& dat, const RunOptions& options)
      : dat_(dat),
        options_(options),
        world_(ctx.world()),
        root_(rank_in(world_) == 0),
        header_(make_record_header("lu", options.argv)),
        tests_(expand_tests(dat)),
        backend_(device::name_of(ctx.device().kind())),
        harness_(ctx, {.command = "hplx lu",
                       .say = "hplx",
                       .json_path = options.json_path,
                       .trace_path = options.trace_path,
                       .watchdog_s = options.watchdog_s,
                       .quiet = options.quiet,
                       .argv = options.argv,
                       .planned = static_cast<long>(tests_.size())}) {
    if (root_) open_output(out_, dat);
    if (root_) harness_.keep(record_so_far(), 0);
  }

  const std::vector<TestCase>& tests() const { return tests_; }
  void print_preamble() {
    if (root_) lu::print_preamble(out_.fp, dat_, kEpsilon);
  }
  void test(const TestCase& t);
  void print_summary();
  // A run that fails part-way leaves no half-written output file.
  void discard_output() { out_.discard(); }
  // The trace and the final record written; the status every rank returns.
  int close();

 private:
  bool enter_grid(const TestCase& t);
  std::optional<CoreShare> share_cores(TestCase& run, const TestCase& t);
  void report(const TestCase& t, const TestOutcome& o);
  void count(Verdict v);
  nlohmann::json record_so_far() const;

  const HplDat& dat_;
  const RunOptions& options_;
  MPI_Comm world_;
  const bool root_;
  OutputFile out_;
  TestCounts counts_;
  nlohmann::json records_ = nlohmann::json::array();
  std::vector<std::string> choices_;  // what hplx chose per grid, said once each
  const nlohmann::json header_;
  std::vector<SweepPoint> passed_;  // for the TOP500 figures
  const std::vector<TestCase> tests_;
  const std::string backend_;
  RunHarness harness_;  // the live record, the trace, the activity and its watchdog
  const PackageEnergy packages_;
  bool said_no_energy_ = false;
  bool first_ = true;
  std::unique_ptr<ProcessGrid> grid_;
};

nlohmann::json HplRun::record_so_far() const {
  nlohmann::json record = header_;
  record["backend"] = backend_;
  record["input"] = {{"source", dat_.source}, {"threshold", dat_.threshold}};
  record["notes"] = options_.notes;
  for (const std::string& c : choices_) record["notes"].push_back("hplx: " + c);
  if (!options_.preflight.is_null()) record["preflight"] = options_.preflight;
  record["tests"] = records_;
  record["summary"] = {{"passed", counts_.passed},
                       {"failed", counts_.failed},
                       {"skipped", counts_.skipped},
                       {"simulated", counts_.simulated}};
  if (const auto figures =
          top500_figures(passed_, options_.rpeak, options_.rpeak_why_not, options_.blas_kernels))
    record["top500"] = to_json(*figures);
  return record;
}

// Tests come grouped by grid (netlib's outermost loop); a new grid is a
// collective over every rank, members or not. Extra ranks sit a grid out,
// waiting in the next collective: false for them.
bool HplRun::enter_grid(const TestCase& t) {
  if (!grid_ || grid_->nprow() != t.grid.p || grid_->npcol() != t.grid.q) {
    grid_.reset();
    grid_ = std::make_unique<ProcessGrid>(world_, t.grid.p, t.grid.q, t.pmap);
  }
  return harness_.begin_test(*grid_, fmt::format("{} N={} NB={} P={} Q={}", variant_code(t), t.n,
                                                 t.nb, t.grid.p, t.grid.q));
}

// The node's cores shared out among its ranks for FACT (seed 000), where
// the test asks for it.
std::optional<CoreShare> HplRun::share_cores(TestCase& run, const TestCase& t) {
  if (!t.schedule.core_sharing) return std::nullopt;
  CoreShare share = plan_core_sharing(grid_->all(), grid_->myrow(), grid_->mycol());
  apply_core_sharing(share);
  run.schedule.fact_threads = share.fact_threads;
  if (root_ && !options_.quiet)
    std::fprintf(stderr, "hplx: %s\n", describe(share, node_cpu_count()).c_str());
  return share;
}

void HplRun::test(const TestCase& t) {
  // A resumed run goes on at the checkpoint's test: the ones before it
  // finished in the run that wrote it (their lines are in its output).
  const auto& resume = options_.checkpoints.resume;
  if (resume && &t - tests_.data() < resume->manifest.test_index) {
    if (root_ && !options_.quiet && &t == tests_.data())
      std::fprintf(stderr,
                   "hplx: resumed run: tests 1 to %ld finished before the checkpoint "
                   "(their results are in the stopped run's output)\n",
                   resume->manifest.test_index);
    return;
  }
  if (!enter_grid(t)) return;
  {
    TestCase chosen = t;
    const std::string note = choose_for_grid(chosen);
    if (!note.empty() && std::find(choices_.begin(), choices_.end(), note) == choices_.end()) {
      choices_.push_back(note);
      if (root_ && !options_.quiet) std::fprintf(stderr, "hplx: %s\n", note.c_str());
    }
  }
  TestCase run = t;
  const std::optional<CoreShare> share = share_cores(run, t);
  if (options_.observer) options_.observer->before(t);
  const TestOutcome o = run_test(harness_.context(), run, &t - tests_.data(), *grid_,
                                 dat_.threshold, options_, harness_.trace(), packages_);
  if (share) restore_binding();
  if (root_) report(t, o);
  count(o.verdict);
  // Only the root's record is written; the others stay empty (o.iterations
  // is empty off the root, and thousands of simulated ranks share one
  // process's memory).
  nlohmann::json rec = root_ ? to_json(t, o) : nlohmann::json::object();
  if (share) rec["core_sharing"] = to_json(*share);
  if (options_.observer) options_.observer->after(t, {o.seconds, o.gflops, o.info}, rec);
  records_.push_back(std::move(rec));
  // Rank 0 is in every grid: it runs every test.
  if (root_) harness_.keep(record_so_far(), static_cast<long>(records_.size()));
}

// netlib's lines for one test, the balance point and energy on stderr, and
// a passed run kept for the TOP500 figures. Rank 0 only.
void HplRun::report(const TestCase& t, const TestOutcome& o) {
  // netlib repeats the header before every checked test, and prints it
  // once when nothing is checked.
  if (dat_.threshold > 0 || first_) print_table_header(out_.fp);
  first_ = false;
  if (o.seconds > 0) print_result(out_.fp, t, o.seconds, o.gflops, o.start, o.end);
  if (o.verdict == Verdict::Skipped) {
    std::fprintf(out_.fp,
                 "HPL ERROR: Error code returned by solve is %ld (zero pivot in column %ld), "
                 "skip\n",
                 o.info, o.info - 1);
    print_closing_rule(out_.fp);
  } else if (o.verdict == Verdict::Simulated) {
    std::fprintf(out_.fp,
                 "Simulated run (hplx sim): the times are SimGrid's, no matrix was "
                 "factored, no residual.\n");
    print_closing_rule(out_.fp);
  } else if (o.verdict != Verdict::Unchecked) {
    print_residual(out_.fp, o.residual);
  }
  std::fflush(out_.fp);
  if (!options_.quiet) {
    print_balance_point(t, o);
    print_energy(t, o, said_no_energy_);
    print_slow_ranks(t, o);
    print_segments(o.segments, t.n);
  }
  // The TOP500 counts only runs that passed the residual check.
  if (o.verdict == Verdict::Passed) {
    SweepPoint p{t.n, t.nb, o.gflops, std::nullopt};
    if (o.energy.measured() && o.seconds > 0) p.watts = o.energy.joules() / o.seconds;
    passed_.push_back(p);
  }
}

void HplRun::count(Verdict v) {
  switch (v) {
    case Verdict::Unchecked:
    case Verdict::Passed:
      ++counts_.passed;
      break;
    case Verdict::Simulated:
      ++counts_.simulated;
      break;
    case Verdict::Failed:
      ++counts_.failed;
      break;
    case Verdict::Skipped:
      ++counts_.skipped;
      break;
  }
}

void HplRun::print_summary() {
  if (!root_) return;
  lu::print_summary(out_.fp, counts_, dat_.threshold);
  std::fflush(out_.fp);
  if (!options_.quiet && passed_.size() >= 2)
    if (const auto figures =
            top500_figures(passed_, options_.rpeak, options_.rpeak_why_not, options_.blas_kernels))
      for (const std::string& line : describe(*figures)) std::fprintf(stderr, "%s\n", line.c_str());
}

int HplRun::close() {
  const nlohmann::json record = root_ ? record_so_far() : nlohmann::json();
  return harness_.close(root_ ? &record : nullptr, static_cast<long>(records_.size()),
                        counts_.failed > 0 || counts_.skipped > 0 ? 1 : 0);
}

}  // namespace

CheckedTest run_one_test(const Context& ctx, const TestCase& t, const ProcessGrid& grid,
                         double threshold) {
  RunOptions quiet;
  quiet.quiet = true;
  TraceRecorder no_trace(false);
  const TestOutcome o = run_test(ctx, t, -1, grid, threshold, quiet, no_trace, PackageEnergy());
  CheckedTest r;
  r.seconds = o.seconds;
  r.gflops = o.gflops;
  r.info = o.info;
  r.residual = o.residual.scaled_residual;
  r.passed = o.verdict == Verdict::Passed;
  return r;
}

std::vector<nlohmann::json> test_records(const HplDat& dat) {
  std::vector<nlohmann::json> records;
  for (const TestCase& t : expand_tests(dat)) records.push_back(to_json(t));
  return records;
}

int run_hpl(const Context& ctx, const HplDat& dat, const RunOptions& options) {
  HplRun run(ctx, dat, options);  // the output, the record, the watchdog
  try {
    run.print_preamble();
    for (const TestCase& t : run.tests()) run.test(t);
    run.print_summary();
  } catch (...) {
    run.discard_output();
    throw;
  }
  return run.close();
}

}  // namespace hplx::lu
