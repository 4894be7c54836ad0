#include "model/machine_spec_path.hpp"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::model {

std::vector<std::string> machine_spec_candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("HPLX_MACHINE_SPEC"); env && *env) {
    out.emplace_back(env);
    return out;  // an explicit choice is the only candidate
  }
  out.emplace_back("machine.toml");
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    out.push_back(std::string(xdg) + "/hplx/machine.toml");
  else if (const char* home = std::getenv("HOME"); home && *home)
    out.push_back(std::string(home) + "/.config/hplx/machine.toml");
  return out;
}

std::string default_machine_spec_path() {
  const auto candidates = machine_spec_candidates();
  for (const auto& c : candidates)
    if (std::filesystem::is_regular_file(c)) return c;
  std::string looked;
  for (const auto& c : candidates) looked += (looked.empty() ? "" : ", ") + c;
  throw UsageError(fmt::format(
      "no calibrated machine spec found (looked at {}); allowed: a spec file, $HPLX_MACHINE_SPEC, "
      "or one written by `mpirun -n 2 hplx model calibrate -o ~/.config/hplx/machine.toml`",
      looked));
}

}  // namespace hplx::model
