// `hplx model SPEC.toml`: predictions of the original and MCL HPL models,
// single points, sweeps, weak scaling and published-versus-model tables;
// `hplx model calibrate -o FILE`: measures this machine into a spec.
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/prediction.hpp"

namespace hplx::app {

class ModelCommand {
 public:
  explicit ModelCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  int run_predict(MPI_Comm world, const std::vector<std::string>& argv);
  int run_calibrate(MPI_Comm world, const std::vector<std::string>& argv);
  // run_predict's steps; `print`: this rank prints the tables.
  std::vector<int> block_sizes(const model::SystemSpec& spec) const;
  std::vector<std::pair<int, int>> grids(const model::SystemSpec& spec) const;
  std::vector<long> orders(const model::SystemSpec& spec, std::pair<int, int> grid, int nb) const;
  nlohmann::json weak_scaling(const model::SystemSpec& spec, int nb, model::FactOn fact_on,
                              bool print) const;
  nlohmann::json sweep(const model::SystemSpec& spec, const std::vector<int>& nbs,
                       model::FactOn fact_on, bool print) const;
  nlohmann::json published(const model::SystemSpec& spec, model::FactOn fact_on, bool print) const;

  CLI::App* sub_;
  CLI::App* calibrate_;
  std::string spec_file_;
  std::optional<std::string> n_, nb_, grid_, nodes_;
  std::optional<double> memory_fraction_;
  int threads_ = 0;
  std::string fact_on_ = "host";  // a [host] spec: where FACT runs
  std::string json_;
  bool iterations_ = false;
  // calibrate
  std::string output_;
  int cal_nb_ = 192;
  long cal_size_ = 4000;
  int cal_threads_ = 0;
  int cal_rounds_ = 5;
};

}  // namespace hplx::app
