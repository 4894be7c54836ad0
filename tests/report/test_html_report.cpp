// The HTML page of `hplx report`: well-formed, with the charts a user looks
// for and data in them, the balance point marked (from the record or
// computed), the model overlay only when there is a prediction, long runs
// grouped into readable bars, and one-line errors for bad records.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "html_check.hpp"
#include "report/charts.hpp"
#include "report/html_report.hpp"
#include "report/svg.hpp"

namespace hplx::report {
namespace {

using nlohmann::json;
using test::check_html;
using test::count_tags;
using test::element_by_id;

const std::string kData = HPLX_REPORT_DATA_DIR;

RunFile fixture(const std::string& name = "run-v2.json") {
  return load_run_file(kData + "/" + name);
}

std::string render(const RunFile& f) {
  return render_report({f});
}

// A record with one test of `n` iterations, update falling linearly.
RunFile synthetic(long n) {
  json its = json::array();
  double elapsed = 0, flops = 0;
  for (long k = 0; k < n; ++k) {
    const double update = 1e-3 * static_cast<double>(n - k) / static_cast<double>(n);
    const double f = 1e9 * static_cast<double>(n - k) / static_cast<double>(n);
    elapsed += update + 2e-4;
    flops += f;
    its.push_back({{"k", k},
                   {"j", k * 32},
                   {"jb", 32},
                   {"n_trailing", 0},
                   {"fact_s", 2e-4},
                   {"bcast_s", 1e-5},
                   {"rs_comm_s", 5e-5},
                   {"rs_copy_s", 1e-5},
                   {"update_s", update},
                   {"wait_s", 1e-5},
                   {"iter_s", update + 2e-4},
                   {"flops", f},
                   {"elapsed_s", elapsed},
                   {"gflops", flops / elapsed * 1e-9}});
  }
  json test = {{"n", 32 * n},
               {"nb", 32},
               {"p", 1},
               {"q", 1},
               {"variant", "WR11C2R4"},
               {"time_s", elapsed},
               {"gflops", flops / elapsed * 1e-9},
               {"residual", 0.01},
               {"verdict", "PASSED"},
               {"iterations", its}};
  return RunFile{"synthetic.json",
                 {{"schema", "hplx.run"}, {"schema_version", 2}, {"tests", json::array({test})}}};
}

// A sweep of three N with its TOP500 figures and measured energy, as
// `hplx lu` records them (core/top500.hpp, core/energy.hpp).
RunFile sweep_with_top500() {
  RunFile f = synthetic(10);
  const json one = f.record["tests"][0];
  json tests = json::array();
  const long ns[] = {320, 640, 960};
  const double gs[] = {4, 9, 12};
  for (int i = 0; i < 3; ++i) {
    json t = one;
    t["n"] = ns[i];
    t["gflops"] = gs[i];
    t["energy"] = {{"joules", 10.0 * (i + 1)},
                   {"watts", 50.0},
                   {"gflops_per_watt", gs[i] / 50},
                   {"sources", "RAPL package-0 (intel-rapl:0) on 1 node"}};
    tests.push_back(t);
  }
  f.record["tests"] = tests;
  f.record["top500"] = {{"rmax_gflops", 12.0},
                        {"nmax", 960},
                        {"nmax_nb", 32},
                        {"n_half", 640},
                        {"n_half_how", "the smallest N measured below Nmax = 960 ..."},
                        {"rpeak_gflops", 20.0},
                        {"rpeak_source", "--rpeak 20"},
                        {"rmax_over_rpeak", 0.6},
                        {"tests_counted", 3},
                        {"distinct_n", 3},
                        {"rmax_watts", 50.0},
                        {"rmax_gflops_per_watt", 0.24}};
  return f;
}

TEST(HtmlReport, Top500SectionShowsTheSweepsFiguresOverGflopsAgainstN) {
  const std::string html = render(sweep_with_top500());
  EXPECT_EQ(check_html(html), "");
  const std::string section = element_by_id(html, "top500-figures-0");
  ASSERT_FALSE(section.empty());
  for (const char* text :
       {"<td>Rmax</td><td>12 Gflops</td>", "<td>Nmax</td><td>960 (NB 32)</td>",
        "<td>N_half</td><td>640</td>", "how N_half was found", "<td>Rpeak</td><td>20 Gflops</td>",
        "<td>Rpeak from</td><td>--rpeak 20", "<td>Rmax/Rpeak</td><td>60.0%</td>",
        "<td>Green500: Gflops/W at Rmax</td><td>0.24</td>"})
    EXPECT_NE(section.find(text), std::string::npos) << text;
  const std::string chart = element_by_id(html, "top500-0");
  EXPECT_GE(count_tags(chart, "circle"), 3 + 1);  // the tests and the Rmax ring
  for (const char* cls :
       {"class=\"n-half\"", "class=\"half-rmax\"", "class=\"rpeak\"", "class=\"rmax\""})
    EXPECT_NE(chart.find(cls), std::string::npos) << cls;
  // Each test's results carry its energy.
  EXPECT_NE(html.find("<td>Gflops/W</td><td>0.24</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>average power</td><td>50 W</td>"), std::string::npos);
}

// A Rmax/Rpeak of 51% with the BLAS held to half of Rpeak: the report says
// so in the machine table and beside Rmax/Rpeak (core/blas_kernels.hpp).
TEST(HtmlReport, TheBlasKernelsSitInTheMachineTableAndBesideRmaxOverRpeak) {
  const std::string line =
      "OpenBLAS runs its Haswell kernels (AVX2, 16 flops/cycle) on a CPU with AVX-512 (32): "
      "OPENBLAS_CORETYPE=Haswell is set; DGEMM can reach at most half of Rpeak";
  RunFile f = sweep_with_top500();
  f.record["machine"] = {
      {"hostname", "zen5"},
      {"blas_kernels", {{"core", "Haswell"}, {"rpeak_reachable_share", 0.5}, {"summary", line}}}};
  f.record["top500"]["rpeak_reachable_by_blas"] = 0.5;
  f.record["top500"]["blas_kernels"] = line;
  const std::string html = render(f);
  EXPECT_EQ(check_html(html), "");
  const std::string row = "<td>BLAS kernels</td><td>" + line + "</td>";
  EXPECT_NE(element_by_id(html, "test-0").find(row), std::string::npos);
  const std::string section = element_by_id(html, "top500-figures-0");
  EXPECT_NE(section.find("<td>Rpeak the BLAS can reach</td><td>at most 50%</td>"),
            std::string::npos);
  EXPECT_NE(section.find(row), std::string::npos);
}

TEST(HtmlReport, EnergyNotAvailableIsSaidWithItsReason) {
  RunFile f = sweep_with_top500();
  for (auto& t : f.record["tests"])
    t["energy"] = {
        {"not_available", "not available on this machine: /sys/class/powercap does not exist"}};
  f.record["top500"].erase("rmax_watts");
  f.record["top500"].erase("rmax_gflops_per_watt");
  const std::string html = render(f);
  EXPECT_NE(element_by_id(html, "top500-figures-0")
                .find("not available on this machine: /sys/class/powercap does not exist"),
            std::string::npos);
}

// A record's "ranks" (hplx lu with more than one rank): every rank a row,
// the slow one marked and named above the table; none: the sentence says so.
TEST(HtmlReport, TheRanksTableMarksTheSlowRank) {
  RunFile f = fixture();
  f.record["tests"][0]["ranks"] = {
      {"ranks",
       {{{"rank", 0}, {"host", "node1"}, {"update_s", 0.45}, {"fact_s", 0.04}, {"wait_s", 0.5}},
        {{"rank", 1}, {"host", "node2"}, {"update_s", 0.93}, {"fact_s", 0.05}, {"wait_s", 0.0}}}},
      {"slow_threshold", 0.1},
      {"slow", {{{"rank", 1}, {"host", "node2"}, {"slower", 1.07}, {"others_waited_s", 0.5}}}}};
  std::string html = render(f);
  check_html(html);
  EXPECT_NE(html.find("Slow (update more than 10% longer than the others' median): rank 1 on "
                      "node2 (+107%)."),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"slow\"><td class=\"num\">1</td><td>node2</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td class=\"num\">0</td><td>node1</td>"), std::string::npos);
  f.record["tests"][0]["ranks"]["slow"] = json::array();
  html = render(f);
  EXPECT_NE(html.find("No rank's update took more than 10% longer"), std::string::npos);
  EXPECT_EQ(html.find("class=\"slow\""), std::string::npos);
}

// Above 64 ranks the table keeps the slow ones and the slowest others.
TEST(HtmlReport, ManyRanksShowTheSlowOnesAndTheSlowest) {
  RunFile f = fixture();
  json ranks = json::array();
  for (int r = 0; r < 1000; ++r)
    ranks.push_back({{"rank", r},
                     {"host", "n" + std::to_string(r)},
                     {"update_s", r == 777 ? 9.0 : 1.0 + 1e-4 * r},
                     {"fact_s", 0.1},
                     {"wait_s", 0.1}});
  f.record["tests"][0]["ranks"] = {
      {"ranks", ranks},
      {"slow_threshold", 0.1},
      {"slow", {{{"rank", 777}, {"host", "n777"}, {"slower", 7.9}, {"others_waited_s", 8}}}}};
  const std::string html = render(f);
  EXPECT_NE(html.find("64 of 1000 ranks shown"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"slow\"><td class=\"num\">777</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>n999</td>"), std::string::npos);  // among the slowest others
  EXPECT_EQ(html.find("<td>n0</td>"), std::string::npos);    // the fastest left out
}

// The preflight (hplx lu --preflight): a dot per rank in each figure's
// chart, the rank it named red and listed; no section without one.
TEST(HtmlReport, ThePreflightChartMarksTheNamedRank) {
  RunFile f = fixture();
  EXPECT_TRUE(element_by_id(render(f), "preflight-0").empty());
  json ranks = json::array();
  for (int r = 0; r < 4; ++r)
    ranks.push_back({{"rank", r},
                     {"host", r < 2 ? "node1" : "node2"},
                     {"gemm_gflops", r == 3 ? 8.0 : 40.0},
                     {"memory_gbs", 30.0},
                     {"link_gbs", 10.0}});
  f.record["preflight"] = {{"threshold", 0.1},
                           {"seconds", 1.2},
                           {"hosts", 2},
                           {"ranks", ranks},
                           {"slow",
                            {{{"rank", 3},
                              {"host", "node2"},
                              {"kind", "DGEMM"},
                              {"value", 8.0},
                              {"others_median", 40.0},
                              {"below", 0.8},
                              {"of_host", false}}}}};
  const std::string html = render(f);
  check_html(html);
  const std::string section = element_by_id(html, "preflight-0");
  EXPECT_NE(section.find("4 ranks on 2 hosts"), std::string::npos);
  EXPECT_NE(section.find("rank 3 on node2: DGEMM 8 Gflop/s, 80% below the other ranks' median "
                         "40"),
            std::string::npos)
      << section.substr(0, 600);
  const std::string gemm = element_by_id(html, "preflight-0-0");
  EXPECT_EQ(count_tags(gemm, "circle"), 4);
  EXPECT_NE(gemm.find("rank 3 on node2: 8 Gflop/s (named slow)"), std::string::npos);
  EXPECT_NE(gemm.find("rank 0 on node1: 40 Gflop/s</title>"), std::string::npos);
  const std::string memory = element_by_id(html, "preflight-0-1");
  EXPECT_EQ(count_tags(memory, "circle"), 4);
  EXPECT_EQ(memory.find("named slow)"), std::string::npos);
}

TEST(HtmlReport, NoTop500SectionWithoutFigures) {
  const std::string html = render(fixture());
  EXPECT_TRUE(element_by_id(html, "top500-figures-0").empty());
}

TEST(HtmlReport, FixtureIsWellFormedWithChartsAndData) {
  const std::string html = render(fixture());
  EXPECT_EQ(check_html(html), "");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  const std::string breakdown = element_by_id(html, "breakdown-0");
  const std::string gflops = element_by_id(html, "gflops-0");
  ASSERT_FALSE(breakdown.empty());
  ASSERT_FALSE(gflops.empty());
  // 40 iterations, 6 phases each (LBCAST and the others are all > 0 here).
  EXPECT_GE(count_tags(breakdown, "rect"), 40 * 5);
  EXPECT_GE(count_tags(breakdown, "path"), 1);  // the iteration-time line
  EXPECT_GE(count_tags(gflops, "path"), 1);
  for (const char* label : {"FACT", "LBCAST", "RS comm", "RS copy", "UPDATE", "WAIT"})
    EXPECT_NE(breakdown.find(std::string(">") + label + "<"), std::string::npos) << label;
  // The share view: every bar's phases add up to the full height.
  const std::string share = element_by_id(html, "breakdown-share-0");
  EXPECT_GE(count_tags(share, "rect"), 40 * 5);
  EXPECT_EQ(count_tags(share, "path"), 0);
  EXPECT_NE(share.find("class=\"balance-point\""), std::string::npos);
  // No single-test page needs the scaling charts.
  EXPECT_TRUE(element_by_id(html, "gflops-vs-n").empty());
}

TEST(HtmlReport, SelfContainedNoScriptNoNetwork) {
  const std::string html = render(fixture());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(HtmlReport, BalancePointFromTheRecordIsMarked) {
  const RunFile f = fixture();
  const json& bp = f.record.at("tests").at(0).at("balance_point");
  const std::string html = render(f);
  const std::string sentence =
      "balance point: iteration " + std::to_string(bp.at("iteration").get<int>()) + " (";
  EXPECT_NE(html.find("Balance point: iteration 22 (55.0% of iterations, 90.9% of flops)"),
            std::string::npos);
  const std::string breakdown = element_by_id(html, "breakdown-0");
  EXPECT_NE(breakdown.find("class=\"balance-point\""), std::string::npos);
  EXPECT_NE(breakdown.find(sentence), std::string::npos);
  EXPECT_NE(element_by_id(html, "gflops-0").find("class=\"balance-point\""), std::string::npos);
}

TEST(HtmlReport, BalancePointComputedWhenTheRecordHasNone) {
  RunFile f = fixture();
  f.record["tests"][0].erase("balance_point");
  const std::string html = render(f);
  EXPECT_EQ(check_html(html), "");
  // The fixture's own balance point, from the same definition.
  EXPECT_NE(html.find("Balance point: iteration 22 (55.0% of iterations, 90.9% of flops)"),
            std::string::npos);
  EXPECT_NE(html.find("computed from the iterations"), std::string::npos);
  EXPECT_NE(element_by_id(html, "breakdown-0").find("class=\"balance-point\""), std::string::npos);
}

TEST(HtmlReport, NullBalancePointSaysSoAndDrawsNoMarker) {
  RunFile f = fixture();
  f.record["tests"][0]["balance_point"] = nullptr;
  const std::string html = render(f);
  EXPECT_NE(html.find("No balance point"), std::string::npos);
  EXPECT_EQ(html.find("class=\"balance-point\""), std::string::npos);
}

TEST(HtmlReport, PredictionOverlayOnlyWhenPresent) {
  RunFile f = fixture();
  EXPECT_EQ(render(f).find("class=\"prediction\""), std::string::npos);
  json pits = json::array();
  for (const auto& it : f.record["tests"][0]["iterations"])
    pits.push_back({{"k", it["k"]}, {"iter_s", it["iter_s"].get<double>() * 0.9}});
  f.record["tests"][0]["prediction"] = {{"time_s", 4.5}, {"gflops", 19.9}, {"iterations", pits}};
  const std::string html = render(f);
  EXPECT_EQ(check_html(html), "");
  EXPECT_NE(element_by_id(html, "breakdown-0").find("class=\"prediction\""), std::string::npos);
  EXPECT_NE(element_by_id(html, "gflops-0").find("class=\"prediction\""), std::string::npos);
  EXPECT_NE(html.find("predicted: 19.9 Gflops"), std::string::npos);
  EXPECT_NE(html.find("<td>predicted Gflops</td><td>19.9</td>"), std::string::npos);
  // Beside the measured Gflops in the summary of several tests; "-" where none.
  const std::string summary = element_by_id(render_report({f, fixture()}), "summary");
  EXPECT_NE(summary.find("<th>predicted Gflops</th>"), std::string::npos);
  EXPECT_NE(summary.find("<td class=\"num\">19.9</td>"), std::string::npos);
  EXPECT_NE(summary.find("<td class=\"num\">&#8212;</td>"), std::string::npos);
  EXPECT_EQ(element_by_id(render_report({fixture(), fixture()}), "summary").find("predicted"),
            std::string::npos);
}

TEST(HtmlReport, ParametersResultsAndMachineInTheTable) {
  const std::string html = render(fixture());
  for (const char* row : {"<td>N</td><td>5120</td>", "<td>NB</td><td>128</td>",
                          "<td>P x Q</td><td>1 x 2</td>", "<td>variant</td><td>WR11C2R4</td>",
                          "<td>depth</td><td>1</td>", "<td>swap_pipeline</td><td>off</td>",
                          "<td>residual</td><td>0.0042</td>", "<td>hostname</td><td>fixture</td>"})
    EXPECT_NE(html.find(row), std::string::npos) << row;
  EXPECT_TRUE(std::regex_search(html, std::regex("<td>Gflops</td><td>18\\.9[0-9]*</td>")));
}

TEST(HtmlReport, ManyIterationsAreGroupedIntoAtMost120Bars) {
  const RunFile f = synthetic(10000);
  const std::string html = render(f);
  EXPECT_EQ(check_html(html), "");
  const std::string breakdown = element_by_id(html, "breakdown-0");
  // 6 legend swatches + 1 shaded region + at most 120 bars x 6 phases.
  const int rects = count_tags(breakdown, "rect");
  EXPECT_GT(rects, 100 * 5);
  EXPECT_LE(rects, 6 + 1 + 120 * 6);
  EXPECT_NE(breakdown.find("each bar: mean of 84 iterations"), std::string::npos);
  EXPECT_LT(html.size(), 1500000u);
  EXPECT_EQ(iterations_per_bar(94), 1);
  EXPECT_EQ(iterations_per_bar(121), 2);
}

TEST(HtmlReport, SeveralTestsGetScalingCharts) {
  const std::string html = render_report({fixture(), fixture("run-v2-sweep.json")});
  EXPECT_EQ(check_html(html), "");
  const std::string by_n = element_by_id(html, "gflops-vs-n");
  const std::string by_nb = element_by_id(html, "gflops-vs-nb");
  EXPECT_EQ(count_tags(by_n, "circle"), 7);
  EXPECT_EQ(count_tags(by_nb, "circle"), 7);
  EXPECT_GE(count_tags(by_n, "path"), 2);  // NB=64 and NB=128 have 3 points each
  EXPECT_NE(by_n.find(">NB=64<"), std::string::npos);
  EXPECT_NE(by_nb.find(">N=3072<"), std::string::npos);
  // Every test has its section and charts, numbered across the files.
  for (int i = 0; i < 7; ++i) {
    EXPECT_FALSE(element_by_id(html, "breakdown-" + std::to_string(i)).empty()) << i;
    EXPECT_FALSE(element_by_id(html, "gflops-" + std::to_string(i)).empty()) << i;
  }
  EXPECT_NE(element_by_id(html, "summary").find("run-v2-sweep.json"), std::string::npos);
}

TEST(HtmlReport, TestWithoutIterationsGetsTheTableOnly) {
  RunFile f = fixture();
  f.record["tests"][0].erase("iterations");
  f.record["tests"][0].erase("balance_point");
  const std::string html = render(f);
  EXPECT_EQ(check_html(html), "");
  EXPECT_TRUE(element_by_id(html, "breakdown-0").empty());
  EXPECT_NE(html.find("no per-iteration data"), std::string::npos);
}

TEST(HtmlReport, TextFromTheRecordIsEscaped) {
  RunFile f = fixture();
  f.record["machine"]["hostname"] = "<script>alert('x')</script>&";
  f.record["tests"][0]["variant"] = "W<R>";
  const std::string html = render(f);
  EXPECT_EQ(check_html(html), "");
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"), std::string::npos);
}

// --- bad input -------------------------------------------------------------

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string usage_error(const std::string& path) {
  try {
    load_run_file(path);
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
    return what;
  }
  return "(no error)";
}

TEST(HtmlReportErrors, OneLineNamingTheFileAndWhatIsWrong) {
  EXPECT_NE(usage_error("/no/such/run.json")
                .find("/no/such/run.json: cannot read: No such file or directory"),
            std::string::npos);
  const std::string bad = write_temp("bad.json", "{\"schema\": \"hplx.run\",\n  oops");
  EXPECT_NE(usage_error(bad).find(bad + ": not JSON (parse error at line 2"), std::string::npos)
      << usage_error(bad);
  const std::string other =
      write_temp("other.json", R"({"schema": "hplx.mxp", "schema_version": 2})");
  EXPECT_NE(
      usage_error(other).find("schema \"hplx.mxp\" is not a run record; allowed: \"hplx.run\""),
      std::string::npos)
      << usage_error(other);
  const std::string array = write_temp("array.json", "[1, 2]");
  EXPECT_NE(usage_error(array).find("no \"schema\""), std::string::npos);
  const std::string v1 =
      write_temp("v1.json", R"({"schema": "hplx.run", "schema_version": 1, "tests": []})");
  EXPECT_NE(usage_error(v1).find("schema_version 1 is too old: the report needs the per-iteration "
                                 "data of schema_version 2"),
            std::string::npos)
      << usage_error(v1);
  const std::string notests =
      write_temp("notests.json", R"({"schema": "hplx.run", "schema_version": 2})");
  EXPECT_NE(usage_error(notests).find("no \"tests\" array"), std::string::npos);
}

// Found by fuzz/fuzz_run_record: a number beyond a double is nlohmann's
// out_of_range, not a parse_error, and ended `hplx report` with exit 1.
TEST(HtmlReportErrors, NumberBeyondADoubleIsAUsageError) {
  const std::string huge = write_temp(
      "huge.json", R"({"schema": "hplx.run", "schema_version": 2, "tests": [{"n": -1e3080}]})");
  EXPECT_NE(usage_error(huge).find(huge + ": not JSON (number overflow parsing '-1e3080'"),
            std::string::npos)
      << usage_error(huge);
}

// Found by fuzz/fuzz_run_record: a count beyond a long (5.9e19) was
// converted to one, which is undefined.
TEST(HtmlReportErrors, CountBeyondALongNamesTheField) {
  RunFile f = fixture();
  f.record["tests"][0]["iterations"][2]["jb"] = 5.92234e19;
  try {
    render(f);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(
        std::string(e.what()).find("tests[0].iterations[2]: 'jb' is 5.92234e+19, out of range"),
        std::string::npos)
        << e.what();
  }
}

TEST(HtmlReportErrors, MalformedIterationNamesTheField) {
  RunFile f = fixture();
  f.record["tests"][0]["iterations"][3].erase("update_s");
  try {
    render(f);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(
        std::string(e.what()).find("tests[0].iterations[3]: 'update_s' is missing or not a number"),
        std::string::npos)
        << e.what();
  }
}

// An `hplx hpl-mxp --json` record: one page with the score, the phases, a
// bar per panel, the refinement's checks and estimates, and the
// comparison with HPL when the run had --compare-hpl.
json hpl_mxp_test(bool compare) {
  json panels = json::array();
  for (int k = 0; k < 4; ++k)
    panels.push_back({{"j", 32 * k},
                      {"jb", 32},
                      {"fact_s", 1e-3},
                      {"bcast_s", 2e-4},
                      {"update_s", 4e-3 / (k + 1)}});
  json t = {{"n", 128},
            {"nb", 32},
            {"p", 1},
            {"q", 2},
            {"pmap", "column"},
            {"bcast", "1ringM"},
            {"restart", 30},
            {"threshold", 16.0},
            {"time_s", 0.02},
            {"gflops", 12.5},
            {"lu_gflops", 20.5},
            {"phases_s",
             {{"generate", 0.01},
              {"convert", 1e-4},
              {"factor", 0.012},
              {"solve", 0.003},
              {"refine", 0.005}}},
            {"refinement",
             {{"gmres_iterations", 2},
              {"cycles", 1},
              {"check_per_cycle", {7.6e5, 0.19}},
              {"estimate_per_iteration", {40.0, 1.2}}}},
            {"panels", panels},
            {"check", 0.19},
            {"passed", true}};
  if (compare)
    t["compare_hpl"] = {{"variant", "WR11C2R4"}, {"gflops", 6.25}, {"time_s", 0.04},
                        {"residual", 0.01},      {"passed", true}, {"speedup", 2.0}};
  return t;
}

TEST(HtmlReport, HplMxpRecordShowsScorePhasesPanelsAndRefinement) {
  json rec = {{"schema", "hplx.run"},
              {"schema_version", 2},
              {"command", "hpl-mxp"},
              {"tests", {hpl_mxp_test(true), hpl_mxp_test(false)}}};
  const std::string html = render_report({parse_run_file(rec.dump(), "m.json")});
  EXPECT_EQ(check_html(html), "");
  EXPECT_NE(html.find("m.json: 2 HPL-MxP test(s)"), std::string::npos);
  EXPECT_NE(element_by_id(html, "hplmxp-0").find("score 12.5 Gflops"), std::string::npos);
  // The LU-only rate beside the score, as the HPL-MxP rules report it.
  EXPECT_NE(html.find("LU only (Gflops)</td><td>20.5<"), std::string::npos);
  EXPECT_EQ(count_tags(element_by_id(html, "hplmxp-phases-0"), "rect"), 4 + 4);  // + legend
  EXPECT_EQ(count_tags(element_by_id(html, "hplmxp-panels-0"), "rect"), 4 * 3 + 3);
  const std::string refinement = element_by_id(html, "hplmxp-refinement-0");
  EXPECT_EQ(count_tags(refinement, "circle"), 2);
  EXPECT_GE(count_tags(refinement, "path"), 1);
  const std::string compare = element_by_id(html, "hplmxp-compare-0");
  EXPECT_NE(compare.find("6.25"), std::string::npos);
  EXPECT_NE(compare.find("2&#215;"), std::string::npos);
  EXPECT_EQ(element_by_id(html, "hplmxp-compare-1"), "");
  EXPECT_EQ(element_by_id(html, "breakdown-hplmxp-0"), "");  // no per-iteration record
  // A record from before the "tests" list: its single "result".
  json old = {{"schema", "hplx.run"},
              {"schema_version", 2},
              {"command", "hpl-mxp"},
              {"result", hpl_mxp_test(false)}};
  const std::string page = render_report({parse_run_file(old.dump(), "old.json")});
  EXPECT_EQ(check_html(page), "");
  EXPECT_NE(element_by_id(page, "hplmxp-0").find("score 12.5 Gflops"), std::string::npos);
}

// HPL-MxP's factorization keeps hplx lu's per-iteration record: the page
// draws it with the LU's chart and names the balance point.
TEST(HtmlReport, HplMxpRecordWithIterationsShowsTheLuBreakdown) {
  json t = hpl_mxp_test(false);
  const json lu = synthetic(12).record["tests"][0];
  t["iterations"] = lu["iterations"];
  t["balance_point"] = {
      {"iteration", 9}, {"percent_iterations", 75.0}, {"percent_flops", 98.5}, {"definition", "d"}};
  json rec = {
      {"schema", "hplx.run"}, {"schema_version", 2}, {"command", "hpl-mxp"}, {"tests", {t}}};
  const std::string html = render_report({parse_run_file(rec.dump(), "m.json")});
  EXPECT_EQ(check_html(html), "");
  const std::string breakdown = element_by_id(html, "breakdown-hplmxp-0");
  EXPECT_GE(count_tags(breakdown, "rect"), 12);
  EXPECT_NE(breakdown.find("class=\"balance-point\""), std::string::npos);
  EXPECT_NE(element_by_id(html, "hplmxp-0").find("Balance point at iteration 9"),
            std::string::npos);
}

TEST(Svg, NiceTicksAndEscaping) {
  EXPECT_EQ(nice_ticks(0, 460, 6), (std::vector<double>{0, 100, 200, 300, 400, 500}));
  EXPECT_EQ(nice_ticks(0, 40, 10), (std::vector<double>{0, 5, 10, 15, 20, 25, 30, 35, 40}));
  EXPECT_EQ(nice_ticks(0, 0.9, 4), (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(escape_html("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(format_number(18.923102), "18.92");
  EXPECT_EQ(format_number(0), "0");
}

TEST(HtmlCheck, CatchesWhatABrowserWouldForgive) {
  EXPECT_EQ(check_html("<!DOCTYPE html><html><body><p>a<br>b</p><svg><rect/></svg></body></html>"),
            "");
  EXPECT_NE(check_html("<html><body><p>a</body></html>"), "");
  EXPECT_NE(check_html("<html><p>a & b</p></html>"), "");
  EXPECT_NE(check_html("<html><p>a</p>"), "");
}

}  // namespace
}  // namespace hplx::report
