// The report's view of an `hplx tune` record (command "tune"): section
// "tune-<i>" with the choice, its files and notes, the predicted Gflops
// against NB (svg "tune-vs-nb-<i>": the model's, one line per grid and
// ranks per node, the simulated ones as larger dots) and against P x Q
// (svg "tune-vs-grid-<i>": the best over NB at each grid, the model's and
// the simulator's), and a table of what was simulated.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "report/run_record.hpp"

namespace hplx::report {

bool is_tune_record(const nlohmann::json& record);

// Throws UsageError naming the file and field for a malformed record.
std::string tune_section(const RunFile& file, int id);

}  // namespace hplx::report
