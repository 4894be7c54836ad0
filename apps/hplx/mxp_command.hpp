// `hplx mxp`: the HPG-MxP benchmark (mixed-precision GMRES-IR with a
// multigrid preconditioner on the 27-point stencil).
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "mxp/benchmark.hpp"
#include "mxp_flags.hpp"

namespace hplx::app {

class MxpCommand {
 public:
  explicit MxpCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  void write_results(const mxp::MxpResult& result, const std::string& thread_plan,
                     const std::vector<std::string>& argv) const;
  CLI::App* sub_;
  MxpFlags flags_;
  int threads_ = 0;
  std::string backend_;
  std::string json_;
  std::string report_;
  std::string trace_;
};

}  // namespace hplx::app
