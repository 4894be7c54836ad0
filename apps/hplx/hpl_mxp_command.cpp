#include "hpl_mxp_command.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "core/json_record.hpp"
#include "core/system_info.hpp"
#include "core/threads.hpp"
#include "device/device.hpp"
#include "lu/flag_values.hpp"
#include "root_check.hpp"

namespace hplx::app {
namespace {

device::Precision parse_precision(const std::string& text) {
  for (device::Precision p :
       {device::Precision::Fp32, device::Precision::Fp16, device::Precision::Bf16})
    if (text == device::name_of(p)) return p;
  throw UsageError("--precision '" + text + "': allowed: fp32, fp16, bf16");
}

}  // namespace

HplMxpCommand::HplMxpCommand(CLI::App& parent) {
  sub_ = parent.add_subcommand(
      "hpl-mxp",
      "HPL-MxP: dense LU in FP32 without pivoting, refined by GMRES in FP64 (the TOP500's "
      "mixed-precision benchmark; not `mxp`, which is HPG-MxP)");
  sub_->add_option("--n", n_, "matrix order N (>= 3; required)");
  sub_->add_option("--nb", config_.nb, "block size NB (>= 1; default 256)");
  sub_->add_option("--grid", grid_, "process grid PxQ (default: squarest grid of the ranks)");
  sub_->add_option("--bcast", bcast_,
                   "panel broadcast along process rows: 1ring | 1ringM | 2ring | 2ringM | long | "
                   "longM (default 1ringM)");
  sub_->add_option("--depth", config_.depth,
                   "look-ahead: 1 factors and sends the next panel during the update (default), "
                   "0 does not");
  sub_->add_option("--backend", backend_,
                   "where the factorization and the preconditioner's solves run: host, emulated "
                   "(the emulated device, for testing), cuda (compiled in, not yet run on a GPU); "
                   "the FP64 refinement stays on the host (default host)");
  sub_->add_option("--precision", precision_,
                   "the update's operands: fp32, fp16 or bf16 (16-bit operands, FP32 products "
                   "and sums); default fp16 on cuda, fp32 otherwise");
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
  sub_->add_flag("--quiet", quiet_, "no progress lines on stderr");
  sub_->add_option("--json", json_, "write a JSON record of the run to this file");
}

int HplMxpCommand::run(MPI_Comm world, const std::vector<std::string>& argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  if (!n_) throw UsageError("--n is required (this version does not size the problem itself)");
  config_.n = *n_;
  if (grid_) {
    const lu::GridShape g = lu::parse_grid_flag(*grid_);
    config_.nprow = g.p;
    config_.npcol = g.q;
  }
  if (bcast_) config_.bcast = lu::parse_bcast_flag(*bcast_);
  const device::BackendKind backend =
      backend_ ? device::parse_backend(*backend_) : device::BackendKind::Host;
  if (backend == device::BackendKind::Sim)
    throw UsageError("--backend sim: allowed for hpl-mxp: host, emulated, cuda");
  config_.precision = precision_                             ? parse_precision(*precision_)
                      : backend == device::BackendKind::Cuda ? device::Precision::Fp16
                                                             : device::Precision::Fp32;
  hplmxp::check_config(config_, size);
  require_outputs_on_root(world, {{"--json", json_}});

  const ThreadPlan plan = plan_threads(world, threads_);
  // Before any large allocation: every rank sees the smallest share of its
  // node's memory, so all agree on the verdict.
  long long per_rank = available_memory_bytes() / std::max(1, plan.local_ranks);
  MPI_Allreduce(MPI_IN_PLACE, &per_rank, 1, MPI_LONG_LONG, MPI_MIN, world);
  hplmxp::check_memory(config_, per_rank);
  apply_threads(plan);
  const std::shared_ptr<device::Device> dev = device::make_device(backend);
  if (backend != device::BackendKind::Host) {
    long long free_dev = static_cast<long long>(dev->backend().free_device_bytes());
    MPI_Allreduce(MPI_IN_PLACE, &free_dev, 1, MPI_LONG_LONG, MPI_MIN, world);
    const long long need = hplmxp::device_bytes_per_process(config_);
    if (need > free_dev)
      throw UsageError("--n " + std::to_string(config_.n) + ": needs " +
                       std::to_string(need >> 20) + " MiB of device memory per rank, " +
                       std::to_string(free_dev >> 20) + " MiB free; allowed: a smaller N");
  }
  if (rank == 0 && !quiet_) {
    std::fprintf(stderr, "%s\n", describe(plan, size).c_str());
    std::fprintf(stderr, "hplx hpl-mxp: backend %s\n", dev->backend().describe().c_str());
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
      record["backend"] = device::name_of(backend);
      record["result"] = hplmxp::to_json(result, config_);
      write_json_atomically(json_, record);
    }
  }
  int failed = result.in_grid && !result.passed() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, world);
  return failed;
}

}  // namespace hplx::app
