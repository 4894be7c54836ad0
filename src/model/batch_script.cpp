#include "model/batch_script.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/provenance.hpp"

namespace hplx::model {
namespace {

// A word safe inside single quotes in a shell script.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string joined_quoted(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += " " + quoted(x);
  return s;
}

// The wrapper: bash, since it expands the allowed cpu list into slices.
std::string bind_script(const SystemSpec& spec, int ranks_per_node, int cpus_per_rank) {
  const bool gpu = spec_is_gpu(spec);
  std::string s = "#!/bin/bash\n";
  s += fmt::format(
      "# Binds one rank of hplx lu, then runs it (written by hplx tune for {}).\n"
      "# Local rank i of the {} on a node: the i-th slice of {} of the cpus this step\n"
      "# allows, NUMA domain i * {} / {} (numactl, where installed){}.\n",
      spec.name, ranks_per_node, cpus_per_rank > 0 ? std::to_string(cpus_per_rank) : "(all)",
      spec.node.numa_domains, ranks_per_node, gpu ? ", GPU i" : "");
  s += "set -euo pipefail\n";
  s += fmt::format("ranks_per_node={}\ncpus_per_rank={}\nnuma_domains={}\n", ranks_per_node,
                   cpus_per_rank, spec.node.numa_domains);
  s += R"SH(local=${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-}}
if [[ -z $local ]]; then
  echo "hplx-bind.sh: no local rank (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK): start it with srun or mpirun" >&2
  exit 2
fi
)SH";
  if (gpu) s += "export CUDA_VISIBLE_DEVICES=$local\n";
  s += R"SH(# The cpus this rank may use now, one per word.
allowed=()
IFS=, read -r -a ranges <<<"$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)"
for r in "${ranges[@]}"; do
  if [[ $r == *-* ]]; then
    for ((c = ${r%-*}; c <= ${r#*-}; c++)); do allowed+=("$c"); done
  else
    allowed+=("$r")
  fi
done
bind=()
if ((cpus_per_rank > 0)); then
  first=$((local * cpus_per_rank))
  if ((first + cpus_per_rank <= ${#allowed[@]})); then
    slice=("${allowed[@]:first:cpus_per_rank}")
    list=$(IFS=,; echo "${slice[*]}")
    if ((numa_domains > 1)) && command -v numactl >/dev/null; then
      bind=(numactl --membind=$((local * numa_domains / ranks_per_node)) --physcpubind="$list")
    else
      bind=(taskset -c "$list")
    fi
  else
    echo "hplx-bind.sh: rank $local: only ${#allowed[@]} cpus allowed, $((ranks_per_node * cpus_per_rank)) planned; not binding" >&2
  fi
fi
exec "${bind[@]}" "$@"
)SH";
  return s;
}

}  // namespace

std::string slurm_time_limit(double seconds) {
  const long minutes = static_cast<long>(std::ceil((1.5 * std::max(0.0, seconds) + 300) / 60));
  const long days = minutes / (24 * 60), hours = (minutes / 60) % 24, mins = minutes % 60;
  return days > 0 ? fmt::format("{}-{:02}:{:02}:00", days, hours, mins)
                  : fmt::format("{:02}:{:02}:00", hours, mins);
}

int cpus_per_rank(const SystemSpec& spec, int ranks_per_node) {
  const int cores = node_cores(spec);
  return ranks_per_node > 0 && cores >= ranks_per_node ? cores / ranks_per_node : 0;
}

std::vector<std::string> lu_flags_for(const SystemSpec& spec, const TuneCandidate& run) {
  std::vector<std::string> f;
  if (run.split >= 0) f.insert(f.end(), {"--split", fmt::format("{}", run.split)});
  // A spec with a [host] table describes FACT on the host and on the
  // device; the job runs where the search found it faster (what was
  // predicted), never hplx lu's own default.
  if (spec.host.present)
    f.insert(f.end(), {"--fact-on", fact_on_name(run.fact_on.value_or(FactOn::Host))});
  return f;
}

std::vector<std::string> fact_choice_comments(const SystemSpec& spec, const TuneResult& r,
                                              bool simulated) {
  const TuneCandidate& c = r.chosen;
  if (!c.fact_on) return {};
  const FactOn here = *c.fact_on;
  const FactOn there = here == FactOn::Host ? FactOn::Device : FactOn::Host;
  std::vector<std::string> out;
  if (r.best_by_fact.size() < 2) {
    out.push_back(
        fmt::format("FACT on the {} (--fact-on {}), as asked: the other place was not "
                    "compared",
                    fact_on_name(here), fact_on_name(here)));
  } else {
    out.push_back(fmt::format(
        "FACT on the {} (--fact-on {}): {:.4g} Gflops against {:.4g} with FACT on the {}, the "
        "best of each that the {} found",
        fact_on_name(here), fact_on_name(here), r.best_by_fact.at(here), r.best_by_fact.at(there),
        fact_on_name(there), r.best_by_fact_simulated ? "simulator" : "model"));
  }
  // The assumed figures each place alone reads, so the comparison's weak
  // side shows.
  const std::vector<std::string> shared =
      assumed_figures(spec, {simulated, /*host_fact=*/false, /*device_fact=*/false});
  for (const FactOn where : {here, there}) {
    if (where == there && r.best_by_fact.size() < 2) break;
    std::vector<std::string> own;
    for (const std::string& k :
         assumed_figures(spec, {simulated, where == FactOn::Host, where == FactOn::Device}))
      if (std::find(shared.begin(), shared.end(), k) == shared.end()) own.push_back(k);
    out.push_back(fmt::format("FACT on the {} rests on {}", fact_on_name(where),
                              own.empty()
                                  ? std::string("no assumed figure of its own")
                                  : fmt::format("assumed figures: {}", fmt::join(own, ", "))));
  }
  if (!spec.provenance.present)
    out.push_back(
        fmt::format("({} does not say which figures are assumed: no [provenance])", spec.file));
  return out;
}

BatchFiles batch_files(const SystemSpec& spec, const TuneCandidate& run, int nodes,
                       const BatchOptions& opt) {
  const bool gpu = spec_is_gpu(spec);
  const int rpn = run.ranks_per_node;
  const int cpus = cpus_per_rank(spec, rpn);
  const double flops = 2.0 / 3.0 * std::pow(static_cast<double>(run.n), 3);
  const double predicted_s = run.best_gflops() > 0 ? flops / (run.best_gflops() * 1e9) : 0;

  std::string s = "#!/bin/bash\n";
  s += fmt::format(
      "# hplx lu on {} node(s) of {},\n"
      "# as `hplx tune` chose it (tune.json beside this file has the search):\n"
      "# N={} {},\n# predicted {:.4g} Gflops in {:.3g} s. Submit with: sbatch {}\n",
      nodes, opt.spec_name.empty() ? spec.name : opt.spec_name, run.n, run.label(),
      run.best_gflops(), predicted_s, kSbatchFile);
  for (const std::string& line : opt.comments) s += "# " + line + "\n";
  s += "#SBATCH --job-name=hplx-lu\n";
  s += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n", nodes, rpn);
  if (cpus > 0) s += fmt::format("#SBATCH --cpus-per-task={}\n", cpus);
  if (gpu) s += "#SBATCH --gpus-per-task=1\n";
  s += fmt::format("#SBATCH --time={}\n", slurm_time_limit(predicted_s));
  s += "#SBATCH --exclusive\n#SBATCH --output=hplx-lu-%j.out\n";
  s += "set -euo pipefail\n";
  s += "# The folder sbatch was run in, which holds HPL.dat and hplx-bind.sh.\n";
  s += "cd \"${SLURM_SUBMIT_DIR:-.}\"\n";
  s += fmt::format("HPLX=${{HPLX:-{}}}\n", quoted(opt.hplx));
  const std::string cmd = fmt::format("./{} \"$HPLX\" lu HPL.dat --json {}{}", kBindFile,
                                      kRecordFile, joined_quoted(opt.lu_flags));
  if (opt.launcher == Launcher::Srun) {
    s += "# Slurm starts the ranks (PMIx); the wrapper binds them, so srun does not.\n";
    s += "srun --mpi=pmix --cpu-bind=none " + cmd + "\n";
  } else {
    s += "# Open MPI's mpirun inside the allocation; the wrapper binds the ranks.\n";
    s +=
        fmt::format("mpirun -n {} --map-by ppr:{}:node --bind-to none {}\n", nodes * rpn, rpn, cmd);
  }
  return {s, bind_script(spec, rpn, cpus)};
}

}  // namespace hplx::model
