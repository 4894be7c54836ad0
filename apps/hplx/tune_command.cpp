#include "tune_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/install_paths.hpp"
#include "core/json_record.hpp"
#include "core/timer.hpp"
#include "lu/config.hpp"
#include "lu/run/hpl_dat_writer.hpp"
#include "model/batch_script.hpp"
#include "model/provenance.hpp"
#include "model/tune.hpp"

extern char** environ;

namespace hplx::app {
namespace {

namespace fs = std::filesystem;

// The HPL.dat of one candidate at order n: netlib's defaults but for N, NB,
// the grid, the broadcast and the depth.
lu::HplDat dat_for(const model::TuneCandidate& c, long n) {
  lu::HplDat d;
  d.ns = {n};
  d.nbs = {c.nb};
  d.grids = {{c.p, c.q}};
  d.bcasts = {static_cast<lu::Broadcast>(c.bcast)};
  d.depths = {c.depth};
  return d;
}

// Runs argv with stdout and stderr into `log`; returns the exit status.
int run_logged(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) throw SystemError(fmt::format("cannot start {}", args[0]));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string tail_of(const std::string& path, size_t chars) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > chars ? s.substr(s.size() - chars) : s;
}

// `hplx sim` of one candidate, in a folder of its own under `work`.
model::SimOutcome simulate(const std::string& self, const std::string& spec_path, int nodes,
                           const fs::path& work, const model::TuneCandidate& c, long n,
                           double limit_s, int& count) {
  const fs::path dir = work / fmt::format("sim{}", ++count);
  fs::create_directories(dir);
  write_text_atomically((dir / "HPL.dat").string(),
                        lu::hpl_dat_text(dat_for(c, n), "hplx tune: a candidate"));
  // coreutils' timeout stops it (SIGTERM, SIGKILL 5 s later) at its limit.
  std::vector<std::string> args = {"timeout", "-k",
                                   "5",       fmt::format("{:.1f}", std::max(limit_s, 1.0)),
                                   self,      "sim",
                                   spec_path, (dir / "HPL.dat").string(),
                                   "--nodes", std::to_string(nodes),
                                   "--json",  (dir / "sim.json").string(),
                                   "--quiet"};
  if (c.threads > 0) args.insert(args.end(), {"--threads", std::to_string(c.threads)});
  if (c.split >= 0) args.insert(args.end(), {"--split", fmt::format("{}", c.split)});
  if (c.fact_on) args.insert(args.end(), {"--fact-on", model::fact_on_name(*c.fact_on)});
  const std::string log = (dir / "sim.log").string();
  const double t0 = wall_time();
  const int rc = run_logged(args, log);
  const double wall = wall_time() - t0;
  if (rc == 124 || rc == 137) return {0, wall, {}, false};
  std::ifstream in(dir / "sim.json");
  const nlohmann::json rec = nlohmann::json::parse(in, nullptr, false);
  const bool ok = rc == 0 && !rec.is_discarded() && rec.contains("tests") &&
                  !rec["tests"].empty() && rec["tests"][0].value("gflops", 0.0) > 0;
  if (!ok)
    throw SystemError(fmt::format("hplx sim of {} at N={} failed (exit {}); its output ends:\n{}",
                                  c.label(), n, rc, tail_of(log, 1500)));
  model::SimOutcome o{rec["tests"][0]["gflops"].get<double>(), wall, {}};
  for (const auto& it : rec["tests"][0].value("iterations", nlohmann::json::array()))
    o.iter_s.push_back(it.value("iter_s", 0.0));
  return o;
}

// The nodes of the Slurm cluster this machine belongs to, as sinfo lists
// them: name, cpus, GPUs (of its gres). Empty when there is no sinfo, no
// cluster configured, or no answer within 10 s.
struct SlurmNode {
  int cpus = 0, gpus = 0;
};
std::map<std::string, SlurmNode> slurm_nodes(const fs::path& work) {
  std::map<std::string, SlurmNode> nodes;
  fs::create_directories(work);
  const std::string out = (work / "sinfo.txt").string();
  if (run_logged({"timeout", "10", "sinfo", "-h", "-N", "-o", "%N %c %G"}, out) != 0) return {};
  std::ifstream in(out);
  for (std::string name, gres; in >> name;) {
    SlurmNode n;
    in >> n.cpus >> gres;
    // gres such as "gpu:4", "gpu:h100:8(S:0-1)" or "(null)".
    if (const auto at = gres.find("gpu:"); at != std::string::npos) {
      std::string g = gres.substr(at);
      g = g.substr(0, g.find_first_of("(,"));
      n.gpus = std::atoi(g.substr(g.rfind(':') + 1).c_str());
    }
    nodes[name] = n;
  }
  return nodes;
}

// Refuses a job the cluster here could not place (--slurm-check on);
// ranks_per_node 0: the node count alone.
void check_slurm_placement(const std::map<std::string, SlurmNode>& nodes, int want,
                           int ranks_per_node, int cpus_per_rank, bool gpu) {
  if (nodes.empty()) return;
  const int cpus = ranks_per_node * std::max(cpus_per_rank, 1);
  const int gpus = gpu ? ranks_per_node : 0;
  int fit = 0;
  for (const auto& [name, n] : nodes) fit += n.cpus >= cpus && n.gpus >= gpus;
  if (fit < want)
    throw UsageError(fmt::format(
        "--nodes {}: the Slurm cluster here (sinfo) has {} node(s){}; allowed: at most {} nodes, "
        "or --slurm-check off to write the job anyway",
        want, fit,
        ranks_per_node > 0
            ? fmt::format(" with {} cpus{} for {} rank(s) per node", cpus,
                          gpu ? fmt::format(" and {} GPUs", gpus) : "", ranks_per_node)
            : "",
        fit));
}

// HPL.dat, the batch script, its binding wrapper (executable) and the
// record of the search, in `out`.
void write_job(const fs::path& out, const model::SystemSpec& spec, const model::TuneCandidate& c,
               int nodes, const model::BatchOptions& bo, const nlohmann::json& record) {
  const model::BatchFiles batch = model::batch_files(spec, c, nodes, bo);
  const std::string title = fmt::format("hplx tune: {} on {} node(s), predicted {:.5g} Gflops",
                                        spec.name, nodes, c.best_gflops());
  write_text_atomically((out / "HPL.dat").string(), lu::hpl_dat_text(dat_for(c, c.n), title));
  write_text_atomically((out / model::kSbatchFile).string(), batch.sbatch);
  write_text_atomically((out / model::kBindFile).string(), batch.bind);
  fs::permissions(out / model::kBindFile,
                  fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  write_text_atomically((out / "tune.json").string(), record.dump(1) + "\n");
}

void print_table(const model::TuneResult& r) {
  std::printf("%5s %9s %5s %7s %12s %12s %10s %12s %9s\n", "rank", "N", "NB", "PxQ", "ranks/node",
              "model Gflops", "model s", "sim Gflops", "sim N");
  auto row = [](const char* mark, const model::TuneCandidate& c, size_t i) {
    const std::string layout = c.threads > 0 ? fmt::format("{} x {}t", c.ranks_per_node, c.threads)
                                             : std::to_string(c.ranks_per_node);
    std::printf("%3s%-2zu %9ld %5d %7s %12s %12.5g %10.4g %12s %9s\n", mark, i, c.n, c.nb,
                fmt::format("{}x{}", c.p, c.q).c_str(), layout.c_str(), c.model_gflops,
                c.model_time_s, c.simulated ? fmt::format("{:.5g}", c.estimate_gflops).c_str() : "",
                c.simulated ? std::to_string(c.sim_n).c_str() : "");
  };
  const size_t shown = std::min<size_t>(r.ranked.size(), 10);
  std::printf("The model's best %zu of %zu candidates:\n", shown, r.ranked.size());
  for (size_t i = 0; i < shown; ++i) row(" ", r.ranked[i], i + 1);
  if (!r.simulated.empty()) {
    std::printf(
        "Simulated (where sim N < N, its last panels were simulated and the first are the "
        "model's):\n");
    for (size_t i = 0; i < r.simulated.size(); ++i) {
      const auto& c = r.simulated[i];
      row(" ", c, i + 1);
      std::printf("       %s\n", c.label().c_str());
    }
  }
}

}  // namespace

TuneCommand::TuneCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "tune",
      "choose N, NB, P x Q, the broadcast and the look-ahead for K nodes of a machine (the model "
      "ranks every candidate, the simulator checks the best few) and write HPL.dat and a Slurm "
      "batch script that runs it (docs/USAGE.md, \"Planning a run\")");
  sub_->add_option("spec", spec_,
                   "system spec (TOML, as hplx model reads; a name such as dgx-h100 finds the "
                   "installed example)");
  sub_->add_option("--calibrated", calibrated_,
                   "a spec written by `hplx model calibrate`, instead of SPEC");
  sub_->add_option("--nodes", nodes_, "nodes the job will run on")->required();
  sub_->add_option("--memory-fraction", memory_fraction_,
                   "share of the memory the matrix fills (default: the spec's run.memory_fraction, "
                   "else 0.8)");
  sub_->add_option("--n", n_, "this N for every candidate instead of the memory's");
  sub_->add_option("--nbs", nbs_,
                   "the NB values to try (default: 256-1024 on GPUs, 64-384 on CPUs)")
      ->delimiter(',');
  sub_->add_option("--budget", budget_,
                   "seconds the simulator may take in all (default 300; 0: the model only)");
  sub_->add_option("--top", top_, "the model's best candidates simulated (default 3)");
  sub_->add_option("--launcher", launcher_,
                   "how the batch script starts the ranks: srun (Slurm's PMIx; default) or mpirun "
                   "(Open MPI inside the allocation)")
      ->check(CLI::IsMember({"srun", "mpirun"}));
  sub_->add_option("--out,-o", out_,
                   "folder for HPL.dat, hplx-lu.sbatch, hplx-bind.sh and tune.json (default .)");
  sub_->add_option("--slurm-check", slurm_check_,
                   "on (default): where sinfo answers, refuse nodes the cluster does not have; "
                   "off: write the job without asking")
      ->check(CLI::IsMember({"on", "off"}));
  sub_->add_option("--fact-on", fact_on_,
                   "a GPU spec with a [host] table: auto (default: FACT on the host and on the "
                   "device both ranked and simulated, the faster written into the job), host or "
                   "device (that place only)")
      ->check(CLI::IsMember({"auto", "host", "device"}));
  sub_->add_flag("--force", force_, "replace those files where they exist");
  sub_->add_flag("--quiet,-q", quiet_, "no progress on stderr");
}

// Where the files go, checked before any search: an existing folder
// without them (unless --force).
void TuneCommand::check_out_folder() const {
  const fs::path out(out_);
  if (!fs::is_directory(out))
    throw UsageError(fmt::format("--out {}: no such folder; allowed: an existing folder", out_));
  const char* files[] = {"HPL.dat", model::kSbatchFile, model::kBindFile, "tune.json"};
  if (!force_)
    for (const char* f : files)
      if (fs::exists(out / f))
        throw UsageError(fmt::format("{} exists; allowed: --force to replace it, or another --out",
                                     (out / f).string()));
}

model::TuneOptions TuneCommand::options() const {
  if (n_ < 0) throw UsageError(fmt::format("--n {}: allowed: N >= 1", n_));
  model::TuneOptions opt;
  opt.nodes = nodes_;
  opt.memory_fraction = memory_fraction_;
  opt.n = n_;
  opt.nbs = nbs_;
  opt.budget_s = budget_;
  opt.top = top_;
  if (fact_on_ != "auto")
    opt.fact_on = fact_on_ == "device" ? model::FactOn::Device : model::FactOn::Host;
  return opt;
}

// The ranking, the choice and the assumed figures it rests on (the
// simulator's too where it ran, FACT's own where the choice puts it).
model::FigureUse TuneCommand::print_choice(const model::SystemSpec& spec,
                                           const std::string& spec_path,
                                           const model::TuneResult& r) const {
  std::printf("hplx tune: %s on %d node(s) (%s)\n", spec.name.c_str(), nodes_, spec_path.c_str());
  print_table(r);
  for (const auto& note : r.notes) std::printf("note: %s\n", note.c_str());
  const model::TuneCandidate& c = r.chosen;
  const model::FigureUse use{!r.simulated.empty(), !c.fact_on || *c.fact_on == model::FactOn::Host,
                             c.fact_on == model::FactOn::Device};
  std::printf("%s\n", model::assumed_figures_line(spec, use).c_str());
  std::printf("chosen: N=%ld %s: %.5g Gflops (%s)\n", c.n, c.label().c_str(), c.best_gflops(),
              c.simulated ? (c.extrapolated() ? "its last panels simulated, the first the model's"
                                              : "simulated")
                          : "the model's");
  return use;
}

// The chosen candidate as a Slurm job in --out: HPL.dat, the batch script,
// the binding script and tune.json.
void TuneCommand::write_tuned_job(const model::SystemSpec& spec, const std::string& spec_path,
                                  const model::TuneResult& r, const model::TuneOptions& opt,
                                  const model::FigureUse& use, const std::string& self,
                                  const std::vector<std::string>& argv) const {
  const model::TuneCandidate& c = r.chosen;
  model::BatchOptions bo;
  bo.launcher = launcher_ == "mpirun" ? model::Launcher::Mpirun : model::Launcher::Srun;
  bo.hplx = self.empty() ? "hplx" : self;
  bo.lu_flags = model::lu_flags_for(spec, c);
  bo.comments = model::fact_choice_comments(spec, r, use.sim);
  for (const std::string& line : bo.comments) std::printf("%s\n", line.c_str());
  nlohmann::json record = make_record_header("tune", argv);
  record.update(model::to_json(r, opt, spec_path));
  record["launcher"] = launcher_;
  record["lu_flags"] = bo.lu_flags;
  record["assumed"] = model::assumed_figures(spec, use);
  record["fact_choice"] = bo.comments;
  write_job(fs::path(out_), spec, c, nodes_, bo, record);
  std::printf("wrote %s: HPL.dat, %s, %s, tune.json; submit with: cd %s && sbatch %s\n",
              out_.c_str(), model::kSbatchFile, model::kBindFile, out_.c_str(), model::kSbatchFile);
}

// `hplx tune`: the model ranks the candidates, the simulator runs the best
// within --budget, and the fastest becomes a Slurm job in --out.
int TuneCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  int size = 1;
  MPI_Comm_size(world, &size);
  if (size > 1)
    throw UsageError(fmt::format(
        "hplx tune runs as one process ({} were started); run it without mpirun", size));
  if (spec_.empty() == calibrated_.empty())
    throw UsageError(
        "give a system spec (e.g. hplx tune dgx-h100 --nodes 8) or --calibrated FILE, not both");
  const std::string spec_path =
      model::resolve_system_spec(calibrated_.empty() ? spec_ : calibrated_);
  const model::SystemSpec spec = model::load_system_spec(spec_path);
  check_out_folder();
  const model::TuneOptions opt = options();
  // Nodes the cluster here does not have are refused before the search
  // (their cpus are checked after it, when the ranks per node are chosen).
  const fs::path work = fs::temp_directory_path() / fmt::format("hplx-tune-{}", getpid());
  std::map<std::string, SlurmNode> cluster;
  if (slurm_check_ == "on") cluster = slurm_nodes(work);
  check_slurm_placement(cluster, nodes_, 0, 0, false);

  // The simulations run in a temporary folder, removed after.
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } remove{work};
  // This hplx runs the simulations (and the job), found once: a binary
  // replaced meanwhile leaves /proc/self/exe pointing at a deleted file.
  const std::string self = executable_path();
  if (self.empty() && budget_ > 0)
    throw SystemError("cannot find this hplx's own path (/proc/self/exe) to run hplx sim with");
  int count = 0;
  const model::Simulate sim = [&](const model::TuneCandidate& c, long n, double limit_s) {
    return simulate(self, spec_path, nodes_, work, c, n, limit_s, count);
  };
  const model::TuneProgress progress = [&](const std::string& line) {
    if (!quiet_) std::fprintf(stderr, "%s\n", line.c_str());
  };
  if (!quiet_ && budget_ > 0)
    std::fprintf(stderr, "hplx tune: ranking by the model, then up to %.0f s of simulation\n",
                 budget_);
  const model::TuneResult r = model::tune(spec, opt, sim, progress);
  const model::FigureUse use = print_choice(spec, spec_path, r);

  check_slurm_placement(cluster, nodes_, r.chosen.ranks_per_node,
                        model::cpus_per_rank(spec, r.chosen.ranks_per_node), r.is_gpu);
  write_tuned_job(spec, spec_path, r, opt, use, self, argv);
  return 0;
}

}  // namespace hplx::app
