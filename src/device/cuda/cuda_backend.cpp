#include "device/cuda/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/blas_forwarding.hpp"
#include "device/cuda/nvml_energy.hpp"
#include "device/device_errors.hpp"
#include "device/gpu/gpu_common.hpp"
#include "device/host/host_backend.hpp"

namespace hplx::device {

namespace {

// Errors a kernel leaves for later calls to report (the context is lost
// after them): the call that sees one is rarely the one that caused it.
bool from_earlier_work(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

// HPLX_UPDATE_SMS: the SMs the Normal-priority queues' cuBLAS calls (the
// update's) aim at (cublasSetSmCountTarget), so that FACT on the panel
// queue finds room beside them; unset or 0: every SM (cuBLAS's default).
// On an H200, FACT beside the update's DGEMM took about 3x its time alone
// (docs/GPU.md): this is the knob to measure the trade.
int update_sm_target(int sms) {
  const char* v = std::getenv("HPLX_UPDATE_SMS");
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > sms)
    throw UsageError(fmt::format(
        "HPLX_UPDATE_SMS={}: expected 0 (every SM) or 1 to {} (this device's SMs)", v, sms));
  return static_cast<int>(n);
}

// A destructor's CUDA call: its error is said on stderr, never thrown.
void log_cuda(cudaError_t status, const char* what) noexcept {
  if (status != cudaSuccess) log_dropped_error("CUDA", what, cudaGetErrorString(status));
}

}  // namespace

void check_gpu(int status, const char* what) {
  if (status == 0) return;
  const auto e = static_cast<cudaError_t>(status);
  // The runtime keeps a failed call's error as the thread's last error: a
  // later launch's cudaGetLastError would report it as its own (seen on an
  // H200: a kernel "failed: invalid argument" after a failed graph call).
  // An error from earlier work stays whatever this returns.
  (void)cudaGetLastError();
  throw Error(device_error_message(
      "CUDA", what, fmt::format("{} ({})", cudaGetErrorString(e), status), from_earlier_work(e)));
}

void check_device_work(void* stream, const char* what) {
  if (!device_sync_mode()) return;
  check_gpu(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), what);
  check_gpu(cudaGetLastError(), what);
}

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(device_error_message(
        "cuBLAS", what,
        fmt::format("{} ({})", cublasGetStatusString(status), static_cast<int>(status)),
        status == CUBLAS_STATUS_EXECUTION_FAILED));
}

cublasOperation_t op(Trans t) {
  return t == Trans::No ? CUBLAS_OP_N : CUBLAS_OP_T;
}
cublasSideMode_t side_of(Side s) {
  return s == Side::Left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
}
cublasFillMode_t fill(Uplo u) {
  return u == Uplo::Lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
}
cublasDiagType_t diag_of(Diag d) {
  return d == Diag::Unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}

// What the CUDA backend counts (DeviceCounters): Device and Pinned
// allocations, and the host's waits (a queue's or an event's synchronize,
// a free). Bytes copied are not counted (a copy's direction would cost a
// pointer query per copy).
struct CudaCounts {
  std::atomic<long> allocations{0}, host_waits{0};
};

class CudaEvent final : public Event {
 public:
  // `timed`: a timestamp for seconds_until (DeviceTimeline, the probes);
  // events that only order work are made without (cudaEventDisableTiming,
  // the lighter kind).
  CudaEvent(cudaStream_t stream, bool timed, CudaCounts& counts) : CudaEvent(timed, counts) {
    check_gpu(cudaEventRecord(event_, stream), "cudaEventRecord");
  }
  // Not recorded yet (a graph's event record node records it).
  CudaEvent(bool timed, CudaCounts& counts) : timed_(timed), counts_(counts) {
    check_gpu(cudaEventCreateWithFlags(&event_, timed ? cudaEventDefault : cudaEventDisableTiming),
              "cudaEventCreateWithFlags");
  }
  ~CudaEvent() override { log_cuda(cudaEventDestroy(event_), "cudaEventDestroy"); }
  bool done() const override { return cudaEventQuery(event_) == cudaSuccess; }
  void synchronize() override {
    ++counts_.host_waits;
    check_gpu(cudaEventSynchronize(event_), "cudaEventSynchronize");
  }
  double seconds_until(const Event& later) const override {
    const auto& e = dynamic_cast<const CudaEvent&>(later);
    if (!timed_ || !e.timed_) throw_untimed_event("cuda");
    float ms = 0;
    check_gpu(cudaEventElapsedTime(&ms, event_, e.event_), "cudaEventElapsedTime");
    return ms / 1e3;
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
  bool timed_;
  CudaCounts& counts_;
};

// A captured stream's work (Queue::begin_capture): the graph, its
// executable, and the event record nodes of the capture's timed events in
// their order, which each replay points at fresh events. The events the
// executable points at are kept until the next replay replaces them: once
// such an event is destroyed, cudaGraphExecEventRecordNodeSetEvent refuses
// to replace it ("invalid argument"; seen on an H200, 2026-11-28).
struct CudaGraph final : Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<cudaGraphNode_t> markers;
  std::vector<cudaEvent_t> capture_events;  // what the capture recorded them with
  std::vector<EventPtr> current;            // what the executable records now
  const void* queue = nullptr;
  ~CudaGraph() override {
    if (exec) log_cuda(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
    if (graph) log_cuda(cudaGraphDestroy(graph), "cudaGraphDestroy");
    for (cudaEvent_t e : capture_events) log_cuda(cudaEventDestroy(e), "cudaEventDestroy");
  }
};

class CudaQueue final : public BlasForwarding<CudaQueue> {
 public:
  // A Normal queue gets the device's least stream priority (CUDA's
  // default), a High one its greatest (cudaDeviceGetStreamPriorityRange:
  // numerically lowest). Non-blocking: never ordered with the legacy
  // default stream, which nothing in hplx uses
  // (tests/check_default_stream.py).
  CudaQueue(Backend& b, QueuePriority priority, CudaCounts& counts, int update_sms)
      : backend_(b),
        priority_(priority),
        counts_(counts),
        default_sms_(priority == QueuePriority::Normal ? update_sms : 0) {
    int least = 0, greatest = 0;
    check_gpu(cudaDeviceGetStreamPriorityRange(&least, &greatest),
              "cudaDeviceGetStreamPriorityRange");
    check_gpu(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking,
                                           priority == QueuePriority::High ? greatest : least),
              "cudaStreamCreateWithPriority");
    check_cublas(cublasCreate(&blas_), "cublasCreate");
    check_cublas(cublasSetStream(blas_, stream_), "cublasSetStream");
    if (default_sms_ > 0)
      check_cublas(cublasSetSmCountTarget(blas_, default_sms_), "cublasSetSmCountTarget");
    // The reductions' scratch, made once with the queue (none per call).
    check_gpu(cudaMalloc(&reduce_.partials, kReduceBlocks * sizeof(double)), "cudaMalloc");
    check_gpu(cudaMallocHost(&reduce_.result, sizeof(double)), "cudaMallocHost");
  }
  // An error of the queue's last work, not synchronized for before, is
  // said on stderr here (a destructor does not throw).
  ~CudaQueue() override {
    log_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize of a queue going away");
    log_cuda(cudaFree(reduce_.partials), "cudaFree");
    log_cuda(cudaFreeHost(reduce_.result), "cudaFreeHost");
    if (const cublasStatus_t s = cublasDestroy(blas_); s != CUBLAS_STATUS_SUCCESS)
      log_dropped_error("cuBLAS", "cublasDestroy", cublasGetStatusString(s));
    log_cuda(cudaStreamDestroy(stream_), "cudaStreamDestroy");
  }
  QueuePriority priority() const override { return priority_; }
  // A handle's setting, read by each cuBLAS call as it is queued: the
  // calls queued before keep theirs.
  void set_blas_sms(int sms) override {
    check_cublas(cublasSetSmCountTarget(blas_, sms > 0 ? sms : default_sms_),
                 "cublasSetSmCountTarget");
  }
  Backend& backend() const override { return backend_; }
  bool runs_inline() const override { return false; }
  bool executes_on_host() const override { return false; }
  cudaStream_t stream() const { return stream_; }
  ReduceScratch reduce_scratch() const { return reduce_; }

  void copy_bytes(void* dst, const void* src, std::size_t bytes) override {
    if (bytes == 0 || dst == src) return;
    check_gpu(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_), "cudaMemcpyAsync");
  }
  void copy_columns(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t col_bytes, long cols) override {
    if (cols <= 0 || col_bytes == 0) return;
    check_gpu(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, col_bytes,
                                static_cast<std::size_t>(cols), cudaMemcpyDefault, stream_),
              "cudaMemcpy2DAsync");
  }
  void execute(std::function<void()>) override {
    throw Error(
        "the CUDA backend runs kernel bodies on the GPU (launch.hpp); host work on its queue "
        "goes through host_callback()");
  }
  void host_callback(std::function<void()> fn) override {
    auto* work = new std::function<void()>(std::move(fn));
    const cudaError_t status = cudaLaunchHostFunc(
        stream_,
        [](void* p) {
          auto* f = static_cast<std::function<void()>*>(p);
          (*f)();
          delete f;
        },
        work);
    if (status != cudaSuccess) delete work;
    check_gpu(status, "cudaLaunchHostFunc");
  }
  EventPtr record() override {
    refuse_in_capture("record()");
    return std::make_shared<CudaEvent>(stream_, false, counts_);
  }
  EventPtr record_timed() override {
    if (capture_) {
      // An external event node: the graph records an event there (each
      // replay its own, replay()).
      cudaEvent_t e = nullptr;
      check_gpu(cudaEventCreateWithFlags(&e, cudaEventDefault), "cudaEventCreateWithFlags");
      capture_->capture_events.push_back(e);
      check_gpu(cudaEventRecordWithFlags(e, stream_, cudaEventRecordExternal),
                "cudaEventRecordWithFlags(cudaEventRecordExternal)");
      return std::make_shared<CapturedEvent>(capture_->capture_events.size() - 1);
    }
    return std::make_shared<CudaEvent>(stream_, true, counts_);
  }
  void wait(const EventPtr& e) override {
    refuse_in_capture("wait()");
    const auto* ce = dynamic_cast<const CudaEvent*>(e.get());
    if (ce == nullptr) throw Error("CUDA queue: wait() on an event of another backend");
    check_gpu(cudaStreamWaitEvent(stream_, ce->get(), 0), "cudaStreamWaitEvent");
  }
  void synchronize() override {
    refuse_in_capture("synchronize()");
    ++counts_.host_waits;
    check_gpu(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  // CUDA Graphs by stream capture. Not with HPLX_DEVICE_SYNC=1: its
  // waits after every call cannot be captured.
  bool can_capture() const override { return !device_sync_mode(); }
  void begin_capture() override {
    refuse_in_capture("begin_capture()");
    if (!can_capture()) throw Error("CUDA queue: no capture with HPLX_DEVICE_SYNC=1");
    capture_ = std::make_unique<CudaGraph>();
    capture_->queue = this;
    check_gpu(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
              "cudaStreamBeginCapture");
  }
  GraphPtr end_capture() override {
    if (!capture_) throw Error("CUDA queue: end_capture() without begin_capture()");
    std::unique_ptr<CudaGraph> g = std::move(capture_);
    check_gpu(cudaStreamEndCapture(stream_, &g->graph), "cudaStreamEndCapture");
    // The event record nodes, in the order of the events they record.
    std::size_t count = 0;
    check_gpu(cudaGraphGetNodes(g->graph, nullptr, &count), "cudaGraphGetNodes");
    std::vector<cudaGraphNode_t> nodes(count);
    check_gpu(cudaGraphGetNodes(g->graph, nodes.data(), &count), "cudaGraphGetNodes");
    g->markers.assign(g->capture_events.size(), nullptr);
    for (cudaGraphNode_t node : nodes) {
      cudaGraphNodeType type{};
      check_gpu(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType");
      if (type != cudaGraphNodeTypeEventRecord) continue;
      cudaEvent_t e = nullptr;
      check_gpu(cudaGraphEventRecordNodeGetEvent(node, &e), "cudaGraphEventRecordNodeGetEvent");
      const auto it = std::find(g->capture_events.begin(), g->capture_events.end(), e);
      if (it != g->capture_events.end()) g->markers[it - g->capture_events.begin()] = node;
    }
    if (std::find(g->markers.begin(), g->markers.end(), nullptr) != g->markers.end())
      throw Error("CUDA queue: a captured timed event has no event record node in the graph");
    check_gpu(cudaGraphInstantiate(&g->exec, g->graph, 0), "cudaGraphInstantiate");
    return g;
  }
  std::vector<EventPtr> replay(Graph& graph) override {
    refuse_in_capture("replay()");
    auto* g = dynamic_cast<CudaGraph*>(&graph);
    if (g == nullptr || g->queue != this)
      throw Error("CUDA queue: replay() of a graph another queue captured");
    // Each replay records its own events (launches in flight keep theirs).
    std::vector<EventPtr> events;
    events.reserve(g->markers.size());
    g->current.resize(g->markers.size());
    for (std::size_t i = 0; i < g->markers.size(); ++i) {
      auto e = std::make_shared<CudaEvent>(true, counts_);
      check_gpu(cudaGraphExecEventRecordNodeSetEvent(g->exec, g->markers[i], e->get()),
                "cudaGraphExecEventRecordNodeSetEvent");
      g->current[i] = e;  // the event it replaced may go now
      events.push_back(std::move(e));
    }
    check_gpu(cudaGraphLaunch(g->exec, stream_), "cudaGraphLaunch");
    check_device_work(stream_, "cudaGraphLaunch");
    return events;
  }

  // cuBLAS (blas_forwarding.hpp), 64-bit sizes; the routines' zero-size
  // rules as BLAS has them (scale_block, scale_vector below).
  template <class T>
  void gemm_t(Trans ta, Trans tb, long m, long n, long k, T alpha, const T* a, long lda, const T* b,
              long ldb, T beta, T* c, long ldc) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) return scale_block(m, n, beta, c, ldc);
    if constexpr (std::is_same_v<T, double>)
      blas(cublasDgemm_64(blas_, op(ta), op(tb), m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc),
           "cublasDgemm");
    else
      blas(cublasSgemm_64(blas_, op(ta), op(tb), m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc),
           "cublasSgemm");
  }
  template <class T>
  void trsm_t(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, T alpha, const T* a,
              long lda, T* b, long ldb) {
    if (m <= 0 || n <= 0) return;
    if constexpr (std::is_same_v<T, double>)
      blas(cublasDtrsm_64(blas_, side_of(side), fill(uplo), op(ta), diag_of(diag), m, n, &alpha, a,
                          lda, b, ldb),
           "cublasDtrsm");
    else
      blas(cublasStrsm_64(blas_, side_of(side), fill(uplo), op(ta), diag_of(diag), m, n, &alpha, a,
                          lda, b, ldb),
           "cublasStrsm");
  }
  template <class T>
  void gemv_t(Trans ta, long m, long n, T alpha, const T* a, long lda, const T* x, long incx,
              T beta, T* y, long incy) {
    if ((ta == Trans::No ? m : n) <= 0) return;
    if ((ta == Trans::No ? n : m) <= 0) return scale_vector(ta == Trans::No ? m : n, beta, y, incy);
    if constexpr (std::is_same_v<T, double>)
      blas(cublasDgemv_64(blas_, op(ta), m, n, &alpha, a, lda, x, incx, &beta, y, incy),
           "cublasDgemv");
    else
      blas(cublasSgemv_64(blas_, op(ta), m, n, &alpha, a, lda, x, incx, &beta, y, incy),
           "cublasSgemv");
  }
  template <class L>
  void gemm_mixed_t(Trans ta, Trans tb, long m, long n, long k, float alpha, const L* a, long lda,
                    const L* b, long ldb, float beta, float* c, long ldc) {
    // TF32: FP32 storage, the tensor cores' TF32 products.
    if constexpr (std::is_same_v<L, float>)
      gemm_ex(ta, tb, m, n, k, alpha, a, b, CUDA_R_32F, lda, ldb, beta, c, ldc,
              CUBLAS_COMPUTE_32F_FAST_TF32);
    else
      gemm_ex(ta, tb, m, n, k, alpha, a, b, std::is_same_v<L, Half> ? CUDA_R_16F : CUDA_R_16BF, lda,
              ldb, beta, c, ldc, CUBLAS_COMPUTE_32F);
  }

 private:
  void refuse_in_capture(const char* what) const {
    if (capture_)
      throw Error(fmt::format("CUDA queue: {} while the stream is being captured", what));
  }

  // A product with nothing to sum leaves beta times the output, and beta = 0
  // clears it, NaN included (BLAS's rule, which the host backend follows).
  // cuBLAS's GEMV returns at once when A has no columns (no rows for A^T),
  // leaving y as it was: these do the rest of the rule instead.
  template <class T>
  void scale_vector(long len, T beta, T* y, long incy) {
    if (beta == T(1)) return;
    if (beta == T(0)) {
      check_gpu(cudaMemset2DAsync(y, static_cast<std::size_t>(incy) * sizeof(T), 0, sizeof(T),
                                  static_cast<std::size_t>(len), stream_),
                "cudaMemset2DAsync");
    } else if constexpr (std::is_same_v<T, double>) {
      blas(cublasDscal_64(blas_, len, &beta, y, incy), "cublasDscal");
    } else {
      blas(cublasSscal_64(blas_, len, &beta, y, incy), "cublasSscal");
    }
  }
  template <class T>
  void scale_block(long m, long n, T beta, T* c, long ldc) {
    if (beta == T(1)) return;
    if (beta == T(0)) {
      check_gpu(cudaMemset2DAsync(c, static_cast<std::size_t>(ldc) * sizeof(T), 0, m * sizeof(T),
                                  static_cast<std::size_t>(n), stream_),
                "cudaMemset2DAsync");
      return;
    }
    const T zero = 0;  // C = beta C + 0 C, in place (geam allows C = A with ldc = lda)
    if constexpr (std::is_same_v<T, double>)
      blas(cublasDgeam_64(blas_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &beta, c, ldc, &zero, c, ldc, c,
                          ldc),
           "cublasDgeam");
    else
      blas(cublasSgeam_64(blas_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &beta, c, ldc, &zero, c, ldc, c,
                          ldc),
           "cublasSgeam");
  }

  // 16-bit A and B, FP32 C, FP32 products and sums. CUBLAS_GEMM_DEFAULT:
  // the default math mode uses tensor cores for 16-bit inputs with
  // CUBLAS_COMPUTE_32F; CUBLAS_GEMM_DEFAULT_TENSOR_OP is deprecated and
  // would also let cuBLAS pick its reduced-precision (FAST_16F) kernels.
  void gemm_ex(Trans ta, Trans tb, long m, long n, long k, float alpha, const void* a,
               const void* b, cudaDataType type, long lda, long ldb, float beta, float* c, long ldc,
               cublasComputeType_t compute) {
    if (m <= 0 || n <= 0) return;
    blas(cublasGemmEx_64(blas_, op(ta), op(tb), m, n, k, &alpha, a, type, lda, b, type, ldb, &beta,
                         c, CUDA_R_32F, ldc, compute, CUBLAS_GEMM_DEFAULT),
         "cublasGemmEx");
  }

  // A cuBLAS call's status, then (HPLX_DEVICE_SYNC=1) its work's.
  void blas(cublasStatus_t status, const char* what) {
    check_cublas(status, what);
    check_device_work(stream_, what);
  }

  Backend& backend_;
  QueuePriority priority_;
  CudaCounts& counts_;
  ReduceScratch reduce_{};
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  const int default_sms_;               // HPLX_UPDATE_SMS on a Normal queue; 0: every SM
  std::unique_ptr<CudaGraph> capture_;  // while capturing
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device) : device_(device) {
    check_gpu(cudaSetDevice(device), "cudaSetDevice");
    check_gpu(cudaGetDeviceProperties(&props_, device), "cudaGetDeviceProperties");
    update_sms_ = update_sm_target(props_.multiProcessorCount);
  }
  BackendKind kind() const override { return BackendKind::Cuda; }
  std::string describe() const override {
    return fmt::format("cuda: device {} {} (compute capability {}.{}, {:.1f} GiB), {}{}", device_,
                       props_.name, props_.major, props_.minor,
                       static_cast<double>(props_.totalGlobalMem) / (1024.0 * 1024 * 1024),
                       cuda_versions(),
                       update_sms_ > 0 ? fmt::format(", update's BLAS on {} of {} SMs", update_sms_,
                                                     props_.multiProcessorCount)
                                       : std::string());
  }
  bool host_accessible(MemorySpace space) const override { return space != MemorySpace::Device; }
  void* allocate(std::size_t bytes, MemorySpace space) override {
    if (space == MemorySpace::Host) return allocate_host(bytes);
    void* p = nullptr;
    const cudaError_t status = space == MemorySpace::Device
                                   ? cudaMalloc(&p, std::max<std::size_t>(bytes, 1))
                                   : cudaMallocHost(&p, std::max<std::size_t>(bytes, 1));
    if (status != cudaSuccess)
      throw SystemError(fmt::format("cannot allocate {} bytes of {} memory on CUDA device {}: {}",
                                    bytes, space == MemorySpace::Device ? "device" : "pinned host",
                                    device_, cudaGetErrorString(status)));
    ++counts_.allocations;
    return p;
  }
  // cudaFree and cudaFreeHost wait for the device's work, as the contract
  // asks (the emulated device does the same).
  // A failed free (an earlier kernel's fault shows here too) is said on
  // stderr: this runs in Buffer's destructor.
  void deallocate(void* p, std::size_t, MemorySpace space) noexcept override {
    if (space == MemorySpace::Host) return free_host(p);
    ++counts_.host_waits;
    if (space == MemorySpace::Device)
      log_cuda(cudaFree(p), "cudaFree");
    else
      log_cuda(cudaFreeHost(p), "cudaFreeHost");
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
    check_gpu(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free;
  }
  using Backend::make_queue;
  std::unique_ptr<Queue> make_queue(QueuePriority priority) override {
    return std::make_unique<CudaQueue>(*this, priority, counts_, update_sms_);
  }
  EnergyCounter energy_counter() override { return nvml().read(); }
  // "GPU 0000:1B:00.0, SM 1980 MHz, 41 C, 118 W".
  std::string state() override {
    const std::string bus = bus_id();
    const std::string nvml_state = nvml().state();
    return "GPU " + (bus.empty() ? std::to_string(device_) : bus) +
           (nvml_state.empty() ? "" : ", " + nvml_state);
  }

 private:
  int device_;
  cudaDeviceProp props_{};
  int update_sms_ = 0;  // HPLX_UPDATE_SMS
  CudaCounts counts_;
  std::unique_ptr<NvmlEnergy> nvml_;  // opened on the first reading

  std::string bus_id() const {
    char id[32] = {};
    return cudaDeviceGetPCIBusId(id, sizeof id, device_) == cudaSuccess ? std::string(id)
                                                                        : std::string();
  }
  NvmlEnergy& nvml() {
    if (!nvml_) nvml_ = std::make_unique<NvmlEnergy>(bus_id());
    return *nvml_;
  }
};

}  // namespace

bool cuda_device_present(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count <= 0) {
    if (why != nullptr)
      *why = status != cudaSuccess
                 ? fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(status))
                 : "cudaGetDeviceCount found 0 devices";
    return false;
  }
  return true;
}

std::unique_ptr<Backend> make_cuda_backend() {
  std::string why;
  if (!cuda_device_present(&why))
    throw UsageError(fmt::format(
        "--backend cuda: no CUDA device is present ({}); use --backend host or emulated", why));
  int count = 0;
  check_gpu(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  return std::make_unique<CudaBackend>(local_rank() % count);
}

std::string cuda_versions() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  return fmt::format("CUDA runtime {}.{}, cuBLAS {}", runtime / 1000, (runtime % 1000) / 10,
                     CUBLAS_VERSION);
}

namespace gpu_detail {

unsigned cooperative_capacity(const void* kernel, int threads) {
  int device = 0, cooperative = 0, sms = 0, per_sm = 0;
  check_gpu(cudaGetDevice(&device), "cudaGetDevice");
  check_gpu(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
            "cudaDeviceGetAttribute(cudaDevAttrCooperativeLaunch)");
  if (cooperative == 0)
    throw Error(
        fmt::format("CUDA device {} cannot run cooperative kernels (the fused FACT leaf); allowed: "
                    "--fact-leaf kernels",
                    device));
  check_gpu(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
            "cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount)");
  check_gpu(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0),
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return static_cast<unsigned>(std::max(1, per_sm * sms));
}

}  // namespace gpu_detail

ReduceScratch gpu_reduce_scratch(Queue& q) {
  gpu_stream_of(q);  // throws for a queue of another backend
  return static_cast<CudaQueue&>(q).reduce_scratch();
}

void* gpu_stream_of(Queue& q) {
  auto* cq = dynamic_cast<CudaQueue*>(&q);
  if (cq == nullptr)
    throw Error(fmt::format("a CUDA kernel was launched on a queue of the {} backend",
                            name_of(q.backend().kind())));
  return cq->stream();
}

}  // namespace hplx::device
