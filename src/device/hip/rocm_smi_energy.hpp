// An AMD GPU's energy counter (and its temperature and power) through the
// ROCm SMI library (rsmi_dev_energy_count_get: the accumulated energy in
// units of its counter's resolution, microjoules once multiplied). Opened
// with dlopen on the first reading instead of being linked, so hplx still
// starts where no ROCm driver stack is installed; every failure becomes the
// counter's `why_not`. Never run on an AMD GPU (docs/GPU.md).
#pragma once

#include <cstdint>
#include <string>

#include "core/energy.hpp"

namespace hplx::device {

class RocmSmiEnergy {
 public:
  // The HIP device's PCI address (hipDeviceProp_t's pciDomainID, pciBusID,
  // pciDeviceID), so that SMI's device is the same GPU whatever
  // HIP_VISIBLE_DEVICES renumbered.
  RocmSmiEnergy(int domain, int bus, int device);
  ~RocmSmiEnergy();
  RocmSmiEnergy(const RocmSmiEnergy&) = delete;
  RocmSmiEnergy& operator=(const RocmSmiEnergy&) = delete;

  EnergyCounter read() const;
  // The GPU's temperature and average power now, e.g. "41 C, 118 W" (what
  // SMI answers of the two; empty where it answers neither).
  std::string state() const;

 private:
  void* library_ = nullptr;
  std::uint32_t index_ = 0;  // SMI's device index
  bool found_ = false;
  bool initialised_ = false;
  std::string why_not_;
};

}  // namespace hplx::device
