// Reading `hplx lu --json` records (schema "hplx.run") for the report: the
// checks a user's file must pass, and the per-test view the charts draw.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/balance_point.hpp"

namespace hplx::report {

// The report needs the per-iteration table, which schema version 2 added.
inline constexpr int kMinReportSchemaVersion = 2;

// One row of a test's "iterations" table (see docs/REPORT.md).
struct IterationRow {
  long k = 0, j = 0, jb = 0, n_trailing = 0, local_cols = 0;
  double fact_s = 0, bcast_s = 0, rs_comm_s = 0, rs_copy_s = 0, update_s = 0, wait_s = 0;
  double iter_s = 0, bcast_hidden_s = 0, rs_hidden_s = 0;
  double flops = 0, elapsed_s = 0, gflops = 0;
};

// A model's prediction for a test, drawn beside the measurement (`hplx model`
// adds it as the test's "prediction" object).
struct Prediction {
  std::optional<double> time_s, gflops;
  struct Iteration {
    long k = 0;
    double iter_s = 0;
  };
  std::vector<Iteration> iterations;
};

struct TestView {
  std::string source;                      // the record's file name
  int index = 0;                           // position in the record's "tests"
  const nlohmann::json* test = nullptr;    // the test object
  const nlohmann::json* record = nullptr;  // the whole record (machine, notes)
  long n = 0, nb = 0, p = 0, q = 0;
  double gflops = 0, time_s = 0;
  std::vector<IterationRow> iterations;
  std::optional<BalancePoint> balance;
  bool balance_recomputed = false;  // the record had no "balance_point": computed here
  std::optional<Prediction> prediction;
};

struct RunFile {
  std::string path;
  nlohmann::json record;
};

// Reads and checks a record. Throws UsageError, one line naming the file:
// cannot open, not JSON, "schema" not "hplx.run", "schema_version" older
// than kMinReportSchemaVersion, no "tests" array.
RunFile load_run_file(const std::string& path);
// The same checks on a record's text; `path` names it in messages.
RunFile parse_run_file(const std::string& text, const std::string& path);

// The tests of a loaded record, with iteration tables parsed and the
// balance point taken from the record or, when the record has iterations
// but no "balance_point" key, computed. Throws UsageError naming the file
// and field for a malformed test. `files` must outlive the views.
std::vector<TestView> collect_tests(const std::vector<RunFile>& files);

// One test of a record (tests[i] of `file`; `file` must outlive the view),
// parsed as collect_tests does: hplx lu's, and hplx hpl-mxp's, whose
// factorization keeps the same per-iteration record.
TestView test_view(const nlohmann::json& test, const RunFile& file, int i);

}  // namespace hplx::report
