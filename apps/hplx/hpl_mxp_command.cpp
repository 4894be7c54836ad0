#include "hpl_mxp_command.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/json_record.hpp"
#include "core/system_info.hpp"
#include "core/threads.hpp"
#include "device/device.hpp"
#include "lu/flag_values.hpp"
#include "lu/problem_size.hpp"
#include "lu_flags.hpp"
#include "root_check.hpp"

namespace hplx::app {

HplMxpCommand::HplMxpCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "hpl-mxp",
      "HPL-MxP: dense LU in FP32 without pivoting, refined by GMRES in FP64 (the TOP500's "
      "mixed-precision benchmark; not `mxp`, which is HPG-MxP)");
  sub_->add_option("--n", n_,
                   "matrix order N (>= 3; default: sized from memory and a DGEMM probe to take "
                   "about --seconds)");
  sub_->add_option("--nb", config_.nb, "block size NB (>= 1; default 256)");
  sub_->add_option("--grid", grid_, "process grid PxQ (default: squarest grid of the ranks)");
  sub_->add_option("--pmap", pmap_,
                   "how ranks fill the process grid: row (row-major, default) | column");
  sub_->add_option("--bcast", bcast_,
                   "panel broadcast along process rows: 1ring | 1ringM | 2ring | 2ringM | long | "
                   "longM (default 1ringM)");
  sub_->add_option("--restart", config_.restart, "GMRES restart length (default 30)");
  sub_->add_option(
      "--max-iterations", config_.max_iterations,
      "GMRES iterations allowed in all before the run fails to converge (default 100)");
  sub_->add_option("--threshold", config_.threshold,
                   "the check passes below this (default 16, HPL-MxP's rule)");
  sub_->add_option("--diagonal-scale", config_.diagonal_scale,
                   "testing: multiply the matrix's diagonal by this (default 1; other values "
                   "are not the benchmark's matrix)");
  sub_->add_option("--threads", threads_,
                   "OpenMP/OpenBLAS threads per rank (default cores / ranks)");
  sub_->add_option("--seconds", seconds_, "target run time of the default problem (default 60)")
      ->check(finite_in(1e-3, 1e9, "a finite number of seconds in [0.001, 1e9]"));
  sub_->add_flag("--quiet", quiet_, "no progress lines on stderr");
  sub_->add_option("--json", json_, "write a JSON record of the run to this file");
}

int HplMxpCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  config_.n = n_.value_or(0);
  if (grid_) {
    const lu::GridShape g = lu::parse_grid_flag(*grid_);
    config_.nprow = g.p;
    config_.npcol = g.q;
  }
  if (pmap_) config_.pmap = lu::parse_pmap_flag(*pmap_);
  if (bcast_) config_.bcast = lu::parse_bcast_flag(*bcast_);
  if (!n_) config_.n = 3;  // checked with a placeholder, sized below
  hplmxp::check_config(config_, size);
  require_outputs_on_root(world, {{"--json", json_}});

  const ThreadPlan plan = plan_threads(world, threads_);
  // Before any large allocation: every rank sees the smallest share of its
  // node's memory, so all agree on the verdict.
  long long per_rank = available_memory_bytes() / std::max(1, plan.local_ranks);
  MPI_Allreduce(MPI_IN_PLACE, &per_rank, 1, MPI_LONG_LONG, MPI_MIN, world);
  apply_threads(plan);
  std::vector<std::string> notes;
  if (!n_) {
    // As `hplx lu`'s embedded default, from a DGEMM probe on every rank;
    // the factorization is FP32, whose BLAS rate on CPUs is about twice
    // FP64's (twice the SIMD lanes), so twice the probe stands for it.
    const double mine = lu::probe_dgemm_gflops(0);
    double fp64 = 0;
    MPI_Allreduce(&mine, &fp64, 1, MPI_DOUBLE, MPI_SUM, world);
    const double fp64_grid = fp64 * config_.nprow * config_.npcol / size;
    const hplmxp::DefaultSize d =
        hplmxp::choose_default_size(config_, 2 * fp64_grid, per_rank, seconds_);
    config_.n = d.n;
    notes.push_back(fmt::format(
        "hplx hpl-mxp: default problem: N = {}{}: DGEMM probe {:.1f} Gflop/s on the {}x{} grid, "
        "FP32 taken as 2x that ({:.1f}) x {:.2f} efficiency -> about {:.3g} s of FP32 LU "
        "(target {:g} s); 12 bytes per element (FP64 matrix + FP32 copy): {:.2f} GiB of {:.2f} "
        "GiB per rank (limit {:.0f}%); --n sets N",
        d.n, d.memory_bound ? " (capped by memory)" : "", fp64_grid, config_.nprow, config_.npcol,
        2 * fp64_grid, lu::kLuEfficiency, d.predicted_seconds, seconds_,
        static_cast<double>(d.bytes_per_process) / (1 << 30),
        static_cast<double>(per_rank) / (1 << 30), 100 * lu::kMemoryLimitFraction));
  }
  hplmxp::check_config(config_, size);
  hplmxp::check_memory(config_, per_rank);
  // The host backend: the solver's buffers are host memory.
  const std::shared_ptr<device::Device> dev = device::make_device(device::BackendKind::Host);
  if (rank == 0 && !quiet_) {
    std::fprintf(stderr, "%s\n", describe(plan, size).c_str());
    std::fprintf(stderr, "hplx hpl-mxp: backend %s\n", dev->backend().describe().c_str());
    for (const std::string& note : notes) std::fprintf(stderr, "%s\n", note.c_str());
  }
  const hplmxp::HplMxpResult result =
      hplmxp::run_hpl_mxp(config_, world, dev->compute(), rank == 0 && !quiet_ ? stderr : nullptr);
  if (rank == 0) {
    hplmxp::print_result(result, config_.threshold, stdout);
    if (config_.diagonal_scale != 1.0)
      std::printf("hplx hpl-mxp: --diagonal-scale %g: not the benchmark's matrix, no result\n",
                  config_.diagonal_scale);
    std::fflush(stdout);
    if (!json_.empty()) {
      nlohmann::json record = make_record_header("hpl-mxp", argv);
      record["thread_plan"] = describe(plan, size);
      record["backend"] = "host";
      record["notes"] = notes;
      record["result"] = hplmxp::to_json(result, config_);
      write_json_atomically(json_, record);
    }
  }
  int failed = result.in_grid && !result.passed() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, world);
  return failed;
}

}  // namespace hplx::app
