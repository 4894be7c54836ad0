#include "mxp_command.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "core/blas_core.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/json_record.hpp"
#include "core/system_info.hpp"
#include "core/threads.hpp"
#include "core/trace.hpp"
#include "device/backend_kind.hpp"
#include "device/device.hpp"
#include "mxp/expected_rating.hpp"
#include "root_check.hpp"

namespace hplx::app {

MxpCommand::MxpCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "mxp",
      "HPG-MxP: mixed-precision GMRES-IR with multigrid on a 27-point stencil (the "
      "dense HPL-MxP is `hpl-mxp`)");
  sub_->alias("hpg-mxp");
  // The reference's names (--nx=64, --rt=60) work too: CLI11 accepts
  // --name=value, and --rt is an alias of --time.
  sub_->add_option("--nx", config_.nx,
                   "local grid points in x per rank (multiple of 8; default 64)");
  sub_->add_option("--ny", config_.ny,
                   "local grid points in y per rank (multiple of 8; default 64)");
  sub_->add_option("--nz", config_.nz,
                   "local grid points in z per rank (multiple of 8; default 64)");
  sub_->add_option("--time,--rt", config_.time,
                   "seconds each timed phase (mixed, double) fills with solves (default 60)");
  sub_->add_option("--restart", config_.restart, "GMRES restart length (default 30)");
  sub_->add_option("--iterations", config_.bench_iters,
                   "inner iterations per benchmark solve (default 300)");
  sub_->add_option("--validation", validation_,
                   "standard: first min(8, P) ranks, tolerance 1e-9; fullscale: all ranks, the "
                   "benchmark's problem, 10000-iteration cap (default standard)");
  sub_->add_option("--precision", precision_,
                   "mixed: GMRES-IR (float inner solver) against double GMRES; double: double "
                   "GMRES only (default mixed)");
  sub_->add_option("--smoother", smoother_,
                   "multicolor: 8-color parallel Gauss-Seidel; lexicographic: the reference's "
                   "sequential sweep in natural order, for iteration counts comparable with it "
                   "(default multicolor)");
  sub_->add_option("--npx", npx_, "process grid in x (with --npy, --npz; default HPCG's choice)");
  sub_->add_option("--npy", npy_, "process grid in y");
  sub_->add_option("--npz", npz_, "process grid in z");
  sub_->add_flag("--nonsymmetric", config_.nonsymmetric,
                 "the reference's nonsymmetric matrix (-1.5 / -0.5 below / above in z)");
  sub_->add_option("--threads", threads_,
                   "OpenMP/OpenBLAS threads per rank (default cores / ranks)");
  backend_ = device::name_of(device::default_backend());
  sub_->add_option("--backend", backend_,
                   "device layer implementation the solver runs on: " +
                       device::compiled_backends() + " (default " + backend_ +
                       "; cuda: compiled, its logic tested on the emulated device, not yet run "
                       "on a GPU)");
  expect_ = sub_->add_option(
      "--expect-bandwidth", expect_gbs_,
      "also print what this problem should rate on a device of this memory bandwidth per rank, "
      "in GB/s (each motif's modelled bytes at that bandwidth, times this run's penalty; e.g. "
      "H100 SXM 3350, H200 4800, A100 80GB 2039): the figure a first GPU run has to meet");
  sub_->add_option("--json", json_, "write a JSON record of the run to this file");
  sub_->add_option("--trace", trace_,
                   "write a Chrome trace (per rank: phases, and every kernel of the first timed "
                   "solve of each precision: SpMV, GS, restriction, prolongation, ortho, halo "
                   "messages) to this file");
  sub_->add_option("--report", report_,
                   "also write the report in the reference's file format (Section::Key=value)");
}

int MxpCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  config_.validation = mxp::parse_validation_mode(validation_);
  config_.precision = mxp::parse_precision(precision_);
  config_.smoother = mxp::parse_smoother(smoother_);
  config_.shape = {npx_, npy_, npz_};
  const device::BackendKind backend = device::parse_backend(backend_);
  mxp::check_config(config_, size);
  if (expect_->count() > 0) mxp::check_bandwidth_gbs(expect_gbs_);
  require_outputs_on_root(world, {{"--json", json_}, {"--trace", trace_}});

  const ThreadPlan plan = plan_threads(world, threads_);
  // The device first, as in hplx lu: a backend that cannot run here says so
  // now, and a GPU's own memory (one per rank) checks the problem; the host
  // and emulated backends keep it in host memory, which the node's ranks
  // share. Every rank sees the smallest share, so all agree.
  std::shared_ptr<device::Device> dev = device::make_device(backend);
  long long per_rank = backend == device::BackendKind::Cuda
                           ? static_cast<long long>(dev->backend().free_device_bytes())
                           : available_memory_bytes() / std::max(1, plan.local_ranks);
  MPI_Allreduce(MPI_IN_PLACE, &per_rank, 1, MPI_LONG_LONG, MPI_MIN, world);
  mxp::check_memory(config_, per_rank);
  apply_threads(plan);
  const Context ctx(world, plan, std::move(dev));
  if (rank == 0) {
    std::fprintf(stderr, "%s\n", describe(plan, size).c_str());
    std::fprintf(stderr, "hplx mxp: backend %s\n", ctx.device().backend().describe().c_str());
    if (const std::string note = blas_core_note(); !note.empty())
      std::fprintf(stderr, "hplx: %s\n", note.c_str());
  }

  TraceRecorder trace(!trace_.empty());
  const mxp::MxpResult result =
      mxp::run_mxp(config_, ctx, rank == 0 ? stderr : nullptr, trace.enabled() ? &trace : nullptr);
  // Collective: every rank sends its spans to rank 0, which writes the file.
  trace.write(trace_, world, {{"command", "hplx mxp"}, {"argv", argv}});
  if (rank == 0 && trace.enabled())
    std::fprintf(stderr, "hplx mxp: trace written to %s (%zu spans on rank 0)\n", trace_.c_str(),
                 trace.size());
  if (rank == 0) {
    std::FILE* flat = nullptr;
    if (!report_.empty() && !(flat = std::fopen(report_.c_str(), "w")))
      throw SystemError(report_ + ": cannot write the report file");
    mxp::print_report(result, stdout, flat);
    std::optional<mxp::ExpectedRating> expected;
    if (expect_->count() > 0) {
      expected = mxp::expect_rating(result, expect_gbs_);
      mxp::print_expected(*expected, result, stdout);
    }
    if (flat && std::fclose(flat) != 0)
      throw SystemError(report_ + ": cannot write the report file");
    if (!json_.empty()) {
      nlohmann::json record = make_record_header("mxp", argv);
      record["thread_plan"] = describe(plan, size);
      record["backend"] = result.backend;
      record["result"] = mxp::to_json(result);
      if (expected) record["result"]["expected"] = mxp::to_json(*expected);
      write_json_atomically(json_, record);
    }
  }
  return result.valid ? 0 : 1;
}

}  // namespace hplx::app
