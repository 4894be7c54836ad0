// `hplx tune SPEC --nodes K`: the HPL run to make on K nodes of a spec'd
// machine (model/tune.hpp: the model ranks every candidate, `hplx sim`
// checks the best few within --budget seconds), written out as a job that
// runs: HPL.dat, a Slurm batch script and its per-rank binding wrapper
// (model/batch_script.hpp), and tune.json, the record of the search that
// `hplx report` draws.
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hplx::app {

class TuneCommand {
 public:
  explicit TuneCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  CLI::App* sub_;
  std::string spec_, calibrated_, out_ = ".", launcher_ = "srun", slurm_check_ = "on";
  std::string fact_on_ = "auto";
  int nodes_ = 0;
  double memory_fraction_ = 0;
  long n_ = 0;
  std::vector<int> nbs_;
  double budget_ = 300;
  int top_ = 3;
  bool force_ = false, quiet_ = false;
};

}  // namespace hplx::app
