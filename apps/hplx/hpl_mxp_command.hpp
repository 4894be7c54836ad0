// `hplx hpl-mxp`: HPL-MxP, the TOP500's mixed-precision dense LU benchmark
// (FP32 LU without pivoting, GMRES-IR in FP64). Not `hplx mxp`, which is
// HPG-MxP, the sparse multigrid benchmark.
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "hplmxp/hpl_mxp.hpp"

namespace hplx::app {

class HplMxpCommand {
 public:
  explicit HplMxpCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  CLI::App* sub_;
  hplmxp::HplMxpConfig config_;
  std::string file_, dat_;  // an HPL.dat, as the argument or --dat
  std::optional<long> n_;
  std::optional<std::string> grid_;
  std::optional<std::string> pmap_;
  std::optional<std::string> bcast_;
  std::optional<std::string> backend_, precision_, panel_solve_;
  std::optional<double> watchdog_;
  std::string trace_;
  int threads_ = 0;
  double seconds_ = 60.0;
  bool compare_hpl_ = false;
  bool quiet_ = false;
  std::string json_;
};

}  // namespace hplx::app
