// A growable array in a backend's Host memory, for host-side MPI staging
// that carries matrix rows (the LU's row swap): std::vector's role, but
// placed by the device layer's implementation, so that a simulated backend
// can put it where message copies cost nothing (device/sim/), and not
// initialised, since MPI fills it.
//
// resize() keeps the capacity it had and does not keep the contents when it
// has to grow.
#pragma once

#include <cstddef>

#include "device/buffer.hpp"

namespace hplx::device {

template <class T>
class HostArray {
 public:
  HostArray() = default;
  void bind(Backend& backend) {
    if (backend_ == &backend) return;
    *this = HostArray();
    backend_ = &backend;
  }
  void resize(std::size_t count) {
    if (count > capacity_) {
      buffer_ = Buffer<T>(*backend_, static_cast<long>(count), MemorySpace::Host);
      capacity_ = count;
    }
    size_ = count;
  }
  T* data() { return buffer_.data(); }
  const T* data() const { return buffer_.data(); }
  std::size_t size() const { return size_; }

 private:
  Backend* backend_ = nullptr;
  Buffer<T> buffer_;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace hplx::device
