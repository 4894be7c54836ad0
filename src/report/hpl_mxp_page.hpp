// The report's view of an `hplx hpl-mxp --json` record (command "hpl-mxp"):
// per test, section "hplmxp-<i>" (i counting hpl-mxp tests over all files)
// with the score and verdict, the phases (convert, FP32 LU, solve,
// refinement) as one stacked bar (svg "hplmxp-phases-<i>"), the per-panel
// times of the factorization (FACT, LBCAST, UPDATE; svg "hplmxp-panels-<i>"),
// the LU's per-iteration record with its balance point where the test has
// one (svg "breakdown-hplmxp-<i>"),
// the refinement's check per restart cycle and GMRES's estimate per
// iteration on a log scale (svg "hplmxp-refinement-<i>"), the comparison
// with HPL (`--compare-hpl`) when the test has one, and a parameter table.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "report/run_record.hpp"

namespace hplx::report {

// Is this record from `hplx hpl-mxp`?
bool is_hpl_mxp_record(const nlohmann::json& record);

// The record's tests: its "tests" array, or, in records written before
// there was one, its single "result".
std::vector<const nlohmann::json*> hpl_mxp_tests(const nlohmann::json& record);

// The sections of one record's tests; `first_id` numbers the first one.
// Throws UsageError naming the file and field for a malformed test.
std::string hpl_mxp_sections(const RunFile& file, int first_id);

}  // namespace hplx::report
