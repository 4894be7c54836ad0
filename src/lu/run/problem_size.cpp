#include "lu/run/problem_size.hpp"

#include "core/error.hpp"
#include "core/flops.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/fact/panel_factor_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace hplx::lu {

namespace {

// Wall time the timed DGEMM calls of the probe aim for: long enough for a
// stable rate, short enough not to be noticed before a one-minute run.
// No default problem beyond this order: 8 n^2 would overflow long long long
// before, and no machine holds it.
constexpr double kMaxOrder = 1e9;

std::string format_bytes(double bytes) {
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0, kTiB = kGiB * 1024.0;
  if (bytes >= kTiB) return fmt::format("{:.1f} TiB", bytes / kTiB);
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", bytes / kGiB);
  if (bytes >= kMiB) return fmt::format("{:.1f} MiB", bytes / kMiB);
  return fmt::format("{:.0f} KiB", bytes / kKiB);
}

std::string format_seconds(double s) {
  return s >= 10.0 ? fmt::format("{:.0f} s", s) : fmt::format("{:.1f} s", s);
}

std::string approx_seconds(double s) {
  if (s < 0.05) return "<0.1 s";
  return fmt::format("~{}", format_seconds(s));
}

// Largest n with lu_flops(n) <= flops (Newton from above on a convex,
// increasing function, then an integer correction).
double order_for_flops(double flops) {
  double n = std::cbrt(1.5 * flops);
  for (int i = 0; i < 100; ++i) {
    const double f = hpl_flops(n) - flops;
    const double df = 2.0 * n * n + 3.0 * n;
    if (df <= 0.0) break;
    const double step = f / df;
    n -= step;
    if (std::abs(step) < 0.5) break;
  }
  return std::max(0.0, std::floor(n));
}

long long per_rank_workspace_bytes(int nb) {
  // Panel and U buffers that do not shrink with more ranks: about
  // four nb x nb blocks (see lu_memory_bytes for the n-dependent part).
  return 4LL * nb * nb * static_cast<long long>(sizeof(double));
}

}  // namespace

double lu_flops(long n) {
  return hpl_flops(static_cast<double>(n));
}

long long default_problem_bytes(long n, int nb, int nprocs) {
  const double matrix = 8.0 * static_cast<double>(n) * static_cast<double>(n + 1);
  return static_cast<long long>(std::ceil(matrix * (1.0 + kWorkspaceFraction))) +
         static_cast<long long>(nprocs) * per_rank_workspace_bytes(nb);
}

DefaultProblem choose_default_problem(double aggregate_gflops, long long aggregate_available_bytes,
                                      int nprocs, double target_seconds, int nb) {
  if (!(aggregate_gflops > 0.0) || !std::isfinite(aggregate_gflops)) {
    throw UsageError(fmt::format("DGEMM rate {} Gflop/s must be positive", aggregate_gflops));
  }
  if (aggregate_available_bytes <= 0) {
    throw UsageError(
        fmt::format("available memory {} bytes must be positive", aggregate_available_bytes));
  }
  if (nprocs <= 0) throw UsageError(fmt::format("rank count {} must be positive", nprocs));
  if (!(target_seconds > 0.0) || !std::isfinite(target_seconds)) {
    throw UsageError(fmt::format("target time {} s must be positive", target_seconds));
  }
  if (nb <= 0) throw UsageError(fmt::format("block size NB {} must be positive", nb));

  const double rate = aggregate_gflops * 1e9 * kLuEfficiency;  // flop/s of the whole LU
  const double limit = kMemoryLimitFraction * static_cast<double>(aggregate_available_bytes);

  const double n_time = std::min(order_for_flops(rate * target_seconds), kMaxOrder);

  // Memory: a n^2 + a n + fixed <= limit with a = 8 (1 + workspace).
  const double a = 8.0 * (1.0 + kWorkspaceFraction);
  const double room = limit - static_cast<double>(nprocs) * per_rank_workspace_bytes(nb);
  double n_mem =
      room > 0.0 ? std::floor((-a + std::sqrt(a * a + 4.0 * a * room)) / (2.0 * a)) : 0.0;
  n_mem = std::min(n_mem, kMaxOrder);
  while (n_mem > 0.0 &&
         static_cast<double>(default_problem_bytes(static_cast<long>(n_mem), nb, nprocs)) > limit) {
    n_mem -= 1.0;  // rounding of the square root
  }

  const bool memory_bound = n_mem < n_time;
  long n = static_cast<long>(std::min(n_time, n_mem));
  n = (n / nb) * nb;
  const bool at_minimum = n < nb;
  n = std::max<long>(n, nb);

  DefaultProblem p;
  p.n = n;
  p.nb = nb;
  p.probe_gflops = aggregate_gflops;
  p.predicted_seconds = lu_flops(n) / rate;
  p.memory_needed_bytes = default_problem_bytes(n, nb, nprocs);
  p.memory_available_bytes = aggregate_available_bytes;

  std::string why;
  if (at_minimum) {
    why = fmt::format("N = {} (one block, the smallest problem)", n);
  } else if (memory_bound) {
    why = fmt::format("N = {} (capped by memory)", n);
  } else {
    why = fmt::format("N = {}", n);
  }
  const std::string ranks = nprocs > 1 ? fmt::format(" ({} ranks)", nprocs) : "";
  const std::string time = memory_bound || at_minimum
                               ? fmt::format("{} (target {})", approx_seconds(p.predicted_seconds),
                                             format_seconds(target_seconds))
                               : approx_seconds(p.predicted_seconds);
  const bool fits = static_cast<double>(p.memory_needed_bytes) <= limit;
  p.reason = fmt::format(
      "{}: DGEMM probe {:.1f} Gflop/s{} x {:.2f} efficiency -> {}; the matrix needs {} of {} "
      "available ({} {:.0f}%)",
      why, aggregate_gflops, ranks, kLuEfficiency, time, format_bytes(p.memory_needed_bytes),
      format_bytes(static_cast<double>(aggregate_available_bytes)),
      fits ? "limit" : "over the limit of", kMemoryLimitFraction * 100.0);
  return p;
}

long long lu_memory_bytes(long n, int nb, int nprow, int npcol) {
  if (nb <= 0 || nprow <= 0 || npcol <= 0) {
    throw UsageError(fmt::format("NB {} and grid {} x {} must be positive", nb, nprow, npcol));
  }
  if (n <= 0) return 0;
  // Process row 0 and process column 0 own the most rows and columns.
  // In long double (64-bit mantissa: exact for any count a long long holds):
  // N x N doubles overflow 64-bit integers from N of about 1e9 on.
  constexpr long long kMost = std::numeric_limits<long long>::max();
  if (n > std::numeric_limits<long>::max() - 1) return kMost;  // n + 1 columns
  using Wide = long double;
  const Wide mp = static_cast<Wide>(local_count(n, nb, 0, nprow));
  const Wide nq = static_cast<Wide>(local_count(n + 1, nb, 0, npcol));
  // U: in place with one process row; otherwise the row swaps' buffers.
  const Wide u = nprow > 1 ? static_cast<Wide>(SwapBuffers::reserved_doubles(1, nb, nprow)) * nq
                           : static_cast<Wide>(nb) * nq;
  // FACT on a device: its workspace's scratch.
  const Wide fact = static_cast<Wide>(
      DeviceFactWorkspace::scratch_doubles(local_count(n, nb, 0, nprow) + nb, nb));
  const Wide bytes = (mp * nq + (mp + nb) * nb * 3 + u + fact) * sizeof(double);
  return bytes < static_cast<Wide>(kMost) ? static_cast<long long>(bytes) : kMost;
}

long largest_fitting_n(long long bytes_per_rank, double fraction, int nb, int p, int q) {
  if (nb < 1 || p < 1 || q < 1 || !(fraction > 0) || bytes_per_rank <= 0) return 0;
  const double budget = fraction * static_cast<double>(bytes_per_rank);
  auto fits = [&](long blocks) {
    return static_cast<double>(lu_memory_bytes(blocks * nb, nb, p, q)) <= budget;
  };
  // The matrix alone bounds N: N^2 / (p q) doubles per rank.
  long hi = static_cast<long>(std::sqrt(budget / 8.0 * p * q) / nb) + 2;
  long lo = 0;  // fits (N = 0)
  while (lo + 1 < hi) {
    const long mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo * nb;
}

}  // namespace hplx::lu
