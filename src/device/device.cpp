#include "device/device.hpp"

namespace hplx::device {

Device::Device(std::unique_ptr<Backend> backend)
    : backend_(std::move(backend)),
      compute_(backend_->make_queue()),
      transfer_(backend_->make_queue()) {}

std::shared_ptr<Device> make_device(BackendKind kind) {
  return std::make_shared<Device>(make_backend(kind));
}

}  // namespace hplx::device
