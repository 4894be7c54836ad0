// Host work on a rank's own buffers, through the device layer: done where
// the backend's buffers hold data, charged where they do not (a simulated
// backend's: Backend::holds_data, Backend::charge). The LU's phases call it
// instead of asking whether they run on a simulation.
#pragma once

#include <utility>

#include "device/backend.hpp"

namespace hplx::device {

template <class Work>
void on_host(Backend& backend, const HostPass& pass, Work&& work) {
  if (backend.holds_data())
    std::forward<Work>(work)();
  else
    backend.charge(pass);
}

}  // namespace hplx::device
