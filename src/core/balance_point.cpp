#include "core/balance_point.hpp"

#include <algorithm>

namespace hplx {

std::optional<BalancePoint> compute_balance_point(const std::vector<BalanceSample>& iterations) {
  const long n = static_cast<long>(iterations.size());
  // Walk back from the end while the update stays below FACT + RS: where the
  // walk stops, the suffix with the property begins.
  long b = n;
  while (b > 0) {
    const BalanceSample& it = iterations[b - 1];
    if (!(it.update_s < it.fact_s + it.rs_comm_s + it.rs_copy_s)) break;
    --b;
  }
  if (b == n) return std::nullopt;
  double before = 0, total = 0;
  for (long k = 0; k < n; ++k) {
    total += iterations[k].flops;
    if (k < b) before += iterations[k].flops;
  }
  BalancePoint point;
  point.iteration = b;
  point.percent_iterations = 100.0 * static_cast<double>(b) / static_cast<double>(n);
  point.percent_flops = total > 0 ? 100.0 * before / total : 0.0;
  point.definition = kBalancePointDefinition;
  return point;
}

}  // namespace hplx
