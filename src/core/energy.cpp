#include "core/energy.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

namespace hplx {

namespace {

// The first line of a sysfs file, or the reason it cannot be read.
bool read_line(const std::string& path, std::string& value, std::string& why) {
  errno = 0;
  std::ifstream in(path);
  if (!in) {
    why = fmt::format("{}: {}", path, std::strerror(errno != 0 ? errno : EIO));
    return false;
  }
  if (!std::getline(in, value)) {
    // Linux 5.10+ makes energy_uj readable by root only: opening works, the
    // read fails with EACCES.
    why = fmt::format("{}: {}", path, std::strerror(errno != 0 ? errno : EIO));
    return false;
  }
  return true;
}

bool read_counter(const std::string& path, unsigned long long& v, std::string& why) {
  std::string text;
  if (!read_line(path, text, why)) return false;
  try {
    v = std::stoull(text);
  } catch (const std::exception&) {
    why = fmt::format("{}: not a number: '{}'", path, text);
    return false;
  }
  return true;
}

}  // namespace

unsigned long long counter_delta(unsigned long long before, unsigned long long after,
                                 unsigned long long max_range) {
  if (after >= before) return after - before;
  return max_range >= before ? (max_range - before) + after : after;
}

PackageEnergy::PackageEnergy(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    why_not_ = fmt::format(
        "{} does not exist (the kernel has no powercap interface: usual in a virtual machine or "
        "a container without /sys/class)",
        root);
    return;
  }
  static const std::regex top_level(R"(intel-rapl:[0-9]+)");
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (std::regex_match(e.path().filename().string(), top_level)) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  std::string failure;
  for (const std::string& dir : dirs) {
    Zone z;
    z.dir = dir;
    std::string why;
    if (!read_line(dir + "/name", z.name, why) || z.name.rfind("package", 0) != 0) continue;
    unsigned long long v = 0;
    if (!read_counter(dir + "/max_energy_range_uj", z.max_range_uj, why) ||
        !read_counter(dir + "/energy_uj", v, why)) {
      if (failure.empty()) failure = why;
      continue;
    }
    zones_.push_back(z);
  }
  if (!failure.empty()) {
    // A package that cannot be read leaves the sum meaningless.
    zones_.clear();
    why_not_ = failure +
               (failure.find("Permission denied") != std::string::npos
                    ? " (since Linux 5.10 only root may read RAPL counters; an administrator can "
                      "allow it with chmod a+r on energy_uj)"
                    : "");
  } else if (zones_.empty()) {
    why_not_ = fmt::format(
        "{} has no intel-rapl package zone (the RAPL driver, intel_rapl_msr, is not loaded, or "
        "the CPU exposes none)",
        root);
  }
}

std::string PackageEnergy::describe() const {
  std::string s;
  for (const Zone& z : zones_)
    s += fmt::format("{}RAPL {} ({})", s.empty() ? "" : ", ", z.name,
                     std::filesystem::path(z.dir).filename().string());
  return s;
}

std::optional<std::vector<unsigned long long>> PackageEnergy::read() const {
  std::vector<unsigned long long> out;
  for (const Zone& z : zones_) {
    unsigned long long v = 0;
    std::string why;
    if (!read_counter(z.dir + "/energy_uj", v, why)) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

double PackageEnergy::joules_between(const std::vector<unsigned long long>& before,
                                     const std::vector<unsigned long long>& after) const {
  double uj = 0;
  for (std::size_t i = 0; i < zones_.size() && i < before.size() && i < after.size(); ++i)
    uj += static_cast<double>(counter_delta(before[i], after[i], zones_[i].max_range_uj));
  return uj * 1e-6;
}

}  // namespace hplx
