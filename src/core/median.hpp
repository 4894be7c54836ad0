// Medians the slow-node lines hold each rank against.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hplx {

// The median of `sorted` without one element of value `v` (which it
// holds): O(log n), so that every rank's "the others' median" over
// thousands of simulated ranks costs one sort. 0 when `sorted` holds v alone.
inline double median_without(const std::vector<double>& sorted, double v) {
  const std::size_t m = sorted.size() - 1;  // the others
  if (m == 0) return 0;
  const auto p =
      static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
  auto kth = [&](std::size_t k) { return sorted[k < p ? k : k + 1]; };
  return m % 2 ? kth(m / 2) : 0.5 * (kth(m / 2 - 1) + kth(m / 2));
}

// The median of `values`, those of value 0 (not measured) left out; 0 when
// none is left.
inline double median_of_measured(std::vector<double> values) {
  std::erase(values, 0.0);
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size();
  return m % 2 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
}

}  // namespace hplx
