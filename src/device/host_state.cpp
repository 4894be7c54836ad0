// The host's state for Backend::state(): what Linux tells of the CPUs this
// process may run on (/proc/cpuinfo's "cpu MHz") and of the package's
// temperature (the thermal zone of type x86_pkg_temp), where it tells.
#include <sched.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "device/backend.hpp"

namespace hplx::device {
namespace {

// The mean "cpu MHz" of the processors in this process's affinity mask; 0
// where /proc/cpuinfo gives none (some ARM kernels, containers).
double mean_mhz() {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  const bool masked = sched_getaffinity(0, sizeof mine, &mine) == 0;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  int processor = -1, count = 0;
  double sum = 0;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = line.substr(colon + 1);
    if (key == "processor") {
      processor = std::atoi(value.c_str());
    } else if (key == "cpu MHz" && processor >= 0 &&
               (!masked || (processor < CPU_SETSIZE && CPU_ISSET(processor, &mine)))) {
      sum += std::atof(value.c_str());
      ++count;
    }
  }
  return count > 0 ? sum / count : 0;
}

// The package's temperature in degrees C; < -273 where no zone gives it.
double package_celsius() {
  std::error_code ec;
  for (const auto& zone : std::filesystem::directory_iterator("/sys/class/thermal", ec)) {
    std::ifstream type(zone.path() / "type");
    std::string name;
    if (!(type >> name) || name != "x86_pkg_temp") continue;
    std::ifstream temp(zone.path() / "temp");
    long millidegrees = 0;
    if (temp >> millidegrees) return static_cast<double>(millidegrees) / 1000;
  }
  return -300;
}

}  // namespace

std::string host_state() {
  const double mhz = mean_mhz();
  const double celsius = package_celsius();
  std::string s = mhz > 0 ? fmt::format("CPU {:.0f} MHz", mhz) : "CPU";
  if (celsius > -273) s += fmt::format(", {:.0f} C", celsius);
  return s;
}

}  // namespace hplx::device
