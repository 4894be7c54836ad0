#include "report/hpl_mxp_page.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/charts.hpp"
#include "report/ranks_table.hpp"
#include "report/svg.hpp"

namespace hplx::report {
namespace {

using nlohmann::json;

struct Part {
  const char* key;  // in the record
  const char* label;
  const char* colour;
};

// The timed phases of the score, in the order they run.
const Part kPhases[] = {{"convert", "convert to FP32", "#bab0ac"},
                        {"factor", "FP32 LU", "#4e79a7"},
                        {"solve", "FP32 solves", "#f28e2b"},
                        {"refine", "GMRES-IR refinement", "#59a14f"}};
// The phases of one panel of the factorization (lu_nopiv's PanelTimes).
const Part kPanelParts[] = {{"fact_s", "FACT (diagonal block, L)", "#4e79a7"},
                            {"bcast_s", "LBCAST (panel along the row)", "#f28e2b"},
                            {"update_s", "UPDATE (U, SGEMM)", "#59a14f"}};

double number_at(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number())
    throw UsageError(fmt::format("{}: \"{}\" is missing or not a number", where, key));
  return it->get<double>();
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return format_number(v.get<double>(), 6);
  if (v.is_null()) return "none";
  return v.dump();
}

std::string field(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? std::string() : text_of(*it);
}

std::string verdict(bool passed) {
  return passed ? "<span class=\"passed\">PASSED</span>" : "<span class=\"failed\">FAILED</span>";
}

void row(std::ostringstream& out, const std::string& key, const std::string& value_html) {
  if (!value_html.empty())
    out << "<tr><td>" << escape_html(key) << "</td><td>" << value_html << "</td></tr>\n";
}

std::string phases_chart(const json& phases, int id) {
  Frame f;
  f.height = 150;
  f.top = 58;
  f.bottom = 48;
  double total = 0;
  for (const Part& p : kPhases) total += phases.value(p.key, 0.0);
  if (!(total > 0)) return "";
  SvgWriter svg(fmt::format("hplmxp-phases-{}", id), f, "The timed phases of the score");
  const auto ticks = nice_ticks(0, total, 6);
  const LinearScale x{0, ticks.back(), f.x0(), f.x1()};
  const LinearScale y{0, 1, f.y0(), f.y1()};
  svg.axes(f, x, ticks, y, {}, "seconds (maximum over the ranks)", "");
  double at = 0;
  std::vector<SvgWriter::LegendEntry> legend;
  for (const Part& p : kPhases) {
    const double s = phases.value(p.key, 0.0);
    legend.push_back({p.label, p.colour});
    if (s <= 0) continue;
    svg.rect(x(at), y(0.85), x(at + s) - x(at), y(0.15) - y(0.85), p.colour,
             fmt::format("{}: {} s ({:.1f}%)", p.label, format_number(s), 100 * s / total));
    at += s;
  }
  svg.legend(f, legend);
  return svg.finish();
}

std::string panels_chart(const json& panels, long n, int id, const std::string& where) {
  if (!panels.is_array() || panels.empty()) return "";
  const long count = static_cast<long>(panels.size());
  const long group = std::max(1L, (count + 119) / 120);  // at most 120 bars
  struct Bar {
    long first = 0, last = 0;
    double parts[3] = {0, 0, 0};
  };
  std::vector<Bar> bars;
  double ymax = 0;
  for (long s = 0; s < count; s += group) {
    Bar b;
    b.first = s;
    b.last = std::min(count, s + group);
    for (long k = b.first; k < b.last; ++k) {
      const json& p = panels[static_cast<size_t>(k)];
      const std::string w = fmt::format("{}.panels[{}]", where, k);
      if (!p.is_object()) throw UsageError(w + ": not an object");
      for (int c = 0; c < 3; ++c) b.parts[c] += number_at(p, kPanelParts[c].key, w);
    }
    double stack = 0;
    for (double& v : b.parts) stack += (v /= static_cast<double>(b.last - b.first));
    ymax = std::max(ymax, stack);
    bars.push_back(b);
  }
  if (!(ymax > 0)) ymax = 1e-3;
  const double unit = ymax < 1.0 ? 1e3 : 1.0;
  const Frame f;
  std::string title = fmt::format("FP32 LU time per panel, N={}", n);
  if (group > 1) title += fmt::format(" (each bar: mean of {} panels)", group);
  SvgWriter svg(fmt::format("hplmxp-panels-{}", id), f, title);
  const LinearScale x{0, static_cast<double>(count), f.x0(), f.x1()};
  const auto yticks = nice_ticks(0, ymax * unit, 6);
  const LinearScale y{0, yticks.back(), f.y0(), f.y1()};
  std::vector<double> xticks;
  for (double t : nice_ticks(0, static_cast<double>(count), 10))
    if (t <= static_cast<double>(count)) xticks.push_back(t);
  svg.axes(f, x, xticks, y, yticks, group == 1 ? "panel" : fmt::format("panel (bars of {})", group),
           fmt::format("time per panel ({})", unit == 1e3 ? "ms" : "s"));
  for (const Bar& b : bars) {
    const double left = x(static_cast<double>(b.first));
    const double width = (x(static_cast<double>(b.last)) - left) * 0.86;
    std::string tip = b.last - b.first == 1
                          ? fmt::format("panel {}", b.first)
                          : fmt::format("panels {}-{} (mean)", b.first, b.last - 1);
    for (int c = 0; c < 3; ++c)
      tip += fmt::format("\n{}: {} ms", kPanelParts[c].label, format_number(b.parts[c] * 1e3));
    double base = 0;
    for (int c = 0; c < 3; ++c) {
      const double v = b.parts[c] * unit;
      if (v <= 0) continue;
      svg.rect(left, y(base + v), width, y(base) - y(base + v), kPanelParts[c].colour, tip);
      base += v;
    }
  }
  std::vector<SvgWriter::LegendEntry> legend;
  for (const Part& p : kPanelParts) legend.push_back({p.label, p.colour});
  svg.legend(f, legend);
  return svg.finish();
}

// log10 of the finite positive values, with their x positions.
std::vector<std::pair<double, double>> log_points(const json& values) {
  std::vector<std::pair<double, double>> pts;
  if (!values.is_array()) return pts;
  for (size_t k = 0; k < values.size(); ++k)
    if (values[k].is_number() && values[k].get<double>() > 0)
      pts.emplace_back(static_cast<double>(k), std::log10(values[k].get<double>()));
  return pts;
}

std::string refinement_chart(const json& refinement, double threshold, int id) {
  const auto checks = log_points(refinement.value("check_per_cycle", json::array()));
  const auto estimates = log_points(refinement.value("estimate_per_iteration", json::array()));
  if (checks.empty() && estimates.empty()) return "";
  double lo = threshold > 0 ? std::log10(threshold) : 0, hi = lo;
  double xmax = 1;
  for (const auto* s : {&checks, &estimates})
    for (const auto& [k, v] : *s) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      xmax = std::max(xmax, k + 1);
    }
  lo = std::floor(lo);
  hi = std::ceil(hi);
  if (hi <= lo) hi = lo + 1;
  const Frame f;
  SvgWriter svg(fmt::format("hplmxp-refinement-{}", id), f,
                "The refinement: the check per restart cycle, GMRES's estimate per iteration");
  const LinearScale x{0, xmax, f.x0(), f.x1()};
  const LinearScale y{lo, hi, f.y0(), f.y1()};
  std::vector<double> xticks;
  for (double t : nice_ticks(0, xmax, 10))
    if (t <= xmax) xticks.push_back(t);
  std::vector<double> yticks;
  const double step = std::max(1.0, std::ceil((hi - lo) / 8));
  for (double v = lo; v <= hi + 1e-9; v += step) yticks.push_back(v);
  svg.axes(f, x, xticks, y, yticks, "GMRES iteration (estimates) / restart cycle (checks)",
           "log10 of the scaled residual");
  std::vector<std::pair<double, double>> line;
  for (const auto& [k, v] : estimates) line.emplace_back(x(k), y(v));
  if (!line.empty()) svg.path(line, "#4e79a7", 1.8, "", "estimate", "GMRES's estimate");
  for (const auto& [k, v] : checks)
    svg.circle(x(k), y(v), 5, "#e15759",
               fmt::format("check before cycle {}: {}", static_cast<long>(k),
                           format_number(std::pow(10.0, v))));
  if (threshold > 0) {
    const double ty = y(std::log10(threshold));
    svg.line(f.x0(), ty, f.x1(), ty, "#a3005e", 1.5, "6 4", "threshold");
    svg.text(f.x1() - 4, ty - 5, fmt::format("threshold {}", format_number(threshold)), "end",
             "note");
  }
  svg.legend(f, {{"estimate per GMRES iteration", "#4e79a7", true},
                 {"check per restart cycle", "#e15759"},
                 {"threshold", "#a3005e", true, "6 4"}});
  return svg.finish();
}

std::string test_section(const json& t, const RunFile& file, int index, int id) {
  const std::string where = fmt::format("{}: tests[{}]", file.path, index);
  if (!t.is_object()) throw UsageError(where + ": not an object");
  const long n = static_cast<long>(number_at(t, "n", where));
  const double score = number_at(t, "gflops", where);
  const double time_s = number_at(t, "time_s", where);
  const bool passed = t.value("passed", false);
  std::ostringstream out;
  out << fmt::format(
      "<section id=\"hplmxp-{}\">\n<h2>HPL-MxP test {}: N={} NB={} P&#215;Q={}&#215;{}: score {} "
      "Gflops in {} s, {}</h2>\n",
      id, id, n, escape_html(field(t, "nb")), escape_html(field(t, "p")),
      escape_html(field(t, "q")), format_number(score), format_number(time_s), verdict(passed));
  out << fmt::format("<p class=\"sub\">{}, test {} of the record</p>\n", escape_html(file.path),
                     index);
  const json phases = t.value("phases_s", json::object());
  out << "<h3>Where the time went</h3>\n" << phases_chart(phases, id);
  out << "<p class=\"caption\">The score's time: conversion to FP32, the FP32 LU without "
         "pivoting, the FP32 triangular solves and the FP64 GMRES-IR refinement (the generator "
         "is not timed).</p>\n";
  if (const std::string chart = panels_chart(t.value("panels", json::array()), n, id, where);
      !chart.empty()) {
    out << "<h3>The FP32 factorization, panel by panel</h3>\n" << chart;
    out << "<p class=\"caption\">Stacked: each phase of the panel, the maximum over the ranks, "
           "blocking waits included.</p>\n";
  }
  if (t.contains("iterations")) {  // the LU's per-iteration record, as hplx lu's
    const TestView v = test_view(t, file, index);
    if (const std::string chart = breakdown_chart(v, fmt::format("hplmxp-{}", id));
        !chart.empty()) {
      out << "<h3>The factorization's iterations, as hplx lu's</h3>\n" << chart;
      out << "<p class=\"caption\">The LU's record of each iteration (max over ranks): FACT, "
             "LBCAST, RS (U's solve and its broadcast down the process columns: no rows are "
             "swapped) and UPDATE by the host's clock; with look-ahead the phases overlap.";
      if (v.balance)
        out << fmt::format(
            " Balance point at iteration {} ({:.1f}% of the flops before it): right of it the "
            "update no longer hides FACT + RS.",
            v.balance->iteration, v.balance->percent_flops);
      out << "</p>\n";
    }
  }
  out << ranks_section(t);  // the factorization's slow rank, as hplx lu's
  const json refinement = t.value("refinement", json::object());
  const double threshold = t.value("threshold", 16.0);
  if (const std::string chart = refinement_chart(refinement, threshold, id); !chart.empty()) {
    out << "<h3>The refinement</h3>\n" << chart;
    out << "<p class=\"caption\">The check ||Ax-b||_oo/(||A||_oo ||x||_oo+||b||_oo)/(N eps) "
           "before each restart cycle and at the end (dots), GMRES's estimate of it after each "
           "iteration (line); the test passes below the threshold.</p>\n";
  }

  std::ostringstream params, results;
  params << "<table><tr><th colspan=\"2\">Parameters</th></tr>\n";
  for (const char* k : {"n", "nb", "p", "q", "pmap", "bcast", "restart", "max_iterations",
                        "threshold", "diagonal_scale"})
    row(params, k, escape_html(field(t, k)));
  params << "</table>\n";
  results << "<table><tr><th colspan=\"2\">Results</th></tr>\n";
  row(results, "score (Gflops)", format_number(score));
  if (const auto lu = t.find("lu_gflops"); lu != t.end() && lu->is_number())
    row(results, "LU only (Gflops)", format_number(lu->get<double>()));
  row(results, "time (s)", format_number(time_s));
  for (const Part& p : kPhases) row(results, std::string(p.label) + " (s)", field(phases, p.key));
  row(results, "generate (s, not timed)", field(phases, "generate"));
  row(results, "check", escape_html(field(t, "check")));
  row(results, "verdict", verdict(passed));
  row(results, "GMRES iterations", escape_html(field(refinement, "gmres_iterations")));
  row(results, "restart cycles", escape_html(field(refinement, "cycles")));
  if (t.value("bad_pivot", false)) row(results, "bad pivot", "a pivot was zero or not finite");
  results << "</table>\n";

  std::string compare;
  if (const auto c = t.find("compare_hpl"); c != t.end() && c->is_object()) {
    const std::string w = where + ".compare_hpl";
    const double hpl = number_at(*c, "gflops", w);
    std::ostringstream cmp;
    cmp << "<table id=\"hplmxp-compare-" << id
        << "\"><tr><th colspan=\"2\">Against HPL (hplx lu, same N, NB, grid)</th></tr>\n";
    row(cmp, "HPL variant", escape_html(field(*c, "variant")));
    row(cmp, "HPL Gflops", format_number(hpl));
    row(cmp, "HPL time (s)", format_number(number_at(*c, "time_s", w)));
    row(cmp, "HPL residual", escape_html(field(*c, "residual")));
    row(cmp, "HPL verdict", verdict(c->value("passed", false)));
    row(cmp, "speed-up (HPL-MxP score / HPL Gflops)",
        format_number(number_at(*c, "speedup", w)) + "&#215;");
    cmp << "</table>\n";
    compare = cmp.str();
  }
  out << "<div class=\"tables\">\n"
      << params.str() << results.str() << compare << "</div>\n</section>\n";
  return out.str();
}

}  // namespace

bool is_hpl_mxp_record(const json& record) {
  const auto c = record.find("command");
  return c != record.end() && c->is_string() && c->get<std::string>() == "hpl-mxp";
}

std::vector<const json*> hpl_mxp_tests(const json& record) {
  std::vector<const json*> tests;
  if (const auto t = record.find("tests"); t != record.end() && t->is_array()) {
    for (const json& e : *t) tests.push_back(&e);
  } else if (const auto r = record.find("result"); r != record.end()) {
    tests.push_back(&*r);
  }
  return tests;
}

std::string hpl_mxp_sections(const RunFile& file, int first_id) {
  std::string out;
  const auto tests = hpl_mxp_tests(file.record);
  for (size_t i = 0; i < tests.size(); ++i)
    out += test_section(*tests[i], file, static_cast<int>(i), first_id + static_cast<int>(i));
  return out;
}

}  // namespace hplx::report
