#include "device/cuda/nvml_energy.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

namespace hplx::device {

namespace {

// The few NVML types used, as nvml.h declares them (its ABI is stable).
using NvmlReturn = int;  // nvmlReturn_t; 0 = NVML_SUCCESS
using NvmlDevice = void*;
using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using ByPciFn = NvmlReturn (*)(const char*, NvmlDevice*);
using EnergyFn = NvmlReturn (*)(NvmlDevice, unsigned long long*);
using ErrorStringFn = const char* (*)(NvmlReturn);
using ClockFn = NvmlReturn (*)(NvmlDevice, int, unsigned*);        // nvmlDeviceGetClockInfo
using TemperatureFn = NvmlReturn (*)(NvmlDevice, int, unsigned*);  // nvmlDeviceGetTemperature
using PowerFn = NvmlReturn (*)(NvmlDevice, unsigned*);             // nvmlDeviceGetPowerUsage
constexpr int kClockSm = 1;                                        // NVML_CLOCK_SM
constexpr int kTemperatureGpu = 0;                                 // NVML_TEMPERATURE_GPU

}  // namespace

NvmlEnergy::NvmlEnergy(const std::string& pci_bus_id) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* e = dlerror();
    why_not_ = fmt::format("NVML: cannot load libnvidia-ml.so.1 ({})", e ? e : "unknown");
    return;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(library_, "nvmlInit_v2"));
  auto by_pci = reinterpret_cast<ByPciFn>(dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  total_energy_ = dlsym(library_, "nvmlDeviceGetTotalEnergyConsumption");
  error_string_ = dlsym(library_, "nvmlErrorString");
  if (!init || !by_pci || !total_energy_) {
    why_not_ =
        "NVML: libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or "
        "nvmlDeviceGetTotalEnergyConsumption (driver too old)";
    return;
  }
  auto text = [&](NvmlReturn r) {
    auto f = reinterpret_cast<ErrorStringFn>(error_string_);
    return f ? std::string(f(r)) : fmt::format("error {}", r);
  };
  if (const NvmlReturn r = init(); r != 0) {
    why_not_ = "NVML: nvmlInit_v2: " + text(r);
    return;
  }
  initialised_ = true;
  if (pci_bus_id.empty()) {
    why_not_ = "NVML: the CUDA device's PCI bus id is not known";
    return;
  }
  NvmlDevice dev = nullptr;
  if (const NvmlReturn r = by_pci(pci_bus_id.c_str(), &dev); r != 0) {
    why_not_ = fmt::format("NVML: no device at PCI bus id {}: {}", pci_bus_id, text(r));
    return;
  }
  device_ = dev;
}

NvmlEnergy::~NvmlEnergy() {
  if (initialised_)
    if (auto shutdown = reinterpret_cast<ShutdownFn>(dlsym(library_, "nvmlShutdown"))) shutdown();
  if (library_ != nullptr) dlclose(library_);
}

EnergyCounter NvmlEnergy::read() const {
  if (device_ == nullptr) return {std::nullopt, why_not_};
  unsigned long long mj = 0;
  const NvmlReturn r = reinterpret_cast<EnergyFn>(total_energy_)(device_, &mj);
  if (r != 0) {
    auto f = reinterpret_cast<ErrorStringFn>(error_string_);
    return {std::nullopt, "NVML: nvmlDeviceGetTotalEnergyConsumption: " +
                              (f ? std::string(f(r)) : std::to_string(r))};
  }
  return {static_cast<double>(mj) * 1e-3, {}};
}

std::string NvmlEnergy::state() const {
  if (device_ == nullptr) return {};
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  unsigned value = 0;
  if (auto f = reinterpret_cast<ClockFn>(dlsym(library_, "nvmlDeviceGetClockInfo")))
    if (f(device_, kClockSm, &value) == 0) add(fmt::format("SM {} MHz", value));
  if (auto f = reinterpret_cast<TemperatureFn>(dlsym(library_, "nvmlDeviceGetTemperature")))
    if (f(device_, kTemperatureGpu, &value) == 0) add(fmt::format("{} C", value));
  if (auto f = reinterpret_cast<PowerFn>(dlsym(library_, "nvmlDeviceGetPowerUsage")))
    if (f(device_, &value) == 0) add(fmt::format("{:.0f} W", value / 1000.0));
  return s;
}

}  // namespace hplx::device
