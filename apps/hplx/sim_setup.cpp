#include "sim_setup.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "lu/iteration_record.hpp"

namespace hplx::app {
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
