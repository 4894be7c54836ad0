// `hplx report RUN.json [MORE.json ...] -o report.html`: the HTML page of
// one or more `hplx lu --json` records (src/report, docs/REPORT.md).
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hplx::app {

class ReportCommand {
 public:
  explicit ReportCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world);

 private:
  CLI::App* sub_;
  std::vector<std::string> records_;
  std::string output_;
  bool quiet_ = false;
};

}  // namespace hplx::app
