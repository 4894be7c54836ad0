// A host buffer and its twin in Device memory, for data that host code
// writes or MPI moves and queue work reads, or the other way round: the
// LU's panel (FACT and LBCAST on the host, UPDATE on the queue), the row
// swap's row lists and message buffers, U.
//
// When the backend's Device memory is host accessible (the host backend)
// both sides are the same memory and to_device()/to_host() do nothing, so a
// schedule written with mirrors costs nothing there. Otherwise the host side
// is Pinned memory and the copies are queue operations, ordered like any
// other: the host reads what to_host() brought only after synchronizing the
// queue, and must not write the host side until a pending to_device() has
// been passed. A mirror bound to no backend is host memory only (tests that
// build a panel by hand).
//
// resize() keeps the capacity it had (the buffers are reused iteration
// after iteration) and does not keep the contents when it has to grow.
#pragma once

#include <algorithm>
#include <vector>

#include "device/buffer.hpp"
#include "device/queue.hpp"

namespace hplx::device {

template <class T>
class Mirror {
 public:
  Mirror() = default;
  explicit Mirror(Backend& backend) : backend_(&backend) {}

  // Binds the mirror to `backend`; another backend than the one it has
  // drops its contents.
  void bind(Backend& backend) {
    if (backend_ != &backend) *this = Mirror(backend);
  }
  bool aliased() const {
    return backend_ == nullptr || backend_->host_accessible(MemorySpace::Device);
  }
  // Whether its sides hold data (Backend::holds_data).
  bool holds_data() const { return backend_ == nullptr || backend_->holds_data(); }

  void resize(long count) {
    if (count > capacity_) grow(count);
    size_ = count;
  }
  void assign(long count, const T& value) {
    resize(count);
    std::fill_n(data(), count, value);
  }

  // The host side.
  T* data() { return host_ptr(); }
  const T* data() const { return const_cast<Mirror*>(this)->host_ptr(); }
  long size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](long i) { return data()[i]; }
  const T& operator[](long i) const { return data()[i]; }

  // The Device side (the host side itself when aliased).
  T* device() { return backend_ ? dev_.data() : plain_.data(); }
  const T* device() const { return const_cast<Mirror*>(this)->device(); }

  // Queue copies of elements [first, first + count) (count < 0: to the end).
  void to_device(Queue& q, long first = 0, long count = -1) {
    if (!aliased()) copy(q, device() + first, data() + first, span(first, count));
  }
  void to_host(Queue& q, long first = 0, long count = -1) {
    if (!aliased()) copy(q, data() + first, device() + first, span(first, count));
  }

 private:
  long span(long first, long count) const { return count < 0 ? size_ - first : count; }
  T* host_ptr() {
    if (backend_ == nullptr) return plain_.data();
    return aliased() ? dev_.data() : host_.data();
  }
  void grow(long count) {
    if (backend_ == nullptr) {
      plain_.resize(static_cast<std::size_t>(count));
    } else {
      dev_ = Buffer<T>(*backend_, count, MemorySpace::Device);
      if (!aliased()) host_ = Buffer<T>(*backend_, count, MemorySpace::Pinned);
    }
    capacity_ = count;
  }

  Backend* backend_ = nullptr;
  std::vector<T> plain_;  // no backend
  Buffer<T> dev_, host_;  // host_ only when Device memory is not host accessible
  long size_ = 0, capacity_ = 0;
};

}  // namespace hplx::device
