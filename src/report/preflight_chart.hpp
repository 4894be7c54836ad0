// A run's preflight in the report (hplx lu --preflight, core/node_probes.hpp):
// for each figure (DGEMM, memory, links) one dot per rank, the ranks in
// order and grouped by host (alternate hosts shaded), the median and the
// threshold below it drawn across, the ranks the preflight named in red
// and listed beneath.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hplx::report {

// The HTML of a record's "preflight" (a section: heading, sentence,
// charts, the slow ones); empty where the record has none. `id` tells
// the charts of several records apart.
std::string preflight_section(const nlohmann::json& record, int id);

}  // namespace hplx::report
