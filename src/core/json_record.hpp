// Versioned JSON run records. Every command that writes a machine-readable
// result starts from make_record_header() and adds its own fields, so tools
// reading the records can check "schema"/"schema_version" before trusting
// the rest. Files are written atomically: a reader (or a run that died
// half-way) never sees a partial record.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace hplx {

inline constexpr const char* kRecordSchema = "hplx.run";
// Bump when a field changes meaning or is removed; adding fields does not.
// 2: hplx lu tests carry "iterations" and "balance_point" (docs/REPORT.md).
inline constexpr int kRecordSchemaVersion = 2;

// {"schema", "schema_version", "hplx_version", "command", "argv",
//  "started_at" (ISO-8601 UTC, e.g. "2024-05-01T12:34:56Z"),
//  "machine" (to_json(probe_system()))}.
nlohmann::json make_record_header(const std::string& command, const std::vector<std::string>& argv);

// The current time as ISO-8601 UTC with second resolution.
std::string utc_timestamp();

// Writes `record` (indented, trailing newline) with write_text_atomically
// (core/atomic_file.hpp). Throws SystemError naming the path on failure.
void write_json_atomically(const std::string& path, const nlohmann::json& record);

}  // namespace hplx
