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

#include "model/provenance.hpp"
#include "model/tune.hpp"

namespace hplx::app {

class TuneCommand {
 public:
  explicit TuneCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  void check_out_folder() const;
  model::TuneOptions options() const;
  model::FigureUse print_choice(const model::SystemSpec& spec, const std::string& spec_path,
                                const model::TuneResult& r) const;
  void write_tuned_job(const model::SystemSpec& spec, const std::string& spec_path,
                       const model::TuneResult& r, const model::TuneOptions& opt,
                       const model::FigureUse& use, const std::string& self,
                       const std::vector<std::string>& argv) const;

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
