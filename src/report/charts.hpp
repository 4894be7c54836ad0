// The report's charts, each an inline <svg> with a stable id so tests and
// users can find it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/run_record.hpp"

namespace hplx::report {

// At most this many bars in a breakdown chart; longer runs are grouped into
// consecutive iterations, each bar the mean of its group.
inline constexpr long kMaxBreakdownBars = 120;

// Iterations per bar for `n_iterations` (1 up to kMaxBreakdownBars).
long iterations_per_bar(long n_iterations);

// id "breakdown-<id>": per-iteration stacked times (FACT, LBCAST, RS comm,
// RS copy, UPDATE, WAIT), the iteration time as a line, the predicted
// iteration time dashed when the test has a prediction, and the balance
// point as a vertical line with its label. Empty string without iterations.
// With `shares`, id "breakdown-share-<id>": the same bars each scaled to
// 100% of their stack, no lines, so late small iterations read as well as
// early large ones and the shift from UPDATE to FACT + RS shows.
std::string breakdown_chart(const TestView& test, const std::string& id, bool shares = false);
inline std::string breakdown_chart(const TestView& test, int id, bool shares = false) {
  return breakdown_chart(test, std::to_string(id), shares);
}

// id "gflops-<id>": the running Gflops against elapsed time, the final
// measured (and predicted) Gflops as horizontal lines, the balance point.
// Empty string without iterations.
std::string gflops_chart(const TestView& test, int id);

// id "gflops-vs-n" (`by_nb` false: x = N, one series per NB) or
// "gflops-vs-nb" (x = NB, one series per N).
std::string scaling_chart(const std::vector<TestView>& tests, bool by_nb);

// The TOP500 figures of one record ("top500", core/top500.hpp) drawn over
// its passed tests.
struct Top500Marks {
  double rmax_gflops = 0;
  long nmax = 0;
  std::optional<long> n_half;
  std::optional<double> rpeak_gflops;
};

// id "top500-<id>": Gflops against N of the tests that passed (a dot each,
// a line through the best at each N), Rmax at Nmax ringed, half of Rmax
// dashed, N_half as a vertical line, Rpeak dotted when known.
std::string top500_chart(const std::vector<TestView>& tests, const Top500Marks& marks, int id);

// The colour of the i-th series of a chart (ten, then again).
const char* series_colour(size_t i);

// Series colours, by component.
struct Component {
  const char* label;
  const char* colour;
};
const std::vector<Component>& breakdown_components();

}  // namespace hplx::report
