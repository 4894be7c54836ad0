// The job `hplx tune` hands over: a Slurm batch script that runs the tuned
// HPL.dat with `hplx lu`, and the per-rank wrapper that binds each rank to
// its cores, its NUMA domain and its GPU the way the spec describes the
// node (NVIDIA's hpl.sh does the same with its affinity lists).
//
// Local rank i of the R ranks on a node (SLURM_LOCALID under srun,
// OMPI_COMM_WORLD_LOCAL_RANK under mpirun) gets the i-th slice of C cpus of
// those the job step allows it (C = node.cores / R), NUMA domain
// i * D / R (numactl, where installed and D > 1) and, on a GPU spec, GPU i
// (CUDA_VISIBLE_DEVICES).
#pragma once

#include <string>
#include <vector>

#include "model/system_spec.hpp"
#include "model/tune.hpp"

namespace hplx::model {

enum class Launcher { Srun, Mpirun };

struct BatchOptions {
  Launcher launcher = Launcher::Srun;
  std::string hplx = "hplx";          // the hplx the job runs (the one that wrote it)
  std::vector<std::string> lu_flags;  // further `hplx lu` flags (--split, --fact-on)
  std::string spec_name;              // for the comments
  // Further comment lines at the top (why FACT runs where it does, the
  // assumed figures behind it), without the "# ".
  std::vector<std::string> comments;
};

struct BatchFiles {
  std::string sbatch;  // hplx-lu.sbatch
  std::string bind;    // hplx-bind.sh
};

inline constexpr const char* kSbatchFile = "hplx-lu.sbatch";
inline constexpr const char* kBindFile = "hplx-bind.sh";
inline constexpr const char* kRecordFile = "hplx-lu.json";

// The time limit for a run predicted to take `seconds`: 1.5 times that plus
// 5 minutes for the start, the matrix and the check, whole minutes, as
// Slurm's "D-HH:MM:SS".
std::string slurm_time_limit(double seconds);

BatchFiles batch_files(const SystemSpec& spec, const TuneCandidate& run, int nodes,
                       const BatchOptions& opt);

// The cpus each of `ranks_per_node` ranks is bound to: the node's cores
// shared out, 0 when the spec does not give them.
int cpus_per_rank(const SystemSpec& spec, int ranks_per_node);

// The job's comment on where FACT runs (r.chosen.fact_on): the best rate
// the search found with FACT there and in the other place, and the assumed
// figures each place alone rests on (`simulated`: hplx sim's figures
// count); empty for a spec without a [host] table.
std::vector<std::string> fact_choice_comments(const SystemSpec& spec, const TuneResult& r,
                                              bool simulated);

// The `hplx lu` flags a candidate needs beyond its HPL.dat.
std::vector<std::string> lu_flags_for(const SystemSpec& spec, const TuneCandidate& run);

}  // namespace hplx::model
