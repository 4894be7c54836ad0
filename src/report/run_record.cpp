#include "report/run_record.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/input_file.hpp"
#include "core/json_record.hpp"
#include "report/hpl_mxp_page.hpp"
#include "report/tune_page.hpp"

namespace hplx::report {
namespace {

using nlohmann::json;

// The first line of a parser message ("[json.exception.parse_error.101]
// parse error at line 1, column 1: ..."), without nlohmann's tag.
std::string parse_message(const std::string& what) {
  std::string m = what.substr(0, what.find('\n'));
  if (m.rfind("[json.exception.", 0) == 0) {
    const auto close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

double number(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number())
    throw UsageError(fmt::format("{}: '{}' is missing or not a number", where, key));
  return it->get<double>();
}

double number_or(const json& obj, const char* key, double fallback) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_number() ? it->get<double>() : fallback;
}

// A count (N, NB, k, ...) kept in a long. Records hold integers, but a
// number beyond a long is undefined to convert.
long whole(double v, const char* key, const std::string& where) {
  if (!(std::fabs(v) < 9.2e18))
    throw UsageError(
        fmt::format("{}: '{}' is {:g}, out of range; allowed: an integer of at most "
                    "18 digits",
                    where, key, v));
  return static_cast<long>(v);
}

long count(const json& obj, const char* key, const std::string& where) {
  return whole(number(obj, key, where), key, where);
}

long count_or(const json& obj, const char* key, double fallback, const std::string& where) {
  return whole(number_or(obj, key, fallback), key, where);
}

std::optional<double> optional_number(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it != obj.end() && it->is_number()) return it->get<double>();
  return std::nullopt;
}

IterationRow parse_iteration(const json& it, const std::string& where) {
  if (!it.is_object()) throw UsageError(fmt::format("{}: not an object", where));
  IterationRow r;
  r.k = count(it, "k", where);
  r.j = count_or(it, "j", 0, where);
  r.jb = count_or(it, "jb", 0, where);
  r.n_trailing = count_or(it, "n_trailing", 0, where);
  r.local_cols = count_or(it, "local_cols", 0, where);
  r.fact_s = number(it, "fact_s", where);
  r.bcast_s = number(it, "bcast_s", where);
  r.rs_comm_s = number(it, "rs_comm_s", where);
  r.rs_copy_s = number(it, "rs_copy_s", where);
  r.update_s = number(it, "update_s", where);
  r.wait_s = number_or(it, "wait_s", 0);
  r.iter_s = number(it, "iter_s", where);
  r.bcast_hidden_s = number_or(it, "bcast_hidden_s", 0);
  r.rs_hidden_s = number_or(it, "rs_hidden_s", 0);
  r.flops = number(it, "flops", where);
  r.elapsed_s = number(it, "elapsed_s", where);
  r.gflops = number_or(it, "gflops", -1);  // -1: computed by collect_tests
  return r;
}

}  // namespace

RunFile load_run_file(const std::string& path) {
  return parse_run_file(read_input_file(path, "a record written by `hplx lu --json`"), path);
}

RunFile parse_run_file(const std::string& text, const std::string& path) {
  RunFile file{path, {}};
  try {
    file.record = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number beyond a double (1e999).
    throw UsageError(fmt::format("{}: not JSON ({}); allowed: a record written by `hplx lu --json`",
                                 path, parse_message(e.what())));
  }
  const json& r = file.record;
  const auto schema = r.is_object() ? r.find("schema") : r.end();
  if (!r.is_object() || schema == r.end() || !schema->is_string() ||
      schema->get<std::string>() != kRecordSchema) {
    const std::string found =
        r.is_object() && schema != r.end() ? schema->dump() : std::string("no \"schema\"");
    throw UsageError(
        fmt::format("{}: schema {} is not a run record; allowed: \"{}\" (from `hplx lu --json`)",
                    path, found, kRecordSchema));
  }
  const auto version = r.find("schema_version");
  if (version == r.end() || !version->is_number_integer()) {
    throw UsageError(fmt::format("{}: \"schema_version\" is missing or not an integer", path));
  }
  if (version->get<int>() < kMinReportSchemaVersion) {
    throw UsageError(
        fmt::format("{}: schema_version {} is too old: the report needs the per-iteration data of "
                    "schema_version {} or later; rerun `hplx lu --json` with this hplx",
                    path, version->get<int>(), kMinReportSchemaVersion));
  }
  // An `hplx tune` record holds a search, not tests (report/tune_page.hpp).
  if (is_tune_record(r)) return file;
  const auto tests = r.find("tests");
  // An `hplx hpl-mxp` record from before its "tests" list has one "result".
  if (is_hpl_mxp_record(r) && (tests == r.end() || !tests->is_array()) && r.contains("result"))
    return file;
  if (tests == r.end() || !tests->is_array()) {
    throw UsageError(
        fmt::format("{}: no \"tests\" array; allowed: a record written by `hplx lu --json`", path));
  }
  return file;
}

TestView test_view(const json& t, const RunFile& file, int i) {
  const std::string where = fmt::format("{}: tests[{}]", file.path, i);
  if (!t.is_object()) throw UsageError(fmt::format("{}: not an object", where));
  TestView v;
  v.source = file.path;
  v.index = i;
  v.test = &t;
  v.record = &file.record;
  v.n = count(t, "n", where);
  v.nb = count(t, "nb", where);
  v.p = count_or(t, "p", 1, where);
  v.q = count_or(t, "q", 1, where);
  v.gflops = number_or(t, "gflops", 0);
  v.time_s = number_or(t, "time_s", 0);

  const auto its = t.find("iterations");
  if (its != t.end() && !its->is_null()) {
    if (!its->is_array())
      throw UsageError(fmt::format("{}: \"iterations\" is not an array", where));
    for (size_t k = 0; k < its->size(); ++k)
      v.iterations.push_back(
          parse_iteration((*its)[k], fmt::format("{}.iterations[{}]", where, k)));
    double cumulative = 0;
    for (auto& row : v.iterations) {
      cumulative += row.flops;
      if (row.gflops < 0) row.gflops = row.elapsed_s > 0 ? cumulative / row.elapsed_s * 1e-9 : 0;
    }
  }

  const auto bp = t.find("balance_point");
  if (bp != t.end() && bp->is_object()) {
    const std::string w = where + ".balance_point";
    BalancePoint b;
    b.iteration = count(*bp, "iteration", w);
    b.percent_iterations = number(*bp, "percent_iterations", w);
    b.percent_flops = number(*bp, "percent_flops", w);
    const auto def = bp->find("definition");
    b.definition = def != bp->end() && def->is_string() ? def->get<std::string>()
                                                        : std::string(kBalancePointDefinition);
    v.balance = b;
  } else if (bp == t.end() && !v.iterations.empty()) {
    // As hplx lu computed it from the same rows (device times included),
    // each row's flops its panel's: with look-ahead a row's "flops" are
    // those of the update it completed, one panel late.
    v.balance = balance_point_of_iterations(*its, v.n);
    v.balance_recomputed = true;
  }

  const auto pred = t.find("prediction");
  if (pred != t.end() && pred->is_object()) {
    Prediction p;
    p.time_s = optional_number(*pred, "time_s");
    p.gflops = optional_number(*pred, "gflops");
    const auto pits = pred->find("iterations");
    if (pits != pred->end() && pits->is_array()) {
      for (size_t k = 0; k < pits->size(); ++k) {
        const std::string w = fmt::format("{}.prediction.iterations[{}]", where, k);
        const json& pi = (*pits)[k];
        if (!pi.is_object()) throw UsageError(w + ": not an object");
        p.iterations.push_back({count(pi, "k", w), number(pi, "iter_s", w)});
      }
    }
    v.prediction = p;
  }
  return v;
}

std::vector<TestView> collect_tests(const std::vector<RunFile>& files) {
  std::vector<TestView> views;
  for (const RunFile& file : files) {
    if (is_hpl_mxp_record(file.record)) continue;  // hpl_mxp_page.hpp draws those
    if (is_tune_record(file.record)) continue;     // tune_page.hpp draws those
    const json& tests = file.record.at("tests");
    for (size_t i = 0; i < tests.size(); ++i)
      views.push_back(test_view(tests[i], file, static_cast<int>(i)));
  }
  return views;
}

}  // namespace hplx::report
