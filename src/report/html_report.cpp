#include "report/html_report.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "report/charts.hpp"
#include "report/hpl_mxp_page.hpp"
#include "report/preflight_chart.hpp"
#include "report/ranks_table.hpp"
#include "report/svg.hpp"
#include "report/tune_page.hpp"

namespace hplx::report {
namespace {

using nlohmann::json;

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       max-width: 1000px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin: 36px 0 4px; padding-top: 12px; border-top: 1px solid #ccc; }
h3 { font-size: 15px; margin: 18px 0 4px; }
.sub { color: #666; margin-top: 0; }
.balance { font-weight: 600; color: #a3005e; }
.nobalance { color: #666; }
svg.chart { width: 100%; height: auto; display: block; margin: 6px 0 2px; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
svg text.axis { font-size: 13px; fill: #444; }
svg text.balance-label { font-size: 12.5px; font-weight: 600; fill: #a3005e; }
svg text.note { font-size: 12px; fill: #444; }
.caption { color: #555; font-size: 13px; margin: 0 0 12px; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.tables { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.tables table { flex: 1 1 300px; }
.passed { color: #2a7d2a; font-weight: 600; }
.failed { color: #b00; font-weight: 600; }
tr.slow td { color: #b00; font-weight: 600; }
footer { margin-top: 40px; color: #555; font-size: 13px; border-top: 1px solid #ccc; }
code { font-size: 12.5px; }
)";

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return format_number(v.get<double>(), 6);
  if (v.is_null()) return "none";
  if (v.is_array()) {
    std::string s;
    for (const auto& e : v) {
      if (!s.empty()) s += ' ';
      s += text_of(e);
    }
    return s;
  }
  std::string s;
  for (const auto& [k, e] : v.items()) {
    if (!s.empty()) s += ", ";
    s += k + "=" + text_of(e);
  }
  return s;
}

std::string field(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? std::string() : text_of(*it);
}

std::string verdict_html(const std::string& verdict) {
  const char* cls = verdict == "PASSED" ? "passed" : verdict == "FAILED" ? "failed" : "";
  return fmt::format("<span class=\"{}\">{}</span>", cls, escape_html(verdict));
}

struct Table {
  std::ostringstream out;
  explicit Table(const std::string& heading) {
    out << "<table><tr><th colspan=\"2\">" << escape_html(heading) << "</th></tr>\n";
  }
  void row(const std::string& key, const std::string& value_html) {
    out << "<tr><td>" << escape_html(key) << "</td><td>" << value_html << "</td></tr>\n";
  }
  void text(const std::string& key, const std::string& value) {
    if (!value.empty()) row(key, escape_html(value));
  }
  std::string finish() {
    out << "</table>\n";
    return out.str();
  }
};

std::string balance_sentence(const TestView& t) {
  if (t.balance) {
    return fmt::format(
        "<p class=\"balance\">Balance point: iteration {} ({:.1f}% of iterations, {:.1f}% of "
        "flops){}</p>\n",
        t.balance->iteration, t.balance->percent_iterations, t.balance->percent_flops,
        t.balance_recomputed ? " <span class=\"sub\">(computed from the iterations)</span>" : "");
  }
  if (!t.iterations.empty())
    return "<p class=\"nobalance\">No balance point: the update never stays below FACT + RS "
           "to the end of the run.</p>\n";
  return "";
}

std::string test_headline(const TestView& t) {
  const json& j = *t.test;
  return fmt::format("{} N={} NB={} P&#215;Q={}&#215;{}: {} Gflops in {} s, {}",
                     escape_html(field(j, "variant")), t.n, t.nb, t.p, t.q, format_number(t.gflops),
                     format_number(t.time_s), verdict_html(field(j, "verdict")));
}

std::string test_section(const TestView& t, int id, bool several_files) {
  const json& j = *t.test;
  const json& rec = *t.record;
  std::ostringstream out;
  out << fmt::format("<section id=\"test-{}\">\n<h2>Test {}: {}</h2>\n", id, id, test_headline(t));
  if (several_files)
    out << fmt::format("<p class=\"sub\">{}, test {} of the record</p>\n", escape_html(t.source),
                       t.index);
  out << balance_sentence(t);

  if (t.iterations.empty()) {
    out << "<p class=\"nobalance\">This test has no per-iteration data.</p>\n";
  } else {
    const long group = iterations_per_bar(static_cast<long>(t.iterations.size()));
    out << "<h3>Where the time went, iteration by iteration</h3>\n";
    out << breakdown_chart(t, id);
    out << "<p class=\"caption\">Stacked: the time of each phase in the iteration (max over "
           "ranks); "
           "with look-ahead or a split update the phases overlap, so the stack can exceed the "
           "iteration's wall time (the black line).";
    if (group > 1)
      out << fmt::format(" {} iterations: each bar is the mean of {} consecutive iterations.",
                         t.iterations.size(), group);
    if (t.balance) out << " Right of the balance point the update no longer hides FACT + RS.";
    out << "</p>\n<h3>Share of each phase</h3>\n" << breakdown_chart(t, id, true);
    out << "<p class=\"caption\">The same bars, each scaled to 100%: late iterations are small "
           "in time but show here how FACT and RS take over from UPDATE.</p>\n";
    out << "<h3>Gflops over the run</h3>\n" << gflops_chart(t, id);
    out << "<p class=\"caption\">Flops of the iterations done so far divided by the time since "
           "the factorization began; the dotted line is the test's result (with the solve).</p>\n";
  }

  Table params("Parameters");
  params.text("file", t.source);
  params.text("variant", field(j, "variant"));
  params.text("N", field(j, "n"));
  params.text("NB", field(j, "nb"));
  params.text("P x Q", fmt::format("{} x {}", t.p, t.q));
  for (const char* k :
       {"pmap", "depth", "bcast", "swap", "swap_threshold", "pfact", "rfact", "nbmin", "ndiv"})
    params.text(k, field(j, k));
  if (auto s = j.find("schedule"); s != j.end() && s->is_object())
    for (const auto& [k, v] : s->items()) params.text(k, text_of(v));

  Table results("Results");
  results.text("time", field(j, "time_s") + " s");
  results.text("Gflops", field(j, "gflops"));
  results.text("residual", field(j, "residual"));
  results.row("verdict", verdict_html(field(j, "verdict")));
  if (auto ph = j.find("phases_s"); ph != j.end() && ph->is_object())
    for (const auto& [k, v] : ph->items()) results.text(k + " (s, total)", text_of(v));
  if (!t.iterations.empty()) results.text("iterations", std::to_string(t.iterations.size()));
  if (t.balance)
    results.text(
        "balance point",
        fmt::format("iteration {} ({:.1f}% of iterations, {:.1f}% of flops)", t.balance->iteration,
                    t.balance->percent_iterations, t.balance->percent_flops));
  if (auto e = j.find("energy"); e != j.end() && e->is_object()) {
    if (e->contains("joules")) {
      results.text("energy",
                   format_number(e->value("joules", 0.0)) + " J (" + field(*e, "sources") + ")");
      if (e->contains("watts"))
        results.text("average power", format_number(e->value("watts", 0.0)) + " W");
      if (e->contains("gflops_per_watt"))
        results.text("Gflops/W", format_number(e->value("gflops_per_watt", 0.0)));
      results.text("energy not measured", field(*e, "not_measured"));
    } else {
      results.text("energy", field(*e, "not_available"));
    }
  }
  if (t.prediction) {
    if (t.prediction->time_s)
      results.text("predicted time", format_number(*t.prediction->time_s) + " s");
    if (t.prediction->gflops)
      results.text("predicted Gflops", format_number(*t.prediction->gflops));
  }

  Table machine("Machine");
  if (auto m = rec.find("machine"); m != rec.end() && m->is_object())
    for (const auto& [k, v] : m->items())
      // The BLAS's kernels against the CPU's units (core/blas_kernels.hpp):
      // the sentence that says both and what they reach, not the fields.
      machine.text(k == "blas_kernels" ? "BLAS kernels" : k,
                   k == "blas_kernels" && v.is_object() ? field(v, "summary") : text_of(v));
  machine.text("started_at", field(rec, "started_at"));
  machine.text("hplx_version", field(rec, "hplx_version"));
  machine.text("command line", field(rec, "argv"));
  if (auto n = rec.find("notes"); n != rec.end() && n->is_array())
    for (const auto& note : *n) machine.text("note", text_of(note));

  out << ranks_section(j) << "<div class=\"tables\">\n"
      << params.finish() << results.finish() << machine.finish() << "</div>\n</section>\n";
  return out.str();
}

// What the report must say about a record that did not finish: a run
// stopped by a signal ("interrupted", with the reason), or one whose record
// was last written mid-run ("running": still going, or killed outright).
// Records from before the "status" field say nothing.
std::string incompleteness(const json& rec) {
  const std::string status = field(rec, "status");
  const auto progress = rec.find("progress");
  const std::string tests =
      progress != rec.end() && progress->is_object()
          ? fmt::format("{} of {} tests", text_of(progress->value("done", json())),
                        text_of(progress->value("planned", json())))
          : std::string("some tests");
  if (status == "interrupted")
    return fmt::format("this run was interrupted ({}); it holds {} only", field(rec, "reason"),
                       tests);
  if (status == "running")
    return fmt::format(
        "this run did not finish: its record was last written after {} (the job was still "
        "running, or was killed)",
        tests);
  return {};
}

// The TOP500 (and Green500) figures of one record, as `hplx lu` recorded
// them, over a chart of its passed tests.
std::string top500_section(const RunFile& file, const std::vector<TestView>& all, int id,
                           bool several_files) {
  const json& rec = file.record;
  const auto it = rec.find("top500");
  if (it == rec.end() || !it->is_object()) return "";
  const json& f = *it;
  std::vector<TestView> mine;
  for (const auto& t : all)
    if (t.record == &rec) mine.push_back(t);
  Top500Marks marks;
  marks.rmax_gflops = f.value("rmax_gflops", 0.0);
  marks.nmax = f.value("nmax", 0L);
  if (auto nh = f.find("n_half"); nh != f.end() && nh->is_number_integer())
    marks.n_half = nh->get<long>();
  if (auto rp = f.find("rpeak_gflops"); rp != f.end() && rp->is_number())
    marks.rpeak_gflops = rp->get<double>();

  std::ostringstream out;
  out << fmt::format("<section id=\"top500-figures-{}\">\n<h2>TOP500 figures{}</h2>\n", id,
                     several_files ? ": " + escape_html(file.path) : std::string());
  Table t("TOP500 figures (passed tests only)");
  t.text("Rmax", format_number(marks.rmax_gflops) + " Gflops");
  t.text("Nmax", fmt::format("{} (NB {})", marks.nmax, field(f, "nmax_nb")));
  t.text("N_half", marks.n_half ? std::to_string(*marks.n_half) : field(f, "n_half"));
  t.text("how N_half was found", field(f, "n_half_how"));
  t.text("Rpeak", marks.rpeak_gflops ? format_number(*marks.rpeak_gflops) + " Gflops"
                                     : std::string("not known"));
  t.text(marks.rpeak_gflops ? "Rpeak from" : "why", field(f, "rpeak_source"));
  if (auto e = f.find("rmax_over_rpeak"); e != f.end() && e->is_number())
    t.text("Rmax/Rpeak", fmt::format("{:.1f}%", 100 * e->get<double>()));
  if (auto b = f.find("rpeak_reachable_by_blas"); b != f.end() && b->is_number())
    t.text("Rpeak the BLAS can reach", fmt::format("at most {:.0f}%", 100 * b->get<double>()));
  if (f.contains("blas_kernels")) t.text("BLAS kernels", field(f, "blas_kernels"));
  if (f.contains("rmax_gflops_per_watt")) {
    t.text("Green500: Gflops/W at Rmax", format_number(f.value("rmax_gflops_per_watt", 0.0)));
    t.text("power at Rmax", format_number(f.value("rmax_watts", 0.0)) + " W");
  } else {
    // The Rmax test's own record says why its energy is missing.
    for (const auto& v : mine)
      if (v.n == marks.nmax && std::abs(v.gflops - marks.rmax_gflops) < 1e-9)
        if (auto e = v.test->find("energy"); e != v.test->end() && e->contains("not_available"))
          t.text("Green500: energy", field(*e, "not_available"));
  }
  t.text("tests counted", field(f, "tests_counted"));
  out << "<div class=\"tables\">\n" << t.finish() << "</div>\n";
  out << top500_chart(mine, marks, id);
  out << "<p class=\"caption\">Each dot a test that passed its residual check; the line joins "
         "the best at each N. N_half is the smallest N measured below Nmax whose best rate "
         "reaches half of Rmax.</p>\n</section>\n";
  return out.str();
}

std::string summary_table(const std::vector<TestView>& tests) {
  // A model's predictions, when any test has one, sit beside the measurement.
  bool predicted = false;
  for (const auto& t : tests) predicted |= t.prediction && t.prediction->gflops.has_value();
  std::ostringstream out;
  out << "<table id=\"summary\"><tr><th>#</th><th>file</th><th>variant</th><th>N</th><th>NB</th>"
         "<th>P&#215;Q</th><th>time (s)</th><th>Gflops</th>"
      << (predicted ? "<th>predicted Gflops</th>" : "")
      << "<th>verdict</th><th>balance point</th></tr>\n";
  for (size_t i = 0; i < tests.size(); ++i) {
    const auto& t = tests[i];
    const std::string bp =
        t.balance ? fmt::format("{} ({:.0f}% it., {:.0f}% flops)", t.balance->iteration,
                                t.balance->percent_iterations, t.balance->percent_flops)
                  : std::string("&#8212;");
    std::string pred;
    if (predicted) {
      pred = fmt::format("<td class=\"num\">{}</td>", t.prediction && t.prediction->gflops
                                                          ? format_number(*t.prediction->gflops)
                                                          : std::string("&#8212;"));
    }
    out << fmt::format(
        "<tr><td><a href=\"#test-{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}&#215;{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td>{}<td>{}</td><td>{}</td></tr>\n",
        i, i, escape_html(t.source), escape_html(field(*t.test, "variant")), t.n, t.nb, t.p, t.q,
        format_number(t.time_s), format_number(t.gflops), pred,
        verdict_html(field(*t.test, "verdict")), bp);
  }
  out << "</table>\n";
  return out.str();
}

}  // namespace

std::string render_report(const std::vector<RunFile>& files) {
  const std::vector<TestView> tests = collect_tests(files);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>hplx report</title>\n<style>"
      << kStyle << "</style>\n</head>\n<body>\n<h1>hplx report</h1>\n<p class=\"sub\">";
  for (size_t i = 0; i < files.size(); ++i) {
    const json& r = files[i].record;
    const auto machine = r.find("machine");
    const std::string host =
        machine != r.end() && machine->is_object() ? field(*machine, "hostname") : std::string();
    const bool mxp = is_hpl_mxp_record(r);
    out << (i ? "<br>" : "") << escape_html(files[i].path) << ": ";
    if (is_tune_record(r))
      out << "an hplx tune search";
    else
      out << (mxp ? hpl_mxp_tests(r).size() : r.at("tests").size())
          << (mxp ? " HPL-MxP test(s)" : " test(s)");
    if (r.contains("started_at")) out << ", started " << escape_html(field(r, "started_at"));
    if (!host.empty()) out << " on " << escape_html(host);
  }
  out << "</p>\n";
  for (const RunFile& f : files)
    if (const std::string warning = incompleteness(f.record); !warning.empty())
      out << "<p class=\"warn\"><b>" << escape_html(f.path) << "</b>: " << escape_html(warning)
          << "</p>\n";
  size_t mxp_tests = 0, tunes = 0;
  for (const RunFile& f : files) {
    if (is_hpl_mxp_record(f.record)) mxp_tests += hpl_mxp_tests(f.record).size();
    tunes += is_tune_record(f.record);
  }
  if (tests.empty() && mxp_tests == 0 && tunes == 0) out << "<p>The record holds no tests.</p>\n";

  for (size_t i = 0; i < files.size(); ++i)
    out << top500_section(files[i], tests, static_cast<int>(i), files.size() > 1);
  for (size_t i = 0; i < files.size(); ++i)
    out << preflight_section(files[i].record, static_cast<int>(i));
  if (tests.size() > 1) {
    out << "<section id=\"overview\">\n<h2>All tests</h2>\n" << summary_table(tests);
    out << "<h3>Gflops against N</h3>\n" << scaling_chart(tests, false);
    out << "<h3>Gflops against NB</h3>\n" << scaling_chart(tests, true);
    out << "</section>\n";
  }
  for (size_t i = 0; i < tests.size(); ++i)
    out << test_section(tests[i], static_cast<int>(i), files.size() > 1);
  int mxp_id = 0;
  for (const RunFile& f : files)
    if (is_hpl_mxp_record(f.record)) {
      out << hpl_mxp_sections(f, mxp_id);
      mxp_id += static_cast<int>(hpl_mxp_tests(f.record).size());
    }

  int tune_id = 0;
  for (const RunFile& f : files)
    if (is_tune_record(f.record)) out << tune_section(f, tune_id++);

  out << "<footer>\n<p><b>Balance point</b> (seed 003): " << escape_html(kBalancePointDefinition)
      << ". Times are the maximum over the ranks. From the balance point on, the trailing "
         "update is too small to hide the panel factorization and the row swaps.</p>\n"
      << "<p>Written by <code>hplx report</code> " << escape_html(HPLX_VERSION)
      << ". Fields: docs/REPORT.md.</p>\n</footer>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace hplx::report
