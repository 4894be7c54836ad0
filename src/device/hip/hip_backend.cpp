#include "device/hip/hip_backend.hpp"

#include <hip/hip_runtime.h>
#include <rocblas/rocblas.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <functional>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/blas_forwarding.hpp"
#include "device/device_errors.hpp"
#include "device/gpu/gpu_common.hpp"
#include "device/hip/rocm_smi_energy.hpp"
#include "device/host/host_backend.hpp"

namespace hplx::device {

namespace {

// Errors a kernel leaves for later calls to report (the context is lost
// after them): the call that sees one is rarely the one that caused it.
bool from_earlier_work(hipError_t e) {
  switch (e) {
    case hipErrorIllegalAddress:
    case hipErrorLaunchFailure:
    case hipErrorAssert:
    case hipErrorLaunchTimeOut:
      return true;
    default:
      return false;
  }
}

// A destructor's HIP call: its error is said on stderr, never thrown.
void log_hip(hipError_t status, const char* what) noexcept {
  if (status != hipSuccess) log_dropped_error("HIP", what, hipGetErrorString(status));
}

// rocBLAS 5.5 takes 32-bit sizes (rocblas_int): a larger one is refused by
// name, never truncated.
rocblas_int blas_int(long v, const char* name, const char* what) {
  if (v > INT_MAX || v < INT_MIN)
    throw Error(fmt::format("{}: {} = {} exceeds rocBLAS's 32-bit sizes (at most {})", what, name,
                            v, INT_MAX));
  return static_cast<rocblas_int>(v);
}

}  // namespace

void check_gpu(int status, const char* what) {
  if (status == 0) return;
  const auto e = static_cast<hipError_t>(status);
  // As on CUDA: a failed call's error stays as the thread's last error and
  // a later launch's hipGetLastError would report it as its own.
  (void)hipGetLastError();
  throw Error(device_error_message(
      "HIP", what, fmt::format("{} ({})", hipGetErrorString(e), status), from_earlier_work(e)));
}

void check_device_work(void* stream, const char* what) {
  if (!device_sync_mode()) return;
  check_gpu(hipStreamSynchronize(static_cast<hipStream_t>(stream)), what);
  check_gpu(hipGetLastError(), what);
}

namespace {

void check_rocblas(rocblas_status status, const char* what) {
  if (status != rocblas_status_success)
    throw Error(device_error_message(
        "rocBLAS", what,
        fmt::format("{} ({})", rocblas_status_to_string(status), static_cast<int>(status)), false));
}

rocblas_operation op(Trans t) {
  return t == Trans::No ? rocblas_operation_none : rocblas_operation_transpose;
}
rocblas_side side_of(Side s) {
  return s == Side::Left ? rocblas_side_left : rocblas_side_right;
}
rocblas_fill fill(Uplo u) {
  return u == Uplo::Lower ? rocblas_fill_lower : rocblas_fill_upper;
}
rocblas_diagonal diag_of(Diag d) {
  return d == Diag::Unit ? rocblas_diagonal_unit : rocblas_diagonal_non_unit;
}

// The HPLX_UPDATE_SMS knob of the CUDA backend has no rocBLAS counterpart.
void refuse_update_sms() {
  const char* v = std::getenv("HPLX_UPDATE_SMS");
  if (v != nullptr && *v != '\0' && std::string(v) != "0")
    throw UsageError(fmt::format(
        "HPLX_UPDATE_SMS={}: the hip backend cannot confine rocBLAS to some compute units; "
        "allowed: unset or 0",
        v));
}

// What the HIP backend counts (DeviceCounters), as the CUDA one does.
struct HipCounts {
  std::atomic<long> allocations{0}, host_waits{0};
};

class HipEvent final : public Event {
 public:
  HipEvent(hipStream_t stream, bool timed, HipCounts& counts) : timed_(timed), counts_(counts) {
    check_gpu(hipEventCreateWithFlags(&event_, timed ? hipEventDefault : hipEventDisableTiming),
              "hipEventCreateWithFlags");
    check_gpu(hipEventRecord(event_, stream), "hipEventRecord");
  }
  ~HipEvent() override { log_hip(hipEventDestroy(event_), "hipEventDestroy"); }
  bool done() const override { return hipEventQuery(event_) == hipSuccess; }
  void synchronize() override {
    ++counts_.host_waits;
    check_gpu(hipEventSynchronize(event_), "hipEventSynchronize");
  }
  double seconds_until(const Event& later) const override {
    const auto& e = dynamic_cast<const HipEvent&>(later);
    if (!timed_ || !e.timed_) throw_untimed_event("hip");
    float ms = 0;
    check_gpu(hipEventElapsedTime(&ms, event_, e.event_), "hipEventElapsedTime");
    return ms / 1e3;
  }
  hipEvent_t get() const { return event_; }

 private:
  hipEvent_t event_ = nullptr;
  bool timed_;
  HipCounts& counts_;
};

class HipQueue final : public BlasForwarding<HipQueue> {
 public:
  // Normal: the device's least stream priority; High: its greatest.
  // Non-blocking: never ordered with the null stream.
  HipQueue(Backend& b, QueuePriority priority, HipCounts& counts)
      : backend_(b), priority_(priority), counts_(counts) {
    int least = 0, greatest = 0;
    check_gpu(hipDeviceGetStreamPriorityRange(&least, &greatest),
              "hipDeviceGetStreamPriorityRange");
    check_gpu(hipStreamCreateWithPriority(&stream_, hipStreamNonBlocking,
                                          priority == QueuePriority::High ? greatest : least),
              "hipStreamCreateWithPriority");
    check_rocblas(rocblas_create_handle(&blas_), "rocblas_create_handle");
    check_rocblas(rocblas_set_stream(blas_, stream_), "rocblas_set_stream");
    check_gpu(
        hipMalloc(reinterpret_cast<void**>(&reduce_.partials), kReduceBlocks * sizeof(double)),
        "hipMalloc");
    check_gpu(hipHostMalloc(reinterpret_cast<void**>(&reduce_.result), sizeof(double)),
              "hipHostMalloc");
  }
  ~HipQueue() override {
    log_hip(hipStreamSynchronize(stream_), "hipStreamSynchronize of a queue going away");
    log_hip(hipFree(reduce_.partials), "hipFree");
    log_hip(hipHostFree(reduce_.result), "hipHostFree");
    if (const rocblas_status s = rocblas_destroy_handle(blas_); s != rocblas_status_success)
      log_dropped_error("rocBLAS", "rocblas_destroy_handle", rocblas_status_to_string(s));
    log_hip(hipStreamDestroy(stream_), "hipStreamDestroy");
  }
  QueuePriority priority() const override { return priority_; }
  void set_blas_sms(int sms) override {
    if (sms > 0)
      throw UsageError(fmt::format(
          "--update-sms {}: the hip backend cannot confine rocBLAS to some compute units; "
          "allowed: 0 (every unit)",
          sms));
  }
  Backend& backend() const override { return backend_; }
  bool runs_inline() const override { return false; }
  bool executes_on_host() const override { return false; }
  hipStream_t stream() const { return stream_; }
  ReduceScratch reduce_scratch() const { return reduce_; }

  void copy_bytes(void* dst, const void* src, std::size_t bytes) override {
    if (bytes == 0 || dst == src) return;
    check_gpu(hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, stream_), "hipMemcpyAsync");
  }
  void copy_columns(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t col_bytes, long cols) override {
    if (cols <= 0 || col_bytes == 0) return;
    check_gpu(hipMemcpy2DAsync(dst, dst_pitch, src, src_pitch, col_bytes,
                               static_cast<std::size_t>(cols), hipMemcpyDefault, stream_),
              "hipMemcpy2DAsync");
  }
  void execute(std::function<void()>) override {
    throw Error(
        "the HIP backend runs kernel bodies on the GPU (launch.hpp); host work on its queue "
        "goes through host_callback()");
  }
  void host_callback(std::function<void()> fn) override {
    auto* work = new std::function<void()>(std::move(fn));
    const hipError_t status = hipLaunchHostFunc(
        stream_,
        [](void* p) {
          auto* f = static_cast<std::function<void()>*>(p);
          (*f)();
          delete f;
        },
        work);
    if (status != hipSuccess) delete work;
    check_gpu(status, "hipLaunchHostFunc");
  }
  EventPtr record() override { return std::make_shared<HipEvent>(stream_, false, counts_); }
  EventPtr record_timed() override { return std::make_shared<HipEvent>(stream_, true, counts_); }
  void wait(const EventPtr& e) override {
    const auto* he = dynamic_cast<const HipEvent*>(e.get());
    if (he == nullptr) throw Error("HIP queue: wait() on an event of another backend");
    check_gpu(hipStreamWaitEvent(stream_, he->get(), 0), "hipStreamWaitEvent");
  }
  void synchronize() override {
    ++counts_.host_waits;
    check_gpu(hipStreamSynchronize(stream_), "hipStreamSynchronize");
  }

  // rocBLAS (blas_forwarding.hpp); the routines' zero-size rules as BLAS
  // has them (scale_block, scale_vector below).
  template <class T>
  void gemm_t(Trans ta, Trans tb, long m, long n, long k, T alpha, const T* a, long lda, const T* b,
              long ldb, T beta, T* c, long ldc) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) return scale_block(m, n, beta, c, ldc);
    const char* what = std::is_same_v<T, double> ? "rocblas_dgemm" : "rocblas_sgemm";
    const rocblas_int im = blas_int(m, "m", what), in = blas_int(n, "n", what),
                      ik = blas_int(k, "k", what), ia = blas_int(lda, "lda", what),
                      ib = blas_int(ldb, "ldb", what), ic = blas_int(ldc, "ldc", what);
    if constexpr (std::is_same_v<T, double>)
      blas(rocblas_dgemm(blas_, op(ta), op(tb), im, in, ik, &alpha, a, ia, b, ib, &beta, c, ic),
           what);
    else
      blas(rocblas_sgemm(blas_, op(ta), op(tb), im, in, ik, &alpha, a, ia, b, ib, &beta, c, ic),
           what);
  }
  template <class T>
  void trsm_t(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, T alpha, const T* a,
              long lda, T* b, long ldb) {
    if (m <= 0 || n <= 0) return;
    const char* what = std::is_same_v<T, double> ? "rocblas_dtrsm" : "rocblas_strsm";
    const rocblas_int im = blas_int(m, "m", what), in = blas_int(n, "n", what),
                      ia = blas_int(lda, "lda", what), ib = blas_int(ldb, "ldb", what);
    if constexpr (std::is_same_v<T, double>)
      blas(rocblas_dtrsm(blas_, side_of(side), fill(uplo), op(ta), diag_of(diag), im, in, &alpha, a,
                         ia, b, ib),
           what);
    else
      blas(rocblas_strsm(blas_, side_of(side), fill(uplo), op(ta), diag_of(diag), im, in, &alpha, a,
                         ia, b, ib),
           what);
  }
  template <class T>
  void gemv_t(Trans ta, long m, long n, T alpha, const T* a, long lda, const T* x, long incx,
              T beta, T* y, long incy) {
    if ((ta == Trans::No ? m : n) <= 0) return;
    if ((ta == Trans::No ? n : m) <= 0) return scale_vector(ta == Trans::No ? m : n, beta, y, incy);
    const char* what = std::is_same_v<T, double> ? "rocblas_dgemv" : "rocblas_sgemv";
    const rocblas_int im = blas_int(m, "m", what), in = blas_int(n, "n", what),
                      ia = blas_int(lda, "lda", what), ix = blas_int(incx, "incx", what),
                      iy = blas_int(incy, "incy", what);
    if constexpr (std::is_same_v<T, double>)
      blas(rocblas_dgemv(blas_, op(ta), im, in, &alpha, a, ia, x, ix, &beta, y, iy), what);
    else
      blas(rocblas_sgemv(blas_, op(ta), im, in, &alpha, a, ia, x, ix, &beta, y, iy), what);
  }
  // FP16 and BF16 operands through rocblas_gemm_ex with FP32 products and
  // sums; TF32 (operands stored as float) is an FP32 GEMM: rocBLAS 5.5 has
  // no TF32 (MI300's XF32 is hipBLASLt's).
  template <class L>
  void gemm_mixed_t(Trans ta, Trans tb, long m, long n, long k, float alpha, const L* a, long lda,
                    const L* b, long ldb, float beta, float* c, long ldc) {
    if constexpr (std::is_same_v<L, float>)
      gemm_t<float>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
      gemm_ex(ta, tb, m, n, k, alpha, a, b,
              std::is_same_v<L, Half> ? rocblas_datatype_f16_r : rocblas_datatype_bf16_r, lda, ldb,
              beta, c, ldc);
  }

 private:
  // A product with nothing to sum leaves beta times the output, and beta = 0
  // clears it, NaN included (BLAS's rule, which the host backend follows).
  template <class T>
  void scale_vector(long len, T beta, T* y, long incy) {
    if (beta == T(1)) return;
    if (beta == T(0)) {
      check_gpu(hipMemset2DAsync(y, static_cast<std::size_t>(incy) * sizeof(T), 0, sizeof(T),
                                 static_cast<std::size_t>(len), stream_),
                "hipMemset2DAsync");
      return;
    }
    const char* what = std::is_same_v<T, double> ? "rocblas_dscal" : "rocblas_sscal";
    const rocblas_int il = blas_int(len, "n", what), iy = blas_int(incy, "incx", what);
    if constexpr (std::is_same_v<T, double>)
      blas(rocblas_dscal(blas_, il, &beta, y, iy), what);
    else
      blas(rocblas_sscal(blas_, il, &beta, y, iy), what);
  }
  template <class T>
  void scale_block(long m, long n, T beta, T* c, long ldc) {
    if (beta == T(1)) return;
    if (beta == T(0)) {
      check_gpu(hipMemset2DAsync(c, static_cast<std::size_t>(ldc) * sizeof(T), 0, m * sizeof(T),
                                 static_cast<std::size_t>(n), stream_),
                "hipMemset2DAsync");
      return;
    }
    const T zero = 0;  // C = beta C + 0 C, in place (geam allows C = A with ldc = lda)
    const char* what = std::is_same_v<T, double> ? "rocblas_dgeam" : "rocblas_sgeam";
    const rocblas_int im = blas_int(m, "m", what), in = blas_int(n, "n", what),
                      ic = blas_int(ldc, "ldc", what);
    if constexpr (std::is_same_v<T, double>)
      blas(rocblas_dgeam(blas_, rocblas_operation_none, rocblas_operation_none, im, in, &beta, c,
                         ic, &zero, c, ic, c, ic),
           what);
    else
      blas(rocblas_sgeam(blas_, rocblas_operation_none, rocblas_operation_none, im, in, &beta, c,
                         ic, &zero, c, ic, c, ic),
           what);
  }

  // 16-bit A and B, FP32 C (and D = C, in place), FP32 products and sums.
  void gemm_ex(Trans ta, Trans tb, long m, long n, long k, float alpha, const void* a,
               const void* b, rocblas_datatype type, long lda, long ldb, float beta, float* c,
               long ldc) {
    if (m <= 0 || n <= 0) return;
    const char* what = "rocblas_gemm_ex";
    const rocblas_int im = blas_int(m, "m", what), in = blas_int(n, "n", what),
                      ik = blas_int(k, "k", what), ia = blas_int(lda, "lda", what),
                      ib = blas_int(ldb, "ldb", what), ic = blas_int(ldc, "ldc", what);
    blas(rocblas_gemm_ex(blas_, op(ta), op(tb), im, in, ik, &alpha, a, type, ia, b, type, ib, &beta,
                         c, rocblas_datatype_f32_r, ic, c, rocblas_datatype_f32_r, ic,
                         rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0,
                         rocblas_gemm_flags_none),
         what);
  }

  // A rocBLAS call's status, then (HPLX_DEVICE_SYNC=1) its work's.
  void blas(rocblas_status status, const char* what) {
    check_rocblas(status, what);
    check_device_work(stream_, what);
  }

  Backend& backend_;
  QueuePriority priority_;
  HipCounts& counts_;
  ReduceScratch reduce_{};
  hipStream_t stream_ = nullptr;
  rocblas_handle blas_ = nullptr;
};

class HipBackend final : public Backend {
 public:
  explicit HipBackend(int device) : device_(device) {
    refuse_update_sms();
    check_gpu(hipSetDevice(device), "hipSetDevice");
    check_gpu(hipGetDeviceProperties(&props_, device), "hipGetDeviceProperties");
  }
  BackendKind kind() const override { return BackendKind::Hip; }
  // "hip: device 0 AMD Instinct MI250X (gfx90a, 110 CUs, wavefront 64,
  // 64.0 GiB), HIP runtime 5.7, rocBLAS 2.47.0".
  std::string describe() const override {
    return fmt::format("hip: device {} {} ({}, {} CUs, wavefront {}, {:.1f} GiB), {}", device_,
                       props_.name, props_.gcnArchName, props_.multiProcessorCount, props_.warpSize,
                       static_cast<double>(props_.totalGlobalMem) / (1024.0 * 1024 * 1024),
                       hip_versions());
  }
  bool host_accessible(MemorySpace space) const override { return space != MemorySpace::Device; }
  void* allocate(std::size_t bytes, MemorySpace space) override {
    if (space == MemorySpace::Host) return allocate_host(bytes);
    void* p = nullptr;
    const hipError_t status = space == MemorySpace::Device
                                  ? hipMalloc(&p, std::max<std::size_t>(bytes, 1))
                                  : hipHostMalloc(&p, std::max<std::size_t>(bytes, 1));
    if (status != hipSuccess)
      throw SystemError(fmt::format("cannot allocate {} bytes of {} memory on HIP device {}: {}",
                                    bytes, space == MemorySpace::Device ? "device" : "pinned host",
                                    device_, hipGetErrorString(status)));
    ++counts_.allocations;
    return p;
  }
  // hipFree and hipHostFree wait for the device's work, as the contract asks.
  void deallocate(void* p, std::size_t, MemorySpace space) noexcept override {
    if (space == MemorySpace::Host) return free_host(p);
    ++counts_.host_waits;
    if (space == MemorySpace::Device)
      log_hip(hipFree(p), "hipFree");
    else
      log_hip(hipHostFree(p), "hipHostFree");
  }
  long device_allocations() const override { return counts_.allocations; }
  DeviceCounters counters() const override {
    DeviceCounters c;
    c.allocations = counts_.allocations;
    c.host_waits = counts_.host_waits;
    return c;
  }
  int multiprocessors() const override { return props_.multiProcessorCount; }
  std::size_t free_device_bytes() const override {
    std::size_t free = 0, total = 0;
    check_gpu(hipMemGetInfo(&free, &total), "hipMemGetInfo");
    return free;
  }
  using Backend::make_queue;
  std::unique_ptr<Queue> make_queue(QueuePriority priority) override {
    return std::make_unique<HipQueue>(*this, priority, counts_);
  }
  EnergyCounter energy_counter() override { return smi().read(); }
  // "GPU 0000:c1:00.0, 1700 MHz, 41 C, 118 W".
  std::string state() override {
    const std::string bus = bus_id();
    const std::string smi_state = smi().state();
    return "GPU " + (bus.empty() ? std::to_string(device_) : bus) +
           (smi_state.empty() ? "" : ", " + smi_state);
  }

 private:
  int device_;
  hipDeviceProp_t props_{};
  HipCounts counts_;
  std::unique_ptr<RocmSmiEnergy> smi_;  // opened on the first reading

  std::string bus_id() const {
    char id[32] = {};
    return hipDeviceGetPCIBusId(id, sizeof id, device_) == hipSuccess ? std::string(id)
                                                                      : std::string();
  }
  RocmSmiEnergy& smi() {
    if (!smi_)
      smi_ =
          std::make_unique<RocmSmiEnergy>(props_.pciDomainID, props_.pciBusID, props_.pciDeviceID);
    return *smi_;
  }
};

}  // namespace

bool hip_device_present(std::string* why) {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess || count <= 0) {
    if (why != nullptr)
      *why = status != hipSuccess ? fmt::format("hipGetDeviceCount: {}", hipGetErrorString(status))
                                  : "hipGetDeviceCount found 0 devices";
    return false;
  }
  return true;
}

std::unique_ptr<Backend> make_hip_backend() {
  std::string why;
  if (!hip_device_present(&why))
    throw UsageError(fmt::format(
        "--backend hip: no AMD GPU is present ({}); use --backend host or emulated", why));
  int count = 0;
  check_gpu(hipGetDeviceCount(&count), "hipGetDeviceCount");
  return std::make_unique<HipBackend>(local_rank() % count);
}

std::string hip_versions() {
  int runtime = 0;
  (void)hipRuntimeGetVersion(&runtime);  // major * 10000000 + minor * 100000 + patch
  char blas[64] = {};
  std::string blas_version = "?";
  if (rocblas_get_version_string(blas, sizeof blas) == rocblas_status_success) {
    blas_version = blas;  // "2.47.0." on Debian 13: its build tag left empty
    while (!blas_version.empty() && (blas_version.back() == '.' || blas_version.back() == '-'))
      blas_version.pop_back();
  }
  return fmt::format("HIP runtime {}.{}, rocBLAS {}", runtime / 10000000, runtime / 100000 % 100,
                     blas_version);
}

namespace gpu_detail {

unsigned cooperative_capacity(const void* kernel, int threads) {
  int device = 0, cooperative = 0, cus = 0, per_cu = 0;
  check_gpu(hipGetDevice(&device), "hipGetDevice");
  check_gpu(hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, device),
            "hipDeviceGetAttribute(hipDeviceAttributeCooperativeLaunch)");
  if (cooperative == 0)
    throw Error(
        fmt::format("HIP device {} cannot run cooperative kernels (the fused FACT leaf); allowed: "
                    "--fact-leaf kernels",
                    device));
  check_gpu(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device),
            "hipDeviceGetAttribute(hipDeviceAttributeMultiprocessorCount)");
  check_gpu(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, threads, 0),
            "hipOccupancyMaxActiveBlocksPerMultiprocessor");
  return static_cast<unsigned>(std::max(1, per_cu * cus));
}

}  // namespace gpu_detail

ReduceScratch gpu_reduce_scratch(Queue& q) {
  gpu_stream_of(q);  // throws for a queue of another backend
  return static_cast<HipQueue&>(q).reduce_scratch();
}

void* gpu_stream_of(Queue& q) {
  auto* hq = dynamic_cast<HipQueue*>(&q);
  if (hq == nullptr)
    throw Error(fmt::format("a HIP kernel was launched on a queue of the {} backend",
                            name_of(q.backend().kind())));
  return hq->stream();
}

}  // namespace hplx::device
