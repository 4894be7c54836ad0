#include "report/charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report/svg.hpp"

namespace hplx::report {
namespace {

constexpr const char* kIterationColour = "#222222";
constexpr const char* kPredictionColour = "#7b3294";
constexpr const char* kBalanceColour = "#d4007a";
constexpr const char* kMeasuredColour = "#1f77b4";

double component(const IterationRow& r, size_t c) {
  switch (c) {
    case 0:
      return r.fact_s;
    case 1:
      return r.bcast_s;
    case 2:
      return r.rs_comm_s;
    case 3:
      return r.rs_copy_s;
    case 4:
      return r.update_s;
    default:
      return r.wait_s;
  }
}

std::string ms(double seconds) {
  return format_number(seconds * 1e3) + " ms";
}

std::string balance_label(const BalancePoint& b) {
  return fmt::format("balance point: iteration {} ({:.1f}% of iterations, {:.1f}% of flops)",
                     b.iteration, b.percent_iterations, b.percent_flops);
}

// A vertical marker from the top margin down, its label in the margin above
// the plot (where no data is), on the side of the line that has room, and
// the rest of the run shaded.
void balance_marker(SvgWriter& svg, const Frame& f, double px, const std::string& label) {
  svg.raw(
      fmt::format("<rect class=\"balance-region\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                  "height=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.07\"/>\n",
                  px, f.y1(), std::max(0.0, f.x1() - px), f.y0() - f.y1(), kBalanceColour));
  svg.line(px, f.y1() - 16, px, f.y0(), kBalanceColour, 2.5, "", "balance-point");
  const bool right_half = px > (f.x0() + f.x1()) / 2;
  svg.text(right_half ? px - 6 : px + 6, f.y1() - 6, label, right_half ? "end" : "start",
           "balance-label");
}

}  // namespace

const char* series_colour(size_t i) {
  static constexpr const char* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return palette[i % std::size(palette)];
}

const std::vector<Component>& breakdown_components() {
  static const std::vector<Component> c = {{"FACT", "#4e79a7"},    {"LBCAST", "#f28e2b"},
                                           {"RS comm", "#e15759"}, {"RS copy", "#ff9da7"},
                                           {"UPDATE", "#59a14f"},  {"WAIT", "#bab0ac"}};
  return c;
}

long iterations_per_bar(long n_iterations) {
  return std::max(1L, (n_iterations + kMaxBreakdownBars - 1) / kMaxBreakdownBars);
}

namespace {

// One bar of the breakdown: the mean of iterations [first, last).
struct BreakdownBar {
  long first, last;  // [first, last)
  std::vector<double> parts;
  double iter_s = 0, bcast_hidden_s = 0, rs_hidden_s = 0;
  double predicted_s = -1;
  double stack = 0;
};

// The bars and the tallest value any of them shows (stack, iteration or
// predicted time).
struct BreakdownBars {
  std::vector<BreakdownBar> bars;
  double ymax = 0;
};

// Predicted iteration times by iteration index.
std::map<long, double> predicted_times(const TestView& test) {
  std::map<long, double> predicted;
  if (test.prediction)
    for (const auto& p : test.prediction->iterations) predicted[p.k] = p.iter_s;
  return predicted;
}

// The bar of iterations [s, end): each component's, the iteration's and the
// hidden times' means, and the mean of the predictions it has.
BreakdownBar mean_bar(const std::vector<IterationRow>& its, long s, long end, size_t n_comps,
                      const std::map<long, double>& predicted) {
  BreakdownBar b{s, end, std::vector<double>(n_comps, 0.0)};
  int npred = 0;
  double pred = 0;
  for (long k = b.first; k < b.last; ++k) {
    for (size_t c = 0; c < n_comps; ++c) b.parts[c] += component(its[k], c);
    b.iter_s += its[k].iter_s;
    b.bcast_hidden_s += its[k].bcast_hidden_s;
    b.rs_hidden_s += its[k].rs_hidden_s;
    if (auto it = predicted.find(its[k].k); it != predicted.end()) {
      pred += it->second;
      ++npred;
    }
  }
  const double count = static_cast<double>(b.last - b.first);
  for (double& p : b.parts) b.stack += (p /= count);
  b.iter_s /= count;
  b.bcast_hidden_s /= count;
  b.rs_hidden_s /= count;
  if (npred > 0) b.predicted_s = pred / npred;
  return b;
}

// Groups the iterations `group` at a time into bars.
BreakdownBars make_bars(const TestView& test, long group, size_t n_comps) {
  const auto& its = test.iterations;
  const long n = static_cast<long>(its.size());
  const std::map<long, double> predicted = predicted_times(test);
  BreakdownBars out;
  for (long s = 0; s < n; s += group) {
    BreakdownBar b = mean_bar(its, s, std::min(n, s + group), n_comps, predicted);
    out.ymax = std::max({out.ymax, b.stack, b.iter_s, b.predicted_s});
    out.bars.push_back(std::move(b));
  }
  return out;
}

// What the breakdown's drawing steps share: the data, the scales and how
// values are shown (shares of the stack, or times in `unit`).
struct BreakdownPlot {
  const std::vector<IterationRow>& its;
  const std::vector<Component>& comps;
  const LinearScale& x;
  const LinearScale& y;
  bool shares;
  double unit;
};

// The tooltip of one bar: its iterations, each component's time, the
// iteration time, the hidden times and the prediction where there are any.
std::string bar_tip(const BreakdownPlot& p, const BreakdownBar& b) {
  const auto& its = p.its;
  const auto& comps = p.comps;
  std::string tip = b.last - b.first == 1
                        ? fmt::format("iteration {}", its[b.first].k)
                        : fmt::format("iterations {}-{} (mean)", its[b.first].k, its[b.last - 1].k);
  for (size_t c = 0; c < comps.size(); ++c)
    tip += fmt::format("\n{}: {}", comps[c].label, ms(b.parts[c]));
  tip += fmt::format("\niteration: {}", ms(b.iter_s));
  if (b.bcast_hidden_s > 0 || b.rs_hidden_s > 0)
    tip += fmt::format("\nhidden behind the update: LBCAST {}, RS {}", ms(b.bcast_hidden_s),
                       ms(b.rs_hidden_s));
  if (b.predicted_s >= 0) tip += fmt::format("\npredicted: {}", ms(b.predicted_s));
  return tip;
}

// Draws each bar as a stack of its components' rectangles.
void draw_bars(SvgWriter& svg, const BreakdownPlot& p, const std::vector<BreakdownBar>& bars) {
  const auto& comps = p.comps;
  const LinearScale& x = p.x;
  const LinearScale& y = p.y;
  for (const BreakdownBar& b : bars) {
    const double left = x(static_cast<double>(b.first));
    const double width = (x(static_cast<double>(b.last)) - left) * 0.86;
    std::string tip = bar_tip(p, b);
    // Shares: each bar's stack scaled to 100%.
    const double scale = p.shares ? (b.stack > 0 ? 100.0 / b.stack : 0.0) : p.unit;
    double base = 0;
    for (size_t c = 0; c < comps.size(); ++c) {
      const double v = b.parts[c] * scale;
      if (v <= 0) continue;
      svg.rect(left, y(base + v), width, y(base) - y(base + v), comps[c].colour, tip);
      base += v;
    }
  }
}

// Draws the measured and predicted iteration times through the bars'
// centres (times only, not shares); says whether a prediction was drawn.
bool draw_time_lines(SvgWriter& svg, const BreakdownPlot& p,
                     const std::vector<BreakdownBar>& bars) {
  std::vector<std::pair<double, double>> line, pline;
  for (const BreakdownBar& b : bars) {
    if (p.shares) break;
    const double cx = p.x((static_cast<double>(b.first) + static_cast<double>(b.last)) / 2);
    line.emplace_back(cx, p.y(b.iter_s * p.unit));
    if (b.predicted_s >= 0) pline.emplace_back(cx, p.y(b.predicted_s * p.unit));
  }
  if (!line.empty())
    svg.path(line, kIterationColour, 1.8, "", "iteration-time", "iteration time (wall clock)");
  if (!pline.empty())
    svg.path(pline, kPredictionColour, 2, "6 4", "prediction", "predicted iteration time");
  return !pline.empty();
}

// The legend: every component, then the lines that were drawn.
void draw_breakdown_legend(SvgWriter& svg, const Frame& f, const BreakdownPlot& p,
                           bool has_prediction) {
  std::vector<SvgWriter::LegendEntry> legend;
  for (const auto& c : p.comps) legend.push_back({c.label, c.colour});
  if (!p.shares) legend.push_back({"iteration", kIterationColour, true});
  if (has_prediction) legend.push_back({"predicted", kPredictionColour, true, "6 4"});
  svg.legend(f, legend);
}

}  // namespace

std::string breakdown_chart(const TestView& test, const std::string& id, bool shares) {
  const auto& its = test.iterations;
  if (its.empty()) return "";
  const long n = static_cast<long>(its.size());
  const long group = iterations_per_bar(n);
  const auto& comps = breakdown_components();
  const BreakdownBars made = make_bars(test, group, comps.size());
  const std::vector<BreakdownBar>& bars = made.bars;
  double ymax = made.ymax;
  if (!(ymax > 0)) ymax = 1e-3;
  // Milliseconds read better than 0.00x s; the data stays in seconds.
  const double unit = shares ? 1.0 : ymax < 1.0 ? 1e3 : 1.0;
  const std::string unit_name = unit == 1e3 ? "ms" : "s";

  const Frame f;
  std::string title = fmt::format("{} per iteration, N={} NB={}",
                                  shares ? "Share of each phase" : "Time", test.n, test.nb);
  if (group > 1) title += fmt::format(" (each bar: mean of {} iterations)", group);
  SvgWriter svg(fmt::format("{}-{}", shares ? "breakdown-share" : "breakdown", id), f, title);
  const LinearScale x{0, static_cast<double>(n), f.x0(), f.x1()};
  const auto yticks = shares ? nice_ticks(0, 100, 5) : nice_ticks(0, ymax * unit, 6);
  const LinearScale y{0, yticks.back(), f.y0(), f.y1()};
  std::vector<double> xticks;
  for (double t : nice_ticks(0, static_cast<double>(n), 10))
    if (t <= static_cast<double>(n)) xticks.push_back(t);
  svg.axes(f, x, xticks, y, yticks,
           group == 1 ? "iteration" : fmt::format("iteration (bars of {})", group),
           shares ? std::string("share of the phases' time (%)")
                  : fmt::format("time per iteration ({})", unit_name));

  const BreakdownPlot plot{its, comps, x, y, shares, unit};
  draw_bars(svg, plot, bars);
  const bool has_prediction = draw_time_lines(svg, plot, bars);
  draw_breakdown_legend(svg, f, plot, has_prediction);

  if (test.balance)
    balance_marker(svg, f, x(static_cast<double>(test.balance->iteration)),
                   balance_label(*test.balance));
  return svg.finish();
}

std::string gflops_chart(const TestView& test, int id) {
  const auto& its = test.iterations;
  if (its.empty()) return "";
  const long n = static_cast<long>(its.size());
  // A few hundred points draw the same curve as ten thousand.
  const long step = std::max(1L, n / 600);
  std::vector<std::pair<double, double>> pts;
  double tmax = 0, gmax = 0;
  // Leading iterations that completed no flops yet (with look-ahead the
  // first update lands in iteration 1) have no rate to show.
  long first = 0;
  while (first < n - 1 && its[first].gflops <= 0) ++first;
  for (long k = first; k < n; k += step) pts.emplace_back(its[k].elapsed_s, its[k].gflops);
  if (pts.back().first != its.back().elapsed_s)
    pts.emplace_back(its.back().elapsed_s, its.back().gflops);
  for (const auto& p : pts) {
    tmax = std::max(tmax, p.first);
    gmax = std::max(gmax, p.second);
  }
  gmax = std::max(gmax, test.gflops);
  const double predicted =
      test.prediction && test.prediction->gflops ? *test.prediction->gflops : -1;
  gmax = std::max(gmax, predicted);
  if (!(gmax > 0)) gmax = 1;
  if (!(tmax > 0)) tmax = 1;

  const Frame f;
  SvgWriter svg(fmt::format("gflops-{}", id), f,
                fmt::format("Running Gflops, N={} NB={}", test.n, test.nb));
  const auto xticks = nice_ticks(0, tmax, 10);
  const auto yticks = nice_ticks(0, gmax * 1.04, 6);
  const LinearScale x{0, xticks.back(), f.x0(), f.x1()};
  const LinearScale y{0, yticks.back(), f.y0(), f.y1()};
  svg.axes(f, x, xticks, y, yticks, "time since the start of the factorization (s)",
           "Gflops so far");

  std::vector<std::pair<double, double>> px;
  for (const auto& p : pts) px.emplace_back(x(p.first), y(p.second));
  svg.path(px, kMeasuredColour, 2, "", "running-gflops", "running Gflops (flops so far / time)");
  std::vector<SvgWriter::LegendEntry> legend = {{"running Gflops", kMeasuredColour, true}};
  if (test.gflops > 0) {
    svg.line(f.x0(), y(test.gflops), f.x1(), y(test.gflops), "#444", 1.2, "2 3", "final-gflops");
    legend.push_back({fmt::format("result: {} Gflops (with the solve)", format_number(test.gflops)),
                      "#444", true, "2 3"});
  }
  if (predicted > 0) {
    svg.line(f.x0(), y(predicted), f.x1(), y(predicted), kPredictionColour, 2, "6 4", "prediction");
    legend.push_back({fmt::format("predicted: {} Gflops", format_number(predicted)),
                      kPredictionColour, true, "6 4"});
  }
  svg.legend(f, legend);
  if (test.balance) {
    const long b = test.balance->iteration;
    const double t = b <= 0 ? 0.0 : its[std::min(b, n) - 1].elapsed_s;
    balance_marker(svg, f, x(t), fmt::format("balance point (iteration {})", b));
  }
  return svg.finish();
}

std::string scaling_chart(const std::vector<TestView>& tests, bool by_nb) {
  // series key -> x -> all Gflops measured there
  std::map<long, std::map<long, std::vector<double>>> series;
  double xmin = 1e300, xmax = -1e300, gmax = 0;
  for (const auto& t : tests) {
    const long key = by_nb ? t.n : t.nb;
    const long xv = by_nb ? t.nb : t.n;
    series[key][xv].push_back(t.gflops);
    xmin = std::min(xmin, static_cast<double>(xv));
    xmax = std::max(xmax, static_cast<double>(xv));
    gmax = std::max(gmax, t.gflops);
  }
  if (tests.empty()) return "";
  if (!(gmax > 0)) gmax = 1;
  if (xmax == xmin) {  // one value: centre it
    xmin -= 1;
    xmax += 1;
  }
  const Frame f;
  const std::string id = by_nb ? "gflops-vs-nb" : "gflops-vs-n";
  SvgWriter svg(id, f,
                by_nb ? "Gflops against NB, one line per N" : "Gflops against N, one line per NB");
  const auto xticks = nice_ticks(xmin, xmax, 8);
  const auto yticks = nice_ticks(0, gmax * 1.04, 6);
  const double pad = (xmax - xmin) * 0.03;
  const LinearScale x{xmin - pad, xmax + pad, f.x0(), f.x1()};
  const LinearScale y{0, yticks.back(), f.y0(), f.y1()};
  std::vector<double> inside;
  for (double t : xticks)
    if (t >= x.d0 && t <= x.d1) inside.push_back(t);
  svg.axes(f, x, inside, y, yticks, by_nb ? "NB" : "N", "Gflops");

  std::vector<SvgWriter::LegendEntry> legend;
  size_t s = 0;
  for (const auto& [key, points] : series) {
    const std::string colour = series_colour(s);
    const std::string name = fmt::format("{}={}", by_nb ? "N" : "NB", key);
    // The line joins the best run at each x; every run is a dot.
    std::vector<std::pair<double, double>> best;
    for (const auto& [xv, gs] : points) {
      best.emplace_back(x(static_cast<double>(xv)), y(*std::max_element(gs.begin(), gs.end())));
      for (double g : gs)
        svg.circle(
            x(static_cast<double>(xv)), y(g), 3.5, colour,
            fmt::format("{} {}={}: {} Gflops", name, by_nb ? "NB" : "N", xv, format_number(g)));
    }
    if (best.size() > 1) svg.path(best, colour, 1.8, "", "series", name);
    if (s < 12) legend.push_back({name, colour});
    ++s;
  }
  if (series.size() > 12)
    legend.push_back({fmt::format("(+{} more)", series.size() - 12), "#ffffff"});
  svg.legend(f, legend);
  return svg.finish();
}

std::string top500_chart(const std::vector<TestView>& tests, const Top500Marks& marks, int id) {
  std::map<long, std::vector<double>> by_n;
  for (const auto& t : tests)
    if (t.test->value("verdict", std::string()) == "PASSED") by_n[t.n].push_back(t.gflops);
  if (by_n.empty()) return "";
  double xmin = static_cast<double>(by_n.begin()->first);
  double xmax = static_cast<double>(by_n.rbegin()->first);
  if (xmax == xmin) {
    xmin -= 1;
    xmax += 1;
  }
  double gmax = marks.rmax_gflops;
  if (marks.rpeak_gflops) gmax = std::max(gmax, *marks.rpeak_gflops);
  if (!(gmax > 0)) gmax = 1;
  const Frame f;
  SvgWriter svg(fmt::format("top500-{}", id), f, "Gflops against N, with the TOP500 figures");
  const auto xticks = nice_ticks(xmin, xmax, 8);
  const auto yticks = nice_ticks(0, gmax * 1.04, 6);
  const double pad = (xmax - xmin) * 0.03;
  const LinearScale x{xmin - pad, xmax + pad, f.x0(), f.x1()};
  const LinearScale y{0, yticks.back(), f.y0(), f.y1()};
  std::vector<double> inside;
  for (double t : xticks)
    if (t >= x.d0 && t <= x.d1) inside.push_back(t);
  svg.axes(f, x, inside, y, yticks, "N", "Gflops");

  std::vector<SvgWriter::LegendEntry> legend = {{"passed tests", kMeasuredColour}};
  const double half = marks.rmax_gflops / 2;
  svg.line(f.x0(), y(half), f.x1(), y(half), "#444", 1.2, "6 4", "half-rmax");
  legend.push_back({fmt::format("Rmax / 2 = {} Gflops", format_number(half)), "#444", true, "6 4"});
  if (marks.rpeak_gflops) {
    svg.line(f.x0(), y(*marks.rpeak_gflops), f.x1(), y(*marks.rpeak_gflops), kPredictionColour, 1.5,
             "2 3", "rpeak");
    legend.push_back({fmt::format("Rpeak {} Gflops", format_number(*marks.rpeak_gflops)),
                      kPredictionColour, true, "2 3"});
  }
  if (marks.n_half) {
    const double px = x(static_cast<double>(*marks.n_half));
    svg.line(px, f.y1(), px, f.y0(), kBalanceColour, 2, "", "n-half");
    svg.text(px + 6, f.y1() + 14, fmt::format("N_half = {}", *marks.n_half), "start",
             "balance-label");
  }
  std::vector<std::pair<double, double>> best;
  for (const auto& [n, gs] : by_n) {
    best.emplace_back(x(static_cast<double>(n)), y(*std::max_element(gs.begin(), gs.end())));
    for (double g : gs)
      svg.circle(x(static_cast<double>(n)), y(g), 3.5, kMeasuredColour,
                 fmt::format("N={}: {} Gflops", n, format_number(g)));
  }
  if (best.size() > 1) svg.path(best, kMeasuredColour, 1.8, "", "series", "best at each N");
  // Rmax at Nmax: a ring around its dot.
  svg.raw(fmt::format(
      "<circle class=\"rmax\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"8\" fill=\"none\" "
      "stroke=\"{}\" stroke-width=\"2\"><title>Rmax {} Gflops at Nmax {}</title></circle>\n",
      x(static_cast<double>(marks.nmax)), y(marks.rmax_gflops), kBalanceColour,
      format_number(marks.rmax_gflops), marks.nmax));
  legend.push_back(
      {fmt::format("Rmax {} Gflops at Nmax {}", format_number(marks.rmax_gflops), marks.nmax),
       kBalanceColour});
  svg.legend(f, legend);
  return svg.finish();
}

}  // namespace hplx::report
