#include "sim_command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/install_paths.hpp"
#include "core/system_info.hpp"
#include "core/timer.hpp"
#include "lu/config.hpp"
#include "lu/run/problem_size.hpp"
#include "model/prediction.hpp"
#include "model/provenance.hpp"
#include "model/sim_kernels.hpp"
#include "model/sim_platform.hpp"
#include "model/system_spec.hpp"
#include "root_check.hpp"
#include "sim_setup.hpp"

extern char** environ;

namespace hplx::app {
namespace {

namespace fs = std::filesystem;

// The share of the memory free that the simulation may use.
constexpr double kSimulatorMemoryFraction = 0.8;

// A file of libexec/hplx beside this program's bin/ (the rank program and
// its preloaded library, cmake/SimRank.cmake), or "" if unknown.
std::string libexec_file(const char* name) {
  const std::string exe = executable_path();
  if (exe.empty()) return {};
  return (fs::path(exe).parent_path().parent_path() / "libexec" / "hplx" / name).string();
}

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    const fs::path p = fs::path(d.empty() ? "." : d) / name;
    if (access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

// Runs argv, its output on ours; returns its exit status (128 + signal).
int run_program(const std::vector<std::string>& args, const std::vector<std::string>& env_extra) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_store;
  // env_extra's NAME=value replace the environment's.
  auto name = [](const std::string& e) { return e.substr(0, e.find('=') + 1); };
  for (char** e = environ; *e; ++e)
    if (std::none_of(env_extra.begin(), env_extra.end(),
                     [&](const std::string& x) { return name(x) == name(*e); }))
      env_store.emplace_back(*e);
  for (const std::string& e : env_extra) env_store.push_back(e);
  std::vector<char*> envp;
  for (std::string& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0)
    throw SystemError(fmt::format("cannot start {}", args[0]));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  if (!out) throw SystemError(fmt::format("cannot write {}", p.string()));
}

// The analytic model's prediction of every test of the record and what
// was simulated, for `hplx report` (the same "prediction" object as
// hplx lu --predict writes).
void annotate_record(const std::string& path, const model::SystemSpec& spec,
                     const std::string& spec_path, int threads, int ranks_per_node,
                     model::FactOn fact_on, const nlohmann::json& simulation) {
  std::ifstream in(path);
  if (!in) return;  // the run failed before writing it; its error says why
  nlohmann::json record = nlohmann::json::parse(in, nullptr, false);
  if (record.is_discarded()) return;
  record["simulation"] = simulation;
  for (nlohmann::json& t : record["tests"]) {
    const long n = t.value("n", 0L);
    const int nb = t.value("nb", 0), p = t.value("p", 0), q = t.value("q", 0);
    if (n <= 0 || nb <= 0 || p <= 0 || q <= 0) continue;
    // The nodes the test's grid fills, as the simulation placed its ranks.
    const int nodes = (p * q + ranks_per_node - 1) / ranks_per_node;
    const model::Prediction pr = model::predict_run(spec, n, nb, p, q, threads, nodes, fact_on);
    t["prediction"] = model::record_overlay(pr, spec_path);
  }
  write_text_atomically(path, record.dump(1) + "\n");
}

// hplx sim starts the simulated ranks itself: one process.
void require_one_process(MPI_Comm world) {
  int size = 1;
  MPI_Comm_size(world, &size);
  if (size > 1)
    throw UsageError(fmt::format(
        "hplx sim runs as one process ({} were started): it starts the simulated ranks itself; "
        "run it without mpirun",
        size));
}

// The ranks of the largest grid of `dat`.
int most_ranks(const lu::HplDat& dat) {
  int ranks = 0;
  for (const lu::GridShape& g : dat.grids) ranks = std::max(ranks, g.p * g.q);
  return ranks;
}

// The simulator's own memory (every rank's real buffers live in this
// process) against the memory free; returns SMPI's shared block, which
// holds the largest shared buffer.
std::size_t check_simulator_memory(const lu::HplDat& dat, int ranks) {
  double need = 0;
  std::size_t block = 0;
  for (long n : dat.ns)
    for (int nb : dat.nbs)
      for (const lu::GridShape& g : dat.grids) {
        need = std::max(need, simulator_bytes(n, nb, g.p, g.q));
        block = std::max(block, shared_block_bytes(n, nb, g.p, g.q));
      }
  const double free_bytes = static_cast<double>(available_memory_bytes());
  if (free_bytes > 0 && need > kSimulatorMemoryFraction * free_bytes)
    throw UsageError(fmt::format(
        "simulating {} ranks at this size needs about {:.1f} GiB of this machine's "
        "memory, more than {:.0f}% of the {:.1f} GiB free; allowed: a smaller N or fewer ranks",
        ranks, need / (1 << 30), 100 * kSimulatorMemoryFraction, free_bytes / (1 << 30)));
  return block;
}

// What hplx sim starts: smpirun, the rank program and its preloaded
// library (cmake/SimRank.cmake).
struct SimPrograms {
  std::string smpirun, rank, preload;
};

// The programs, or a UsageError saying how to get the missing one.
SimPrograms find_sim_programs() {
  SimPrograms p{find_in_path("smpirun"), libexec_file("hplx-sim-rank"),
                libexec_file("libhplx-sim-preload.so")};
  for (const std::string& f : {p.rank, p.preload})
    if (f.empty() || access(f.c_str(), R_OK) != 0)
      throw UsageError(
          fmt::format("the simulated ranks' program or library {} is missing; allowed: build it "
                      "(`make build`, or `cmake --build BUILD --target hplx_sim_rank`; `make run` "
                      "builds hplx alone), with SimGrid installed (scripts/install-deps.sh --test, "
                      "libsimgrid-dev) and -DHPLX_SIM=auto or on",
                      f.empty() ? "(libexec/hplx)" : f));
  if (p.smpirun.empty())
    throw UsageError(
        "smpirun is not on the PATH; run scripts/install-deps.sh --test (libsimgrid-dev)");
  return p;
}

// The run's folder (--keep's, or a temporary one) with the platform, the
// hostfile and the kernel models written in it.
fs::path run_folder(const std::string& keep, const model::SimPlatform& platform,
                    const device::SimModel& kernels) {
  fs::path dir = keep;
  if (!keep.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw UsageError(fmt::format("--keep {}: cannot create it: {}", keep, ec.message()));
  } else {
    std::string tmpl = (fs::temp_directory_path() / "hplx-sim-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw SystemError("cannot create a temporary folder");
    dir = tmpl;
  }
  write_file(dir / "platform.xml", platform.xml);
  write_file(dir / "hostfile", platform.hostfile);
  write_file(dir / "kernels.json", to_json(kernels).dump(1) + "\n");
  return dir;
}

// LD_PRELOAD with SMPI's per-call CPU timers off
// (apps/hplx-sim-rank/cpu_timer_off.c) ahead of what is preloaded already.
std::string preload_env(const std::string& preload) {
  const char* preloaded = std::getenv("LD_PRELOAD");
  return "LD_PRELOAD=" + preload + (preloaded && *preloaded ? std::string(":") + preloaded : "");
}

}  // namespace

SimCommand::SimCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "sim",
      "HPL on a simulated cluster: hplx lu's own driver run under SimGrid's SMPI on the machine "
      "a system spec describes (docs/SIM.md)");
  sub_->add_option("spec", spec_,
                   "system spec (TOML, as hplx model reads; a name such as dgx-h100 finds the "
                   "installed example)")
      ->required();
  sub_->add_option("file", file_, "HPL.dat input; without it, one test from the flags");
  add_test_flags(*sub_, test_);
  sub_->add_option("--threads", threads_,
                   "threads per simulated rank, for a calibrated spec's rates (default 1)")
      ->check(CLI::Range(1, 1 << 16));
  sub_->add_option("--nodes", nodes_,
                   "spread the ranks over this many nodes (default: node.devices ranks on each)")
      ->check(CLI::Range(1, 1 << 30));
  sub_->add_option("--split", split_,
                   "split update, as hplx lu: the right section's share of the columns (default: "
                   "hplx lu's choice for the grid)")
      ->check(finite_in(0.0, 0.95, "a finite number in [0, 0.95]"));
  sub_->add_option("--fact-on", fact_on_,
                   "where FACT runs on GPU ranks, as hplx lu: 'host' (the panel to the host and "
                   "back; default) or 'device' (on the device's panel queue beside the update, "
                   "costed by the device FACT model: docs/SIM.md)")
      ->check(CLI::IsMember({"host", "device"}));
  sub_->add_option("--fact-overlap", fact_overlap_,
                   "FACT beside the update, as hplx lu: on (default) or off (FACT, then the "
                   "update)")
      ->check(CLI::IsMember({"on", "off"}));
  sub_->add_option("--update-sms", update_sms_,
                   "with --fact-on device, as hplx lu: the SMs the update beside FACT aims at, "
                   "of the spec's device.multiprocessors (its BLAS slower in proportion, FACT "
                   "beside it at its alone time); 0 = every SM (default)")
      ->check(CLI::Range(0, 1 << 20));
  sub_->add_option("--update-sms-below", update_sms_below_,
                   "--update-sms only where the trailing matrix has fewer rows than this, as "
                   "hplx lu; 0 = every iteration (default)")
      ->check(CLI::NonNegativeNumber);
  sub_->add_option("--preflight", preflight_,
                   "as hplx lu: every simulated rank measures its DGEMM, memory and links before "
                   "the run and the slow ones are named (on, strict) or not (off, default: the "
                   "simulated nodes are alike; on shows what the preflight costs at scale)")
      ->check(CLI::IsMember({"off", "on", "strict"}));
  sub_->add_option("--json", json_, "write the JSON record (with the model's prediction) here");
  sub_->add_option("--trace", trace_, "write the simulated ranks' phases as Chrome trace events");
  sub_->add_option("--keep", keep_,
                   "write the platform, hostfile and kernel models into this folder and keep "
                   "them (default: a temporary folder, removed)");
  sub_->add_flag("--quiet,-q", quiet_, "only the netlib-format output");
}

// The tests: an HPL.dat as given, or the flags with the spec's [run]
// filling what they leave out (N from the memory per rank when neither
// gives it; `notes` says so).
lu::HplDat SimCommand::tests(const model::SystemSpec& spec, std::vector<std::string>& notes) {
  if (!file_.empty()) return lu::parse_hpl_dat_file(file_);
  if (!test_.grid && spec.run.p && spec.run.q)
    test_.grid = fmt::format("{}x{}", *spec.run.p, *spec.run.q);
  if (!test_.grid)
    throw UsageError(fmt::format("no grid; allowed: --grid PxQ, or run.grid in {}", spec.file));
  if (!test_.nb && spec.run.nb > 0) test_.nb = spec.run.nb;
  const lu::HplDat shape = dat_from_test_flags(test_, 1 << 30);
  const lu::GridShape g = shape.grids.front();
  if (!test_.n && spec.run.n) test_.n = *spec.run.n;
  if (!test_.n) {
    const double fraction = spec.run.memory_fraction.value_or(0.8);
    const double gib = spec.device.memory_gib.value_or(
        spec.node.memory_gib ? *spec.node.memory_gib / spec.node.devices : 0.0);
    if (gib <= 0)
      throw UsageError(
          fmt::format("no problem size; allowed: --n N, or run.n, or device.memory_gib "
                      "(with run.memory_fraction) in {}",
                      spec.file));
    test_.n = lu::largest_fitting_n(static_cast<long long>(gib * (1 << 30)), fraction,
                                    shape.nbs.front(), g.p, g.q);
    notes.push_back(fmt::format(
        "hplx sim: N = {} fills {:.0f}% of the {:.0f} GiB of memory per rank the spec gives",
        *test_.n, 100 * fraction, gib));
  }
  return dat_from_test_flags(test_, g.p * g.q);
}

// --fact-on device and --update-sms against what the spec's ranks are.
void SimCommand::check_gpu_options(const device::SimModel& kernels) const {
  if (fact_on_ == "device" && !kernels.gpu)
    throw UsageError(fmt::format(
        "--fact-on device: {}'s ranks run their work in order on one timeline (no [host] "
        "table), so FACT is already where the update is; allowed: --fact-on host, or a spec "
        "with a [host] table (GPU ranks)",
        spec_));
  if (update_sms_ > 0 && (kernels.multiprocessors <= 0 || update_sms_ > kernels.multiprocessors))
    throw UsageError(
        kernels.multiprocessors <= 0
            ? fmt::format("--update-sms {}: {} gives no device.multiprocessors; allowed: 0, or "
                          "a spec that gives its GPU's SMs",
                          update_sms_, spec_)
            : fmt::format("--update-sms {}: allowed: 0 to {} ({}'s device.multiprocessors)",
                          update_sms_, kernels.multiprocessors, spec_));
}

// smpirun's command line: the simulator's settings, the rank program
// (`rank`) and hplx lu's own flags for it; `dir` holds the platform, the
// hostfile and the kernel models.
std::vector<std::string> SimCommand::smpirun_args(const std::string& smpirun,
                                                  const std::string& rank, const std::string& dir,
                                                  int ranks, std::size_t block) const {
  std::vector<std::string> args = {
      smpirun, "-platform", dir + "/platform.xml", "-hostfile", dir + "/hostfile", "-np",
      std::to_string(ranks),
      // Only the models' charges advance the clock, not the host's
      // own time between MPI calls, nor timer reads. No reverse flow per
      // message (SimGrid's model of TCP acknowledgements; HPC fabrics
      // move data by RDMA): it couples every link's two directions in the
      // solver, a third of a 256-rank simulation's time.
      "--cfg=smpi/simulate-computation:no", "--cfg=smpi/wtime:0", "--cfg=network/crosstraffic:0",
      // One mapping of SMPI's shared block per shared buffer
      // (shared_block_bytes).
      fmt::format("--cfg=smpi/shared-malloc-blocksize:{}", block),
      // The ranks share one copy of the rank program, which keeps no data
      // of a rank's own outside its stack and heap (cmake/SimRank.cmake):
      // SMPI's default gives each rank a copy of the program, and the
      // processor's caches miss in 1024 copies of the same code (a 1024-rank
      // simulation took 1.4 times as long).
      "--cfg=smpi/privatization:no", "--log=root.thres:warning", rank, "--model",
      dir + "/kernels.json"};
  if (!json_.empty()) args.insert(args.end(), {"--json", json_});
  if (!trace_.empty()) args.insert(args.end(), {"--trace", trace_});
  if (quiet_) args.push_back("--quiet");
  if (sub_->count("--split") > 0) args.insert(args.end(), {"--split", fmt::format("{}", split_)});
  args.insert(args.end(),
              {"--fact-on", fact_on_, "--fact-overlap", fact_overlap_, "--preflight", preflight_});
  if (update_sms_ > 0)
    args.insert(args.end(), {"--update-sms", std::to_string(update_sms_), "--update-sms-below",
                             std::to_string(update_sms_below_)});
  if (!file_.empty()) {
    args.push_back(file_);
  } else {
    for (const std::string& a : test_flag_args(test_)) args.push_back(a);
  }
  return args;
}

int SimCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  require_one_process(world);
  if (!file_.empty() && test_.any())
    throw UsageError("give an HPL.dat or test flags (--n, --grid, ...), not both");
  const model::SystemSpec spec = model::load_system_spec(spec_);
  const int threads = threads_ > 0 ? threads_ : 1;
  std::vector<std::string> notes;
  const lu::HplDat dat = tests(spec, notes);
  const int ranks = most_ranks(dat);
  const model::SimPlatform platform = model::sim_platform(spec, ranks, nodes_);
  const device::SimModel kernels = model::sim_model_from_spec(spec, threads, &notes);
  // FACT's own figures count where FACT runs: the host's for a CPU spec
  // (its FACT is the rank's) and for --fact-on host.
  const model::FigureUse use{true, fact_on_ == "host", fact_on_ == "device"};
  notes.push_back("hplx sim: " + model::assumed_figures_line(spec, use));
  check_gpu_options(kernels);
  const std::size_t block = check_simulator_memory(dat, ranks);
  require_mappings(ranks, max_map_count());
  const SimPrograms programs = find_sim_programs();
  require_outputs_on_root(world, {{"--json", json_}, {"--trace", trace_}});

  const fs::path dir = run_folder(keep_, platform, kernels);
  if (!quiet_) {
    for (const std::string& s : notes) std::fprintf(stderr, "%s\n", s.c_str());
    std::fprintf(stderr,
                 "hplx sim: %d ranks on %d node%s of %s (%d per node, %s ranks), simulated by "
                 "SimGrid SMPI; kernel models, platform and hostfile in %s\n",
                 ranks, platform.nodes, platform.nodes == 1 ? "" : "s", spec.name.c_str(),
                 platform.ranks_per_node, device::rank_kind(kernels).c_str(), dir.c_str());
    std::fflush(stderr);
  }
  const double t0 = wall_time();
  const int status = run_program(smpirun_args(programs.smpirun, programs.rank, dir, ranks, block),
                                 {"OMP_NUM_THREADS=1", preload_env(programs.preload)});
  const double wall = wall_time() - t0;
  if (!quiet_)
    std::fprintf(stderr, "hplx sim: the simulation took %.1f s of this machine's time\n", wall);
  if (!json_.empty()) {
    const nlohmann::json simulation = {{"spec", spec_},
                                       {"spec_name", spec.name},
                                       {"ranks", ranks},
                                       {"nodes", platform.nodes},
                                       {"ranks_per_node", platform.ranks_per_node},
                                       {"threads", threads},
                                       {"kernels", to_json(kernels)},
                                       {"fact_on", fact_on_},
                                       {"assumed", model::assumed_figures(spec, use)},
                                       {"wall_s", wall},
                                       {"argv", argv}};
    annotate_record(json_, spec, spec_, threads, platform.ranks_per_node,
                    fact_on_ == "device" ? model::FactOn::Device : model::FactOn::Host, simulation);
  }
  if (keep_.empty()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return status;
}

}  // namespace hplx::app
