#include "model/sim_kernels.hpp"

#include <functional>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::model {
namespace {

using Note = std::function<void(const std::string&)>;

// Guesses where a spec is silent (each one noted in the run's log).
constexpr double kGpuKernelOverheadS = 5e-6;  // a kernel launch plus its tail
constexpr double kHostCopyBps = 20e9;         // one core's memcpy into pinned memory
constexpr double kCpuCopyBps = 10e9;          // one core's memcpy beside a busy neighbour
constexpr double kCpuRowElementS = 5e-9;      // a row copy's cache miss, without a calibrated t_sw
// A GPU's row kernels: strided rows, one 32-byte sector per 8-byte element,
// read and written: 64 bytes of HBM traffic per element moved.
constexpr double kGpuRowBytes = 64;

// A GPU rank's figures: the device's memory and the host link (both
// required), its launches, FACT on the device as probed, FACT on the host
// at the host's rate.
void gpu_kernels(const SystemSpec& spec, device::SimModel& m, const Note& note) {
  // The device memory's own bandwidth (its hardware description's
  // M W 8 H, not the MCL model's per-core equivalent BW_eq, which is a
  // fraction of it: 13 GB/s of a P100's 732).
  m.memory_Bps = spec.memory.present ? spec.memory.bandwidth_Bps : 0;
  if (m.memory_Bps <= 0)
    throw UsageError(
        fmt::format("{}: GPU ranks ([host] given) need the device memory's bandwidth; allowed: a "
                    "[memory] table with bandwidth_gbs or the memory's hardware description",
                    m.source));
  m.link_Bps = spec.host.link.bandwidth_Bps;
  m.link_latency_s = spec.host.link.alpha_s;
  if (!(m.link_Bps > 0))
    throw UsageError(fmt::format(
        "{}: GPU ranks ([host] given) need the host link's bandwidth; allowed: host.link "
        "with bandwidth_gbs",
        m.source));
  const bool copy_given = spec.host.copy_gbs > 0;
  m.host_memory_Bps = copy_given ? spec.host.copy_gbs * 1e9 : kHostCopyBps;
  m.row_element_s = kGpuRowBytes / m.memory_Bps;
  m.host_row_element_s = 8.0 / m.host_memory_Bps;
  m.kernel_overhead_s = spec.device.launch_us ? *spec.device.launch_us * 1e-6 : kGpuKernelOverheadS;
  if (!spec.device.launch_us)
    note(fmt::format("hplx sim: assumed {:.0f} us per GPU kernel launch (no device.launch_us)",
                     kGpuKernelOverheadS * 1e6));
  note(fmt::format(
      "hplx sim: assumed {:.0f} bytes of device memory traffic per element a row kernel moves "
      "(the spec has no key for it)",
      kGpuRowBytes));
  // FACT on the device (--fact-on device): its time per column beyond
  // the leaf's launches and memory traffic.
  m.device_fact_column_s = spec.device.fact_column_us.value_or(0) * 1e-6;
  // FACT on the device as measured, alone and beside the update.
  const FactProbe& probe = spec.device.fact_probe;
  if (probe.present()) {
    auto seconds = [](std::vector<double> ms) {
      for (double& t : ms) t *= 1e-3;
      return ms;
    };
    m.device_fact = {probe.jb, probe.rows, seconds(probe.alone_ms), seconds(probe.beside_ms)};
  }
  // The update as the LU runs it, against DGEMM at its shape.
  const double share = spec.device.update_share_of_dgemm.value_or(1);
  m.dgemm.peak_flops *= share;
  if (!copy_given)
    note(fmt::format("hplx sim: assumed {:.0f} GB/s host copies (no host.copy_gbs)",
                     kHostCopyBps / 1e9));
  m.fact_flops = spec.host.fact_gflops * 1e9;
  m.fact_column_s = spec.host.fact_column_us * 1e-6;
  if (spec.device.memory_gib) m.device_memory_bytes = *spec.device.memory_gib * (1 << 30);
  m.multiprocessors = static_cast<int>(spec.device.multiprocessors.value_or(0));
}

// A CPU rank's figures: its copies and row copies (calibrated, else the
// memory layer's, else guessed), DGEMM's packing, FACT at the device's rate.
void cpu_kernels(const SystemSpec& spec, int threads, device::SimModel& m, const Note& note) {
  const double swap = spec.swap_s_per_word(threads);
  if (spec.memory.present && spec.memory.bw_eq_Bps > 0) {
    m.memory_Bps = spec.memory.bw_eq_Bps;
  } else {
    m.memory_Bps = kCpuCopyBps;
    note(
        fmt::format("hplx sim: assumed {:.0f} GB/s for a rank's contiguous copies (the spec has "
                    "no [memory])",
                    kCpuCopyBps / 1e9));
  }
  m.host_memory_Bps = m.memory_Bps;
  // A calibrated rank's row copies: t_sw seconds per element moved; else
  // the memory layer's time per word (the MCL model's beta for them).
  if (swap > 0) {
    m.row_element_s = swap;
  } else if (spec.memory.present && spec.memory.beta_s > 0) {
    m.row_element_s = spec.memory.beta_s;
  } else {
    m.row_element_s = kCpuRowElementS;
    note(
        fmt::format("hplx sim: assumed {:.1f} ns per element a row copy moves (the spec has no "
                    "device.swap_ns_per_word_by_threads)",
                    kCpuRowElementS * 1e9));
  }
  m.host_row_element_s = m.row_element_s;
  // The swap's other copies, where calibrated on their own kernels (else
  // row_element_s), and DGEMM's packing of A per call.
  const std::pair<device::RowCopy, const std::map<int, double>*> copies[] = {
      {device::RowCopy::Gather, &spec.device.gather_ns_per_word_by_threads},
      {device::RowCopy::Scatter, &spec.device.scatter_ns_per_word_by_threads},
      {device::RowCopy::BlockGather, &spec.device.block_gather_ns_per_word_by_threads},
      {device::RowCopy::BlockStore, &spec.device.block_store_ns_per_word_by_threads}};
  for (const auto& [kind, by] : copies)
    m.row_copy_s[static_cast<int>(kind)] = SystemSpec::s_per_word(*by, threads);
  m.dgemm.pack_s = spec.device.dgemm_pack_ns_per_word.value_or(0) * 1e-9;
  m.fact_flops = spec.device.fact_gflops ? *spec.device.fact_gflops * 1e9 : m.dgemm.peak_flops;
  m.fact_column_s = spec.device.fact_column_us ? *spec.device.fact_column_us * 1e-6 : 0.0;
}

}  // namespace

device::SimModel sim_model_from_spec(const SystemSpec& spec, int threads,
                                     std::vector<std::string>* notes) {
  const Note note = [&](const std::string& s) {
    if (notes) notes->push_back(s);
  };
  device::SimModel m;
  m.source = spec.file.empty() ? spec.name : spec.file;
  m.gpu = spec.host.present;
  m.device_ranks = spec.device.gpu.value_or(m.gpu);
  if (m.device_ranks && !m.gpu)
    note(
        "hplx sim: the spec's ranks are GPUs (device.gpu) without a [host] table: simulated in "
        "order (FACT, the row swap and the update on one timeline), with a device's choices "
        "(the split update for P > 1)");
  // The update's DGEMM: hplx lu's own chunked rate where calibrated, else gamma.
  const double upd = spec.update_s_per_flop(threads);
  const double gamma = upd > 0 ? upd : spec.gamma_s(threads);
  if (!(gamma > 0))
    throw UsageError(
        fmt::format("{}: no DGEMM rate (device.dgemm_gflops or rpeak_gflops)", m.source));
  m.dgemm.peak_flops = 1.0 / gamma;
  m.sgemm.peak_flops = 2.0 / gamma;
  m.dgemm.half_dim = m.sgemm.half_dim = spec.device.dgemm_half_dim.value_or(0);
  m.dgemm.cv = m.sgemm.cv = spec.device.dgemm_cv.value_or(0);
  const double trsm = spec.trsm_s_per_flop(threads);
  m.trsm_flops = trsm > 0 ? 1.0 / trsm : m.dgemm.peak_flops;

  if (m.gpu)
    gpu_kernels(spec, m, note);
  else
    cpu_kernels(spec, threads, m, note);
  if (!(m.fact_flops > 0)) m.fact_flops = m.dgemm.peak_flops;
  m.check();
  return m;
}

}  // namespace hplx::model
