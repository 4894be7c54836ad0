#include "report/tune_page.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/charts.hpp"
#include "report/svg.hpp"

namespace hplx::report {
namespace {

using nlohmann::json;

constexpr const char* kSimulatedColour = "#d62728";

struct Point {
  long n = 0;
  int nb = 0, p = 1, q = 1, rpn = 1, threads = 0;
  double model = 0, simulated = 0;  // simulated: 0 unless it ran
  std::string grid() const {
    std::string g = fmt::format("{}x{}", p, q);
    if (threads > 0) g += fmt::format(" ({}x{}t)", rpn, threads);
    return g;
  }
};

double number(const json& c, const char* key, const std::string& where) {
  const auto it = c.find(key);
  if (it == c.end() || !it->is_number())
    throw UsageError(fmt::format("{}: \"{}\" is missing or not a number", where, key));
  return it->get<double>();
}

std::vector<Point> points(const json& list, const std::string& where) {
  std::vector<Point> out;
  if (!list.is_array()) throw UsageError(fmt::format("{}: not an array", where));
  for (size_t i = 0; i < list.size(); ++i) {
    const json& c = list[i];
    const std::string at = fmt::format("{}[{}]", where, i);
    if (!c.is_object()) throw UsageError(fmt::format("{}: not an object", at));
    Point p;
    p.n = static_cast<long>(number(c, "n", at));
    p.nb = static_cast<int>(number(c, "nb", at));
    p.p = static_cast<int>(number(c, "p", at));
    p.q = static_cast<int>(number(c, "q", at));
    p.rpn = static_cast<int>(number(c, "ranks_per_node", at));
    p.threads = static_cast<int>(number(c, "threads", at));
    p.model = number(c, "model_gflops", at);
    if (c.contains("estimate_gflops")) p.simulated = number(c, "estimate_gflops", at);
    out.push_back(p);
  }
  return out;
}

LinearScale gflops_axis(const std::vector<Point>& all, const Frame& f, std::vector<double>& ticks) {
  double top = 0;
  for (const Point& p : all) top = std::max({top, p.model, p.simulated});
  ticks = nice_ticks(0, (top > 0 ? top : 1) * 1.04, 6);
  return {0, ticks.back(), f.y0(), f.y1()};
}

// Gflops against NB: the model's line per grid (the 8 best grids), the
// simulated candidates as larger red dots.
std::string vs_nb_chart(const std::vector<Point>& cands, const std::vector<Point>& sims, int id) {
  std::map<std::string, std::map<int, double>> by_grid;
  std::map<std::string, double> best;
  for (const Point& p : cands) {
    double& g = by_grid[p.grid()][p.nb];
    g = std::max(g, p.model);
    best[p.grid()] = std::max(best[p.grid()], p.model);
  }
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [g, b] : best) order.emplace_back(-b, g);
  std::sort(order.begin(), order.end());
  if (order.size() > 8) order.resize(8);
  int lo = 1 << 30, hi = 0;
  for (const Point& p : cands) lo = std::min(lo, p.nb), hi = std::max(hi, p.nb);
  const Frame f;
  SvgWriter svg(fmt::format("tune-vs-nb-{}", id), f,
                "Predicted Gflops against NB, one line per grid; simulated: red dots");
  std::vector<double> yt;
  std::vector<Point> all = cands;
  all.insert(all.end(), sims.begin(), sims.end());
  const LinearScale y = gflops_axis(all, f, yt);
  const double pad = std::max(1.0, (hi - lo) * 0.04);
  const LinearScale x{lo - pad, hi + pad, f.x0(), f.x1()};
  std::vector<double> xt;
  for (double t : nice_ticks(lo, hi, 8))
    if (t >= x.d0 && t <= x.d1) xt.push_back(t);
  svg.axes(f, x, xt, y, yt, "NB", "Gflops");
  std::vector<SvgWriter::LegendEntry> legend;
  for (size_t s = 0; s < order.size(); ++s) {
    const std::string& g = order[s].second;
    std::vector<std::pair<double, double>> line;
    for (const auto& [nb, gf] : by_grid[g]) {
      line.emplace_back(x(nb), y(gf));
      svg.circle(x(nb), y(gf), 3, series_colour(s),
                 fmt::format("{} NB={}: model {} Gflops", g, nb, format_number(gf)));
    }
    svg.path(line, series_colour(s), 1.5);
    legend.emplace_back(g, series_colour(s));
  }
  for (const Point& p : sims)
    svg.circle(
        x(p.nb), y(p.simulated), 6, kSimulatedColour,
        fmt::format("{} NB={}: simulated {} Gflops", p.grid(), p.nb, format_number(p.simulated)));
  legend.emplace_back("simulated", kSimulatedColour);
  svg.legend(f, legend);
  return svg.finish();
}

// Gflops against the grid: the best over NB at each grid, the grids in
// order of P (then ranks per node).
std::string vs_grid_chart(const std::vector<Point>& cands, const std::vector<Point>& sims, int id) {
  std::map<std::tuple<int, int, int, int>, std::pair<double, double>> best;  // model, simulated
  for (const Point& p : cands) {
    auto& b = best[{p.rpn, p.p, p.q, p.threads}];
    b.first = std::max(b.first, p.model);
  }
  for (const Point& p : sims) {
    auto& b = best[{p.rpn, p.p, p.q, p.threads}];
    b.second = std::max(b.second, p.simulated);
  }
  const Frame f;
  SvgWriter svg(fmt::format("tune-vs-grid-{}", id), f,
                "Predicted Gflops against P x Q, the best over NB; simulated: red dots");
  std::vector<double> yt;
  std::vector<Point> all = cands;
  all.insert(all.end(), sims.begin(), sims.end());
  const LinearScale y = gflops_axis(all, f, yt);
  const LinearScale x{-0.5, static_cast<double>(best.size()) - 0.5, f.x0(), f.x1()};
  svg.axes(f, x, {}, y, yt, "P x Q", "Gflops");
  std::vector<std::pair<double, double>> line;
  double i = 0;
  for (const auto& [key, b] : best) {
    const auto [rpn, p, q, threads] = key;
    Point label;
    label.p = p;
    label.q = q;
    label.rpn = rpn;
    label.threads = threads;
    svg.text(x(i), f.y0() + 16, label.grid(), "middle");
    line.emplace_back(x(i), y(b.first));
    svg.circle(x(i), y(b.first), 3, series_colour(0),
               fmt::format("{}: model {} Gflops", label.grid(), format_number(b.first)));
    if (b.second > 0)
      svg.circle(x(i), y(b.second), 6, kSimulatedColour,
                 fmt::format("{}: simulated {} Gflops", label.grid(), format_number(b.second)));
    i += 1;
  }
  svg.path(line, series_colour(0), 1.5);
  svg.legend(f, {{"model (best NB)", series_colour(0)}, {"simulated", kSimulatedColour}});
  return svg.finish();
}

}  // namespace

bool is_tune_record(const json& record) {
  const auto c = record.find("command");
  return c != record.end() && c->is_string() && c->get<std::string>() == "tune";
}

std::string tune_section(const RunFile& file, int id) {
  const json& r = file.record;
  const auto need = [&](const char* key) -> const json& {
    const auto it = r.find(key);
    if (it == r.end()) throw UsageError(fmt::format("{}: no \"{}\"", file.path, key));
    return *it;
  };
  const std::vector<Point> cands = points(need("candidates"), file.path + ": candidates");
  const std::vector<Point> sims = points(need("simulated"), file.path + ": simulated");
  const std::vector<Point> chosen = points(json::array({need("chosen")}), file.path + ": chosen");
  const Point& c = chosen.front();
  std::ostringstream out;
  out << fmt::format("<section id=\"tune-{}\">\n<h2>hplx tune: {} node(s) of {}</h2>\n", id,
                     r.contains("options") ? r["options"].value("nodes", 0) : 0,
                     escape_html(r.value("spec", std::string("?"))));
  out << fmt::format(
      "<p>Chosen: N={} NB={} P&#215;Q={}&#215;{}, {} rank(s) per node: {} Gflops ({}). {} "
      "candidates ranked by the model, {} simulated.</p>\n",
      c.n, c.nb, c.p, c.q, c.rpn, format_number(c.simulated > 0 ? c.simulated : c.model),
      c.simulated > 0 ? "simulated" : "the model's", cands.size(), sims.size());
  if (const auto notes = r.find("notes");
      notes != r.end() && notes->is_array() && !notes->empty()) {
    out << "<ul>\n";
    for (const auto& n : *notes)
      if (n.is_string()) out << "<li>" << escape_html(n.get<std::string>()) << "</li>\n";
    out << "</ul>\n";
  }
  out << "<h3>Predicted Gflops against NB</h3>\n" << vs_nb_chart(cands, sims, id);
  out << "<h3>Predicted Gflops against P&#215;Q</h3>\n" << vs_grid_chart(cands, sims, id);
  if (!sims.empty()) {
    out << "<table>\n<tr><th>N</th><th>NB</th><th>P&#215;Q</th><th>model Gflops</th>"
           "<th>simulated Gflops</th></tr>\n";
    for (const Point& p : sims)
      out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", p.n,
                         p.nb, escape_html(p.grid()), format_number(p.model),
                         format_number(p.simulated));
    out << "</table>\n";
  }
  out << "</section>\n";
  return out.str();
}

}  // namespace hplx::report
