// A typed allocation in one memory space of a backend, freed with it.
#pragma once

#include <cstddef>
#include <utility>

#include "device/backend.hpp"

namespace hplx::device {

template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(Backend& backend, long count, MemorySpace space = MemorySpace::Device)
      : backend_(&backend), count_(count), space_(space) {
    if (count > 0) data_ = static_cast<T*>(backend.allocate(bytes(), space));
  }
  Buffer(Buffer&& o) noexcept { swap(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    Buffer(std::move(o)).swap(*this);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (data_) backend_->deallocate(data_, bytes(), space_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  long size() const { return count_; }
  MemorySpace space() const { return space_; }
  Backend* backend() const { return backend_; }
  std::size_t bytes() const { return sizeof(T) * static_cast<std::size_t>(count_); }
  bool host_accessible() const { return backend_ && backend_->host_accessible(space_); }

  void swap(Buffer& o) noexcept {
    std::swap(backend_, o.backend_);
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    std::swap(space_, o.space_);
  }

 private:
  Backend* backend_ = nullptr;
  T* data_ = nullptr;
  long count_ = 0;
  MemorySpace space_ = MemorySpace::Device;
};

}  // namespace hplx::device
