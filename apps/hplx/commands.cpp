#include "commands.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>

#include "core/error.hpp"
#include "hpl_mxp_command.hpp"
#include "lu_command.hpp"
#include "model_command.hpp"
#include "mxp_command.hpp"
#include "report_command.hpp"
#include "sim_command.hpp"
#include "tune_command.hpp"
#include "version.hpp"

namespace hplx::app {

int run_command_line(int argc, char** argv, MPI_Comm world) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  CLI::App app{"hplx: HPC benchmarks (HPL, netlib 2.3 compatible)", "hplx"};
  app.set_version_flag(
      "--version", [] { return version_text(); },
      "hplx's version, the backends compiled in and the library versions");
  app.require_subcommand(1);
  LuCommand lu(app);
  ReportCommand report(app);
  ModelCommand model(app);
  MxpCommand mxp(app);
  HplMxpCommand hpl_mxp(app);
  SimCommand sim(app);
  TuneCommand tune(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    if (rank == 0) app.exit(e);
    return 0;
  } catch (const CLI::ParseError& e) {
    // One line, like every other usage error.
    std::ostringstream what;
    what << e.what();
    if (e.get_name() == "RequiredError" && app.get_subcommands().empty())
      what.str(
          "a subcommand is required; allowed: lu (alias hpl), hpl-mxp, mxp (alias hpg-mxp), model, "
          "report, sim, tune (run `hplx --help`)");
    throw UsageError(what.str());
  }
  std::vector<std::string> args(argv, argv + argc);
  if (lu.chosen()) return lu.run(world, args);
  if (report.chosen()) return report.run(world);
  if (model.chosen()) return model.run(world, args);
  if (mxp.chosen()) return mxp.run(world, args);
  if (hpl_mxp.chosen()) return hpl_mxp.run(world, args);
  if (sim.chosen()) return sim.run(world, args);
  if (tune.chosen()) return tune.run(world, args);
  return 2;
}

}  // namespace hplx::app
