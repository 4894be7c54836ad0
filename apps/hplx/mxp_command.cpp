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
#include "mxp/benchmark.hpp"
#include "mxp/expected_rating.hpp"
#include "mxp_flags.hpp"
#include "rank_memory.hpp"
#include "root_check.hpp"

namespace hplx::app {

MxpCommand::MxpCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "mxp",
      "HPG-MxP: mixed-precision GMRES-IR with multigrid on a 27-point stencil (the "
      "dense HPL-MxP is `hpl-mxp`)");
  sub_->alias("hpg-mxp");
  add_mxp_flags(*sub_, flags_);
  sub_->add_option("--threads", threads_,
                   "OpenMP/OpenBLAS threads per rank (default cores / ranks)");
  backend_ = device::name_of(device::default_backend());
  sub_->add_option("--backend", backend_,
                   "device layer implementation the solver runs on: " +
                       device::compiled_backends() + " (default " + backend_ +
                       "; cuda: NVIDIA GPUs, hip: AMD GPUs; docs/GPU.md says what has run on one)");
  sub_->add_option("--json", json_, "write a JSON record of the run to this file");
  sub_->add_option("--trace", trace_,
                   "write a Chrome trace (per rank: phases, and every kernel of the first timed "
                   "solve of each precision: SpMV, GS, restriction, prolongation, ortho, halo "
                   "messages) to this file");
  sub_->add_option("--report", report_,
                   "also write the report in the reference's file format (Section::Key=value)");
}

namespace {

// Without --nx/--ny/--nz on a GPU: the largest local cube that fills about
// 70% of the GPU's free memory (HPG-MxP's rule for full runs), said on
// stderr by rank 0.
void size_by_device_memory(mxp::MxpConfig& config, long long free_bytes, bool say) {
  const int n = mxp::largest_fitting_cube(config, free_bytes);
  if (n == 0) return;  // check_memory says why the default does not fit
  config.nx = config.ny = config.nz = n;
  if (say)
    std::fprintf(
        stderr,
        "hplx mxp: local grid %d^3 (about %.1f GiB per rank): the largest that fits %.0f%% "
        "of the GPU's %.1f GiB free; --nx, --ny, --nz choose another\n",
        n, mxp::bytes_per_rank(config) / (1 << 30), 100 * mxp::kDeviceMemoryFraction,
        static_cast<double>(free_bytes) / (1 << 30));
}

}  // namespace

// Rank 0's results: the report (and its flat copy, --report), the rating
// expected of the bandwidth given (--expect-gbs), and the JSON record.
void MxpCommand::write_results(const mxp::MxpResult& result, const std::string& thread_plan,
                               const std::vector<std::string>& argv) const {
  std::FILE* flat = nullptr;
  if (!report_.empty() && !(flat = std::fopen(report_.c_str(), "w")))
    throw SystemError(report_ + ": cannot write the report file");
  mxp::print_report(result, stdout, flat);
  std::optional<mxp::ExpectedRating> expected;
  if (flags_.expect_gbs) {
    expected = mxp::expect_rating(result, *flags_.expect_gbs);
    mxp::print_expected(*expected, result, stdout);
  }
  if (flat && std::fclose(flat) != 0) throw SystemError(report_ + ": cannot write the report file");
  if (!json_.empty()) {
    nlohmann::json record = make_record_header("mxp", argv);
    record["thread_plan"] = thread_plan;
    record["backend"] = result.backend;
    record["result"] = mxp::to_json(result);
    if (expected) record["result"]["expected"] = mxp::to_json(*expected);
    write_json_atomically(json_, record);
  }
}

int MxpCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  mxp::MxpConfig config = mxp_config_from_flags(flags_, size);
  const device::BackendKind backend = device::parse_backend(backend_);
  require_outputs_on_root(world, {{"--json", json_}, {"--trace", trace_}});

  const ThreadPlan plan = plan_threads(world, threads_);
  // The device first, as in hplx lu: a backend that cannot run here says so
  // now, and the memory per rank checks the problem.
  std::shared_ptr<device::Device> dev = device::make_device(backend);
  const long long per_rank = memory_per_rank(world, *dev, backend, plan.local_ranks);
  const bool sizes_given = sub_->count("--nx") + sub_->count("--ny") + sub_->count("--nz") > 0;
  if (device::traits_of(backend).gpu && !sizes_given)
    size_by_device_memory(config, per_rank, rank == 0);
  mxp::check_memory(config, per_rank);
  apply_threads(plan);
  Context ctx(world, plan, std::move(dev));
  if (rank == 0) {
    std::fprintf(stderr, "%s\n", describe(plan, size).c_str());
    std::fprintf(stderr, "hplx mxp: backend %s\n", ctx.device().backend().describe().c_str());
    if (const std::string note = blas_core_note(); !note.empty())
      std::fprintf(stderr, "hplx: %s\n", note.c_str());
  }

  TraceRecorder trace(!trace_.empty());
  if (trace.enabled()) ctx.set_trace(&trace);
  if (rank == 0) ctx.set_log(stderr);
  const mxp::MxpResult result = mxp::run_mxp(ctx, config);
  // Collective: every rank sends its spans to rank 0, which writes the file.
  trace.write(trace_, world, {{"command", "hplx mxp"}, {"argv", argv}});
  if (rank == 0 && trace.enabled())
    std::fprintf(stderr, "hplx mxp: trace written to %s (%zu spans on rank 0)\n", trace_.c_str(),
                 trace.size());
  if (rank == 0) write_results(result, describe(plan, size), argv);
  return result.valid ? 0 : 1;
}

}  // namespace hplx::app
