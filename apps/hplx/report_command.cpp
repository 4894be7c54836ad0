#include "report_command.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/html_report.hpp"
#include "root_check.hpp"

namespace hplx::app {

ReportCommand::ReportCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "report",
      "render `hplx lu --json` and `hplx hpl-mxp --json` records as a self-contained HTML page");
  sub_->add_option(
      "records", records_,
      "JSON records written by `hplx lu --json` or `hplx hpl-mxp --json` (one or more)");
  sub_->add_option("-o,--output", output_, "the HTML file to write");
  sub_->add_flag("--quiet,-q", quiet_, "print nothing on success");
}

int ReportCommand::run(MPI_Comm world) {
  if (records_.empty())
    throw UsageError("no record given; usage: hplx report RUN.json [MORE.json ...] -o report.html");
  if (output_.empty())
    throw UsageError(
        "-o FILE is missing: hplx report writes the HTML page there, e.g. -o report.html");
  require_outputs_on_root(world, {{"-o", output_}});
  // The page is one process's work; under mpirun the other ranks only wait,
  // and hear rank 0's verdict so that every rank exits alike.
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  std::string error;
  int status = 0;  // 2: a usage error (every rank throws it), 1: rank 0 failed
  if (rank == 0) {
    try {
      std::vector<report::RunFile> files;
      for (const auto& path : records_) files.push_back(report::load_run_file(path));
      const std::string html = report::render_report(files);
      write_text_atomically(output_, html);
      if (!quiet_) std::printf("hplx report: wrote %s (%zu bytes)\n", output_.c_str(), html.size());
    } catch (const UsageError& e) {
      error = e.what();
      status = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "hplx: error: %s\n", e.what());
      status = 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, world);
  long len = static_cast<long>(error.size());
  MPI_Bcast(&len, 1, MPI_LONG, 0, world);
  error.resize(static_cast<size_t>(len));
  MPI_Bcast(error.data(), static_cast<int>(len), MPI_CHAR, 0, world);
  if (status == 2) throw UsageError(error);
  return status;
}

}  // namespace hplx::app
