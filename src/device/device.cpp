#include "device/device.hpp"

namespace hplx::device {

Device::Device(std::unique_ptr<Backend> backend)
    : backend_(std::move(backend)),
      compute_(backend_->make_queue()),
      transfer_(backend_->make_queue()),
      // Made last: the emulated and sim backends seed each queue's delays
      // by the order queues are made, and compute's and transfer's stay as
      // they were.
      panel_(backend_->make_queue(QueuePriority::High)) {}

std::shared_ptr<Device> make_device(BackendKind kind) {
  return std::make_shared<Device>(make_backend(kind));
}

}  // namespace hplx::device
