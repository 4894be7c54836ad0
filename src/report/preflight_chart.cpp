#include "report/preflight_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "report/svg.hpp"

namespace hplx::report {
namespace {

using nlohmann::json;

struct Figure {
  const char* key;   // in each rank's object
  const char* kind;  // as "slow" names it
  const char* title;
  const char* unit;
};
constexpr Figure kFigures[] = {
    {"gemm_gflops", "DGEMM", "DGEMM at the update's shape", "Gflop/s"},
    {"memory_gbs", "memory bandwidth", "Memory bandwidth", "GB/s"},
    {"link_gbs", "link", "Links to the grid neighbours (a panel)", "GB/s"},
};

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// One chart: a dot per rank; `named` are the ranks the preflight named
// for this figure.
std::string figure_chart(const json& ranks, const Figure& f, const std::set<long>& named,
                         double threshold, const std::string& id) {
  std::vector<double> values;
  for (const json& r : ranks)
    if (r.value(f.key, 0.0) > 0) values.push_back(r.value(f.key, 0.0));
  if (values.empty()) return "";
  const double median = median_of(values);
  const double top = *std::max_element(values.begin(), values.end()) * 1.1;
  Frame frame;
  frame.height = 260;
  const auto n = static_cast<double>(ranks.size());
  const LinearScale x{-0.5, n - 0.5, frame.x0(), frame.x1()};
  const std::vector<double> yticks = nice_ticks(0, top);
  const LinearScale y{0, yticks.back(), frame.y0(), frame.y1()};
  SvgWriter svg(id, frame, fmt::format("{} per rank", f.title));
  // Hosts as shaded bands, every other one.
  std::string host;
  int band = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string h = ranks[i].value("host", std::string());
    if (h != host) host = h, ++band;
    if (band % 2)
      svg.rect(x(static_cast<double>(i) - 0.5), frame.y1(), x(1) - x(0), frame.y0() - frame.y1(),
               "#f0f0f0", h);
  }
  std::vector<double> xticks;
  const double step = std::max(1.0, std::ceil(n / 16));
  for (double t = 0; t < n; t += step) xticks.push_back(t);
  svg.axes(frame, x, xticks, y, yticks, "rank (hosts shaded in turn)", f.unit);
  svg.line(frame.x0(), y(median), frame.x1(), y(median), "#555", 1, "", "median");
  svg.line(frame.x0(), y(median * (1 - threshold)), frame.x1(), y(median * (1 - threshold)), "#b00",
           1, "4 3", "threshold");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const json& r = ranks[i];
    const double v = r.value(f.key, 0.0);
    if (v <= 0) continue;
    const long rank = r.value("rank", -1L);
    const bool slow = named.count(rank) > 0;
    svg.circle(x(static_cast<double>(i)), y(v), slow ? 5 : 3, slow ? "#b00" : "#3465a4",
               fmt::format("rank {} on {}: {} {}{}", rank, r.value("host", std::string("?")),
                           format_number(v), f.unit, slow ? " (named slow)" : ""));
  }
  svg.legend(frame, {{"a rank", "#3465a4"},
                     {"named slow", "#b00"},
                     {"median", "#555", true},
                     {fmt::format("{:.0f}% below it", 100 * threshold), "#b00", true, "4 3"}});
  return svg.finish();
}

}  // namespace

std::string preflight_section(const json& record, int id) {
  const auto it = record.find("preflight");
  if (it == record.end() || !it->is_object() || !it->contains("ranks")) return "";
  const json& p = *it;
  const json& ranks = p["ranks"];
  const double threshold = p.value("threshold", 0.10);
  std::map<std::string, std::set<long>> named;  // by kind
  std::ostringstream list;
  for (const json& s : p.value("slow", json::array())) {
    named[s.value("kind", std::string())].insert(s.value("rank", -1L));
    const std::string kind = s.value("kind", std::string());
    const char* unit = kind == "DGEMM" ? "Gflop/s" : "GB/s";
    list << fmt::format("<li>rank {} on {}: {} {} {}, {:.0f}% below the other {}' median {}</li>\n",
                        s.value("rank", -1L), escape_html(s.value("host", std::string("?"))),
                        escape_html(kind), format_number(s.value("value", 0.0)), unit,
                        100 * s.value("below", 0.0), s.value("of_host", false) ? "hosts" : "ranks",
                        format_number(s.value("others_median", 0.0)));
  }
  std::ostringstream out;
  out << fmt::format("<section id=\"preflight-{}\">\n<h2>Preflight</h2>\n", id);
  out << fmt::format(
      "<p class=\"caption\">Before the run: {} ranks on {} host{} measured in {} s; a rank "
      "more than {:.0f}% below the other ranks' median of a figure is named.",
      ranks.size(), p.value("hosts", 0), p.value("hosts", 0) == 1 ? "" : "s",
      format_number(p.value("seconds", 0.0), 3), 100 * threshold);
  const std::string names = list.str();
  out << (names.empty() ? " None was.</p>\n"
                        : " Named:</p>\n<ul class=\"slow\">\n" + names + "</ul>\n");
  for (std::size_t k = 0; k < std::size(kFigures); ++k) {
    const Figure& f = kFigures[k];
    const std::string chart =
        figure_chart(ranks, f, named[f.kind], threshold, fmt::format("preflight-{}-{}", id, k));
    if (chart.empty()) continue;
    out << "<h3>" << f.title << "</h3>\n" << chart;
  }
  out << "</section>\n";
  return out.str();
}

}  // namespace hplx::report
