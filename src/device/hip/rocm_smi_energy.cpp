#include "device/hip/rocm_smi_energy.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

namespace hplx::device {

namespace {

// The few ROCm SMI calls used, as rocm_smi.h declares them (a C ABI).
using Status = int;  // rsmi_status_t; 0 = RSMI_STATUS_SUCCESS
using InitFn = Status (*)(std::uint64_t);
using ShutDownFn = Status (*)();
using CountFn = Status (*)(std::uint32_t*);
using PciIdFn = Status (*)(std::uint32_t, std::uint64_t*);
using EnergyFn = Status (*)(std::uint32_t, std::uint64_t*, float*, std::uint64_t*);
using TemperatureFn = Status (*)(std::uint32_t, std::uint32_t, int, std::int64_t*);
using PowerFn = Status (*)(std::uint32_t, std::uint32_t, std::uint64_t*);
constexpr std::uint32_t kTempEdge = 0;  // RSMI_TEMP_TYPE_EDGE
constexpr int kTempCurrent = 0;         // RSMI_TEMP_CURRENT

// SMI's BDF id: domain << 32 | bus << 8 | device << 3 | function.
std::uint64_t bdf_id(int domain, int bus, int device) {
  return (static_cast<std::uint64_t>(domain) << 32) |
         ((static_cast<std::uint64_t>(bus) & 0xff) << 8) |
         ((static_cast<std::uint64_t>(device) & 0x1f) << 3);
}

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

}  // namespace

RocmSmiEnergy::RocmSmiEnergy(int domain, int bus, int device) {
  for (const char* name : {"librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6",
                           "librocm_smi64.so.5", "librocm_smi64.so.1"}) {
    library_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library_ != nullptr) break;
  }
  if (library_ == nullptr) {
    why_not_ = "ROCm SMI: cannot load librocm_smi64.so (no ROCm SMI library installed)";
    return;
  }
  auto init = symbol<InitFn>(library_, "rsmi_init");
  auto count = symbol<CountFn>(library_, "rsmi_num_monitor_devices");
  auto pci_id = symbol<PciIdFn>(library_, "rsmi_dev_pci_id_get");
  if (!init || !count || !pci_id || !symbol<EnergyFn>(library_, "rsmi_dev_energy_count_get")) {
    why_not_ =
        "ROCm SMI: librocm_smi64 lacks rsmi_init, rsmi_num_monitor_devices, rsmi_dev_pci_id_get "
        "or rsmi_dev_energy_count_get";
    return;
  }
  if (const Status s = init(0); s != 0) {
    why_not_ = fmt::format("ROCm SMI: rsmi_init: status {}", s);
    return;
  }
  initialised_ = true;
  std::uint32_t devices = 0;
  if (const Status s = count(&devices); s != 0) {
    why_not_ = fmt::format("ROCm SMI: rsmi_num_monitor_devices: status {}", s);
    return;
  }
  // The function bits of SMI's id are not in HIP's properties: compare without them.
  const std::uint64_t want = bdf_id(domain, bus, device);
  for (std::uint32_t i = 0; i < devices; ++i) {
    std::uint64_t id = 0;
    if (pci_id(i, &id) == 0 && (id & ~std::uint64_t{7}) == want) {
      index_ = i;
      found_ = true;
      return;
    }
  }
  why_not_ = fmt::format("ROCm SMI: no device at PCI {:04x}:{:02x}:{:02x}", domain, bus, device);
}

RocmSmiEnergy::~RocmSmiEnergy() {
  if (initialised_)
    if (auto shut_down = symbol<ShutDownFn>(library_, "rsmi_shut_down")) shut_down();
  if (library_ != nullptr) dlclose(library_);
}

EnergyCounter RocmSmiEnergy::read() const {
  if (!found_) return {std::nullopt, why_not_};
  std::uint64_t counter = 0, timestamp = 0;
  float resolution = 0;
  const Status s = symbol<EnergyFn>(library_, "rsmi_dev_energy_count_get")(index_, &counter,
                                                                           &resolution, &timestamp);
  if (s != 0)
    return {std::nullopt, fmt::format("ROCm SMI: rsmi_dev_energy_count_get: status {}", s)};
  return {static_cast<double>(counter) * resolution * 1e-6, {}};  // microjoules to joules
}

std::string RocmSmiEnergy::state() const {
  if (!found_) return {};
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  std::int64_t millidegrees = 0;
  if (auto f = symbol<TemperatureFn>(library_, "rsmi_dev_temp_metric_get"))
    if (f(index_, kTempEdge, kTempCurrent, &millidegrees) == 0)
      add(fmt::format("{} C", millidegrees / 1000));
  std::uint64_t microwatts = 0;
  if (auto f = symbol<PowerFn>(library_, "rsmi_dev_power_ave_get"))
    if (f(index_, 0, &microwatts) == 0) add(fmt::format("{:.0f} W", microwatts / 1e6));
  return s;
}

}  // namespace hplx::device
