// Helpers of the MxP tests: a device per backend under test, and moving
// host vectors into and out of its buffers.
#pragma once

#include <memory>
#include <vector>

#include "device/device.hpp"
#include "tests/device/backends.hpp"

namespace hplx::mxp::test {

// A fixture parameterized over the compiled-in backends
// (HPLX_INSTANTIATE_OVER_BACKENDS).
class OnBackend : public testing::TestWithParam<device::BackendKind> {
 protected:
  void SetUp() override { dev_ = device::make_device(GetParam()); }
  device::Device& dev() { return *dev_; }
  device::Queue& q() { return dev_->compute(); }

 private:
  std::shared_ptr<device::Device> dev_;
};

template <class T>
device::Buffer<T> upload(device::Device& dev, const std::vector<T>& v) {
  device::Buffer<T> b = dev.alloc<T>(static_cast<long>(v.size()));
  device::copy(dev.compute(), b.data(), v.data(), static_cast<long>(v.size()));
  dev.compute().synchronize();
  return b;
}

template <class T>
std::vector<T> download(device::Device& dev, const T* p, long n) {
  std::vector<T> v(n);
  device::copy(dev.compute(), v.data(), p, n);
  dev.compute().synchronize();
  return v;
}

template <class T>
std::vector<T> download(device::Device& dev, const device::Buffer<T>& b) {
  return download(dev, b.data(), b.size());
}

}  // namespace hplx::mxp::test
