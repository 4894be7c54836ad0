// `hplx mxp`: the HPG-MxP benchmark (mixed-precision GMRES-IR with a
// multigrid preconditioner on the 27-point stencil).
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "mxp/benchmark.hpp"

namespace hplx::app {

class MxpCommand {
 public:
  explicit MxpCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  CLI::App* sub_;
  mxp::MxpConfig config_;
  std::string validation_ = "standard";
  std::string precision_ = "mixed";
  std::string smoother_ = "multicolor";
  int npx_ = 0, npy_ = 0, npz_ = 0;
  int threads_ = 0;
  std::string backend_;
  std::string json_;
  std::string report_;
  std::string trace_;
  CLI::Option* expect_ = nullptr;
  double expect_gbs_ = 0;
};

}  // namespace hplx::app
