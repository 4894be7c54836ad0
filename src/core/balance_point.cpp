#include "core/balance_point.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace hplx {

BalanceTimes balance_times(const BalanceSample& it) {
  const bool device = it.device_update_s > 0 || it.device_swap_s > 0 || it.device_fact_s > 0;
  if (!device) return {it.update_s, it.fact_s, it.rs_comm_s + it.rs_copy_s};
  BalanceTimes t;
  t.update_s = it.device_update_s;
  t.rs_s = it.rs_comm_s + (it.device_swap_s > 0 ? it.device_swap_s : it.rs_copy_s);
  t.fact_s = it.device_fact_s > 0
                 ? it.device_fact_s
                 : std::max(it.fact_s, it.iter_s - it.device_update_s - it.device_swap_s);
  return t;
}

std::optional<BalancePoint> compute_balance_point(const std::vector<BalanceSample>& iterations) {
  const long n = static_cast<long>(iterations.size());
  // Walk back from the end while the update stays below FACT + RS: where the
  // walk stops, the suffix with the property begins.
  long b = n;
  while (b > 0) {
    const BalanceTimes t = balance_times(iterations[b - 1]);
    if (!(t.update_s < t.fact_s + t.rs_s)) break;
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

std::optional<BalancePoint> balance_point_of_iterations(const nlohmann::json& iterations, long n) {
  std::vector<BalanceSample> samples;
  if (!iterations.is_array()) return std::nullopt;
  for (const nlohmann::json& row : iterations) {
    const auto time = [&](const char* key) {
      const auto v = row.find(key);
      return v != row.end() && v->is_number() ? v->get<double>() : 0.0;
    };
    const long jb = row.value("jb", 0L);
    samples.push_back({.fact_s = time("fact_s"),
                       .rs_comm_s = time("rs_comm_s"),
                       .rs_copy_s = time("rs_copy_s"),
                       .update_s = time("update_s"),
                       .iter_s = time("iter_s"),
                       .device_update_s = time("device_update_s"),
                       .device_swap_s = time("device_swap_s"),
                       .device_fact_s = time("device_fact_s"),
                       .flops = jb > 0 ? panel_flops(n, row.value("j", 0L), jb) : time("flops")});
  }
  return compute_balance_point(samples);
}

}  // namespace hplx
