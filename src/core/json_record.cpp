#include "core/json_record.hpp"

#include "core/atomic_file.hpp"
#include "core/system_info.hpp"

#include <fmt/format.h>

#include <ctime>

#ifndef HPLX_VERSION
#define HPLX_VERSION "unknown"
#endif

namespace hplx {

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

nlohmann::json make_record_header(const std::string& command,
                                  const std::vector<std::string>& argv) {
  return nlohmann::json{
      {"schema", kRecordSchema},
      {"schema_version", kRecordSchemaVersion},
      {"hplx_version", HPLX_VERSION},
      {"command", command},
      {"argv", argv},
      {"started_at", utc_timestamp()},
      {"machine", to_json(probe_system())},
  };
}

void write_json_atomically(const std::string& path, const nlohmann::json& record) {
  // Hostnames and argv may hold bytes that are not UTF-8; replacing them
  // beats losing the whole record to a serialisation error.
  write_text_atomically(
      path, record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace hplx
