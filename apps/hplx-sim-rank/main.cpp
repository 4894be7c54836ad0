// hplx-sim-rank: one rank of the simulated cluster. `hplx sim` (apps/hplx/
// sim_command.cpp) starts it under SimGrid's smpirun on the platform it
// generated; users do not run it themselves. It is hplx lu's run (the same
// HPL.dat or test flags, the same driver, output and JSON record) on the
// sim backend, whose costs come from --model.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/context.hpp"
#include "core/error.hpp"
#include "core/threads.hpp"
#include "device/device.hpp"
#include "device/sim/sim_backend.hpp"
#include "lu/config.hpp"
#include "lu/run/hpl_run.hpp"
#include "lu/run/node_preflight.hpp"
#include "lu_flags.hpp"

namespace {

// The flags hplx sim passes each simulated rank (sim_command.cpp's
// smpirun_args): hplx lu's own, for a rank of the simulated machine.
struct RankFlags {
  std::string model_path, json, trace, file;
  bool quiet = false;
  double split = 0;
  bool split_given = false;
  hplx::app::LuTestFlags test;
  std::string fact_on = "host", fact_overlap = "on", preflight = "off";
  int update_sms = 0;
  long update_sms_below = 0;
};

RankFlags parse_flags(int argc, char** argv) {
  CLI::App app{"one rank of hplx sim (started by hplx sim under smpirun)"};
  RankFlags f;
  app.add_option("--model", f.model_path, "the kernel models (JSON, written by hplx sim)")
      ->required();
  app.add_option("--json", f.json, "the JSON record");
  app.add_option("--trace", f.trace, "Chrome trace events");
  app.add_flag("--quiet", f.quiet, "only the netlib-format output");
  app.add_option("--split", f.split, "split update: the right section's share of the columns");
  app.add_option("--fact-on", f.fact_on, "where FACT runs: host or device")
      ->check(CLI::IsMember({"host", "device"}));
  app.add_option("--fact-overlap", f.fact_overlap, "FACT beside the update: on or off")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--preflight", f.preflight, "the preflight: off, on or strict")
      ->check(CLI::IsMember({"off", "on", "strict"}));
  app.add_option("--update-sms", f.update_sms, "the SMs the update beside FACT aims at");
  app.add_option("--update-sms-below", f.update_sms_below, "only below this many trailing rows");
  app.add_option("file", f.file, "an HPL.dat");
  hplx::app::add_test_flags(app, f.test);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throw hplx::UsageError(e.what());
  }
  f.split_given = app.count("--split") > 0;
  return f;
}

int run(int argc, char** argv, int rank, int size) {
  const RankFlags f = parse_flags(argc, argv);
  const hplx::device::SimModel model = hplx::device::read_sim_model(f.model_path);
  auto dev = std::make_shared<hplx::device::Device>(hplx::device::make_sim_backend(model));
  // Simulated ranks are actors of one process: no threads of their own.
  hplx::set_thread_counts(1, 1);
  hplx::ThreadPlan plan;
  plan.binding = "simulated";

  hplx::lu::HplDat dat = f.file.empty() ? hplx::app::dat_from_test_flags(f.test, size)
                                        : hplx::lu::parse_hpl_dat_file(f.file);
  if (dat.ns.empty()) throw hplx::UsageError("hplx sim: give --n (no default problem size)");
  // As hplx lu: its per-grid choice unless --split is given.
  dat.schedule.split = f.split;
  dat.schedule.split_auto = !f.split_given;
  dat.schedule.fact_on = f.fact_on == "device" ? hplx::lu::FactOn::Device : hplx::lu::FactOn::Host;
  dat.schedule.fact_overlap = f.fact_overlap == "on";
  dat.schedule.update_sms = f.update_sms;
  dat.schedule.update_sms_below = f.update_sms_below;
  // A rank that stands for a GPU makes a device's choices even when its
  // queue is simulated in order (device.gpu without [host]).
  dat.schedule.update_on_device = !dev->compute().runs_inline() || model.device_ranks;
  hplx::lu::preflight(dat, size, static_cast<long long>(dev->backend().free_device_bytes()));

  hplx::lu::RunOptions options;
  options.json_path = f.json;
  options.trace_path = f.trace;
  options.argv.assign(argv, argv + argc);
  options.quiet = f.quiet;
  options.watchdog_s = 0;  // simulated time: nothing to watch
  const hplx::Context ctx(MPI_COMM_WORLD, plan, std::move(dev));
  if (rank == 0 && !f.quiet)
    std::fprintf(stderr, "hplx: backend %s\n", ctx.device().backend().describe().c_str());
  const hplx::lu::PreflightOutcome checked = hplx::lu::run_node_preflight(
      ctx, dat, {hplx::lu::parse_preflight_mode(f.preflight), 0.10}, f.quiet);
  if (checked.stop) return hplx::lu::kPreflightStopStatus;
  options.preflight = checked.record;
  return hplx::lu::run_hpl(ctx, dat, options);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  try {
    status = run(argc, argv, rank, size);
  } catch (const hplx::UsageError& e) {
    if (rank == 0) std::fprintf(stderr, "hplx sim: error: %s\n", e.what());
    status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hplx sim: error on rank %d: %s\n", rank, e.what());
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    status = 1;
  }
  MPI_Finalize();
  return status;
}
