// A panel factorization's measured times by panel width (jb) and height
// (rows), as hplx_fact_probe prints them (bench/gpu/fact_probe.cpp), read
// at any width and height. Header-only: hplx sim's kernel models (device)
// and the analytic model (model, which links no MPI) read the same table
// the same way, so that `hplx tune`'s model ranking and its simulations
// charge device FACT alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hplx {

namespace fact_table_detail {
// The value at x of the piecewise-linear function through (xs[i], value(i)),
// its end segments extended; with one point, in proportion to x. `floor`:
// beyond the first point, never below value(0) x / xs[0].
template <class Value>
double piecewise(const std::vector<double>& xs, double x, Value value, bool floor) {
  const std::size_t n = xs.size();
  if (n == 1) return value(0) * x / xs[0];
  std::size_t i = 0;
  while (i + 2 < n && x > xs[i + 1]) ++i;
  const double v = value(i) + (value(i + 1) - value(i)) * (x - xs[i]) / (xs[i + 1] - xs[i]);
  return floor && x < xs[0] ? std::max(v, value(0) * x / xs[0]) : v;
}
}  // namespace fact_table_detail

// The time at (rows, width) of table t (by jb, then rows: t[i * rows.size()
// + r]; jb and rows ascending, non-empty). Between the measured points the
// time is linear in rows and in jb; beyond them the end segments go on in
// rows (never below the nearest measured time in proportion to rows) and
// the time is in proportion to jb.
inline double fact_table_at(const std::vector<double>& jb, const std::vector<double>& rows,
                            const std::vector<double>& t, double at_rows, double at_jb) {
  using fact_table_detail::piecewise;
  const std::size_t nr = rows.size();
  auto by_rows = [&](std::size_t i) {
    return piecewise(
        rows, at_rows, [&](std::size_t j) { return t[i * nr + j]; }, true);
  };
  if (at_jb <= jb.front()) return by_rows(0) * at_jb / jb.front();
  if (at_jb >= jb.back()) return by_rows(jb.size() - 1) * at_jb / jb.back();
  return piecewise(jb, at_jb, by_rows, false);
}

}  // namespace hplx
