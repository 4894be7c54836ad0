#include "sim_setup.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "lu/iteration_record.hpp"

namespace hplx::app {
namespace {

// Guesses where a spec is silent (each one noted in the run's log).
constexpr double kGpuKernelOverheadS = 5e-6;  // a kernel launch plus its tail
constexpr double kHostCopyBps = 20e9;         // one core's memcpy into pinned memory
constexpr double kCpuCopyBps = 10e9;          // one core's memcpy beside a busy neighbour
constexpr double kCpuRowElementS = 5e-9;      // a row copy's cache miss, without a calibrated t_sw
// A GPU's row kernels: strided rows, one 32-byte sector per 8-byte element,
// read and written: 64 bytes of HBM traffic per element moved.
constexpr double kGpuRowBytes = 64;

}  // namespace

device::SimModel sim_model_from_spec(const model::SystemSpec& spec, int threads,
                                     std::vector<std::string>* notes) {
  auto note = [&](const std::string& s) {
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

  const double swap = spec.swap_s_per_word(threads);
  if (m.gpu) {
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
    m.kernel_overhead_s =
        spec.device.launch_us ? *spec.device.launch_us * 1e-6 : kGpuKernelOverheadS;
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
    const model::FactProbe& probe = spec.device.fact_probe;
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
  } else {
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
      m.row_copy_s[static_cast<int>(kind)] = model::SystemSpec::s_per_word(*by, threads);
    m.dgemm.pack_s = spec.device.dgemm_pack_ns_per_word.value_or(0) * 1e-9;
    m.fact_flops = spec.device.fact_gflops ? *spec.device.fact_gflops * 1e9 : m.dgemm.peak_flops;
    m.fact_column_s = spec.device.fact_column_us ? *spec.device.fact_column_us * 1e-6 : 0.0;
  }
  if (!(m.fact_flops > 0)) m.fact_flops = m.dgemm.peak_flops;
  m.check();
  return m;
}

double simulator_bytes(long n, int nb, int p, int q) {
  const double ranks = static_cast<double>(p) * q;
  const double panels = static_cast<double>((n + nb - 1) / std::max(1, nb));
  // The matrix-sized buffers cost nothing: device memory is address space
  // and host buffers from 256 KiB up are SMPI's shared block (one set of
  // pages behind every one of them, shared_block_bytes). Per rank: SMPI's
  // copy of the program's data, the actor's stack in use, the pooled small
  // buffers and an NB x NB block of its own; and per panel its per-iteration
  // record, twice (the record and its copy reduced to rank 0). Measured
  // (PSS, bench/results/2026-11-26-sim-speed*), at NB 128: 1024 ranks, 1.35
  // GiB at N = 8192 (this gives 2.2) and 2.98 GiB at most at N = 500,000
  // (3.3); 4096 ranks, 4.45 GiB at most at N = 16384 (8.7). 512 GPU ranks
  // at N = 2,064,384, NB 1024: 5.2 GiB at most (this gives 6.3).
  const auto shared = static_cast<double>(shared_block_bytes(n, nb, p, q));
  constexpr double kPerActor = 2.0 * (1 << 20);
  constexpr double kPerPanel = 2.0 * sizeof(lu::IterationTimes);
  return shared + ranks * (kPerActor + 8.0 * nb * nb + kPerPanel * panels);
}

namespace {
constexpr long kMappingsPerRank = 128;   // twice the 64 measured, for the pool's growth
constexpr long kMappingsProcess = 4096;  // SimGrid's own and its libraries'
}  // namespace

long simulator_mappings(int ranks) {
  return kMappingsProcess + kMappingsPerRank * ranks;
}

void require_mappings(int ranks, long limit) {
  const long need = simulator_mappings(ranks);
  if (limit <= 0 || need <= limit) return;
  throw UsageError(fmt::format(
      "simulating {} ranks needs about {} memory mappings and vm.max_map_count is {}; allowed: "
      "raise it (sudo sysctl -w vm.max_map_count={}) or at most {} ranks",
      ranks, need, limit, std::max(need, 1L << 20),
      std::max(0L, (limit - kMappingsProcess) / kMappingsPerRank)));
}

std::size_t shared_block_bytes(long n, int nb, int p, int q) {
  const long b = std::max(1, nb);
  const long panels = (n + b - 1) / b;
  const long rows = (panels + p - 1) / p * b;
  const long cols = (panels + q - 1) / q * b;
  const double largest = 8.0 * static_cast<double>(b) * static_cast<double>(std::max(rows, cols));
  std::size_t block = std::size_t{64} << 20;
  while (static_cast<double>(block) < largest && block < (std::size_t{1} << 40)) block *= 2;
  return block;
}

long max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  long v = 0;
  return (in >> v) ? v : 0;
}

}  // namespace hplx::app
