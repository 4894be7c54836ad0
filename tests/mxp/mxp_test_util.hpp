// Helpers of the MxP tests: a device per backend under test, and moving
// host vectors into and out of its buffers.
#pragma once

#include <functional>
#include <memory>
#include <string>
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

// A host queue that answers backend() with the backend in disguise below
// (the MxP's dispatch asks the queue which backend it belongs to).
class DisguisedQueue final : public device::Queue {
 public:
  DisguisedQueue(device::Backend& outer, std::unique_ptr<device::Queue> inner)
      : outer_(outer), q_(std::move(inner)) {}
  device::Backend& backend() const override { return outer_; }
  bool runs_inline() const override { return q_->runs_inline(); }
  bool executes_on_host() const override { return q_->executes_on_host(); }
  void copy_bytes(void* dst, const void* src, std::size_t bytes) override {
    q_->copy_bytes(dst, src, bytes);
  }
  void copy_columns(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t col_bytes, long cols) override {
    q_->copy_columns(dst, dst_pitch, src, src_pitch, col_bytes, cols);
  }
  void execute(std::function<void()> work) override { q_->execute(std::move(work)); }
  void host_callback(std::function<void()> fn) override { q_->host_callback(std::move(fn)); }
  device::EventPtr record() override { return q_->record(); }
  device::EventPtr record_timed() override { return q_->record_timed(); }
  device::QueuePriority priority() const override { return q_->priority(); }
  void wait(const device::EventPtr& e) override { q_->wait(e); }
  void synchronize() override { q_->synchronize(); }
  void gemm(device::Trans ta, device::Trans tb, long m, long n, long k, double alpha,
            const double* a, long lda, const double* b, long ldb, double beta, double* c,
            long ldc) override {
    q_->gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm(device::Trans ta, device::Trans tb, long m, long n, long k, float alpha, const float* a,
            long lda, const float* b, long ldb, float beta, float* c, long ldc) override {
    q_->gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void trsm(device::Side side, device::Uplo uplo, device::Trans ta, device::Diag diag, long m,
            long n, double alpha, const double* a, long lda, double* b, long ldb) override {
    q_->trsm(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);
  }
  void trsm(device::Side side, device::Uplo uplo, device::Trans ta, device::Diag diag, long m,
            long n, float alpha, const float* a, long lda, float* b, long ldb) override {
    q_->trsm(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);
  }
  void gemv(device::Trans ta, long m, long n, double alpha, const double* a, long lda,
            const double* x, long incx, double beta, double* y, long incy) override {
    q_->gemv(ta, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  void gemv(device::Trans ta, long m, long n, float alpha, const float* a, long lda, const float* x,
            long incx, float beta, float* y, long incy) override {
    q_->gemv(ta, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  void gemm_mixed(device::Trans ta, device::Trans tb, long m, long n, long k, float alpha,
                  const device::Half* a, long lda, const device::Half* b, long ldb, float beta,
                  float* c, long ldc) override {
    q_->gemm_mixed(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm_mixed(device::Trans ta, device::Trans tb, long m, long n, long k, float alpha,
                  const device::BFloat16* a, long lda, const device::BFloat16* b, long ldb,
                  float beta, float* c, long ldc) override {
    q_->gemm_mixed(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm_tf32(device::Trans ta, device::Trans tb, long m, long n, long k, float alpha,
                 const float* a, long lda, const float* b, long ldb, float beta, float* c,
                 long ldc) override {
    q_->gemm_tf32(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }

 private:
  device::Backend& outer_;
  std::unique_ptr<device::Queue> q_;
};

// The host backend in disguise, for paths the host backend never takes: it
// reports `kind` (so the MxP's dispatch runs the portable kernel bodies
// when kind is not Host) and, with device_memory_host_accessible = false,
// says MPI cannot read its Device memory (so the halo stages through
// Pinned buffers). Memory and queues are the host backend's, so a missing
// copy or a wrong body shows as a wrong value, not a crash.
class DisguisedHost final : public device::Backend {
 public:
  DisguisedHost(device::BackendKind kind, bool device_memory_host_accessible)
      : host_(device::make_backend(device::BackendKind::Host)),
        kind_(kind),
        accessible_(device_memory_host_accessible) {}
  device::BackendKind kind() const override { return kind_; }
  std::string describe() const override { return "host in disguise (test)"; }
  bool host_accessible(device::MemorySpace space) const override {
    return accessible_ || space != device::MemorySpace::Device;
  }
  void* allocate(std::size_t bytes, device::MemorySpace space) override {
    return host_->allocate(bytes, space);
  }
  void deallocate(void* p, std::size_t bytes, device::MemorySpace space) noexcept override {
    host_->deallocate(p, bytes, space);
  }
  std::size_t free_device_bytes() const override { return host_->free_device_bytes(); }
  using device::Backend::make_queue;
  std::unique_ptr<device::Queue> make_queue(device::QueuePriority priority) override {
    return std::make_unique<DisguisedQueue>(*this, host_->make_queue(priority));
  }

 private:
  std::unique_ptr<device::Backend> host_;
  device::BackendKind kind_;
  bool accessible_;
};

}  // namespace hplx::mxp::test
