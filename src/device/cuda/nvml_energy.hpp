// A GPU's energy counter (and its clock, temperature and power) through NVML
// (nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver loaded, Volta and newer). NVML
// is opened with dlopen("libnvidia-ml.so.1") on the first reading instead of being linked, so hplx
// still starts where no NVIDIA driver is installed; every failure becomes the counter's `why_not`.
// Not yet run on a GPU (docs/GPU.md).
#pragma once

#include <string>

#include "core/energy.hpp"

namespace hplx::device {

class NvmlEnergy {
 public:
  // `pci_bus_id`: the CUDA device's (cudaDeviceGetPCIBusId), so NVML's
  // device is the same GPU whatever CUDA_VISIBLE_DEVICES renumbered.
  explicit NvmlEnergy(const std::string& pci_bus_id);
  ~NvmlEnergy();
  NvmlEnergy(const NvmlEnergy&) = delete;
  NvmlEnergy& operator=(const NvmlEnergy&) = delete;

  EnergyCounter read() const;
  // The GPU's SM clock, temperature and power now, e.g. "SM 1980 MHz, 41 C,
  // 118 W" (what NVML answers of the three; empty where it answers none).
  std::string state() const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;        // nvmlDevice_t
  void* total_energy_ = nullptr;  // nvmlDeviceGetTotalEnergyConsumption
  void* error_string_ = nullptr;  // nvmlErrorString
  bool initialised_ = false;
  std::string why_not_;
};

}  // namespace hplx::device
