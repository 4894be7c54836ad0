// Energy a test used, where the machine exposes it: the CPU packages'
// counters of the Linux powercap interface (RAPL, /sys/class/powercap/
// intel-rapl:N/energy_uj, which also serves AMD CPUs), read before and
// after the solve; a device backend adds its own counter (the CUDA backend
// NVML's total energy, device/backend.hpp). Where a counter cannot be read
// the reason is kept word for word ("not available on this machine: ..."),
// because "no energy" alone does not tell a site what to fix.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hplx {

// A cumulative counter in joules (a device's), or why there is none.
struct EnergyCounter {
  std::optional<double> joules;
  std::string why_not;
};

// The difference of a counter that wraps to 0 after `max_range` (RAPL's
// max_energy_range_uj), assuming at most one wrap between the readings.
unsigned long long counter_delta(unsigned long long before, unsigned long long after,
                                 unsigned long long max_range);

// The package zones of this node's RAPL powercap interface.
class PackageEnergy {
 public:
  // Looks under `root` (a test gives a fake tree) for top-level zones
  // intel-rapl:N whose name is package-*, and reads each counter once.
  explicit PackageEnergy(const std::string& root = "/sys/class/powercap");

  bool available() const { return !zones_.empty(); }
  // Why not available, e.g. "/sys/class/powercap does not exist (...)".
  const std::string& why_not() const { return why_not_; }
  // "RAPL package-0 (intel-rapl:0)" and so on, comma-separated.
  std::string describe() const;

  // One reading per zone, in microjoules; empty if any counter failed.
  std::optional<std::vector<unsigned long long>> read() const;
  // Joules used between two readings (each zone's wrap handled).
  double joules_between(const std::vector<unsigned long long>& before,
                        const std::vector<unsigned long long>& after) const;

 private:
  struct Zone {
    std::string dir, name;
    unsigned long long max_range_uj = 0;
  };
  std::vector<Zone> zones_;
  std::string why_not_;
};

}  // namespace hplx
