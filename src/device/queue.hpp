// An ordered queue of work on a backend (a CUDA stream, a worker thread of
// the emulated device, or the calling thread for the host), and the events
// that order one queue after another.
//
// Everything enqueued runs in order. The host waits for a queue only in
// synchronize() or an event's synchronize(); a queue waits for another with
// wait(event). Pointers given to a queue's operations must stay valid, and
// must not be touched by the host, until the queue has passed them.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "device/precision.hpp"
#include "device/types.hpp"

namespace hplx::device {

class Backend;

// A point in a queue's order. done() polls; synchronize() blocks the host.
// seconds_until(later): the time between the queue reaching this event and
// reaching `later`, both recorded on queues of one backend by
// record_timed() and both done (CUDA's cudaEventElapsedTime): how the
// device's side of a run is timed. Events of record() only order work (on
// a GPU they are lighter: no timestamp is taken), and seconds_until on one
// throws Error on every backend.
class Event {
 public:
  virtual ~Event() = default;
  virtual bool done() const = 0;
  virtual void synchronize() = 0;
  virtual double seconds_until(const Event& later) const = 0;
};
using EventPtr = std::shared_ptr<Event>;

// What seconds_until throws for an event of record() (`backend`: its name).
[[noreturn]] void throw_untimed_event(const char* backend);

// A queue's work recorded once (Queue::begin_capture .. end_capture) and
// run again as a whole by Queue::replay: a CUDA Graph on a GPU, the
// recorded operations on the emulated device. It replays the same
// operations on the same pointers, whatever they hold by then.
class Graph {
 public:
  virtual ~Graph() = default;
};
using GraphPtr = std::unique_ptr<Graph>;

// What record_timed() returns during a capture: it stands for the timed
// event that each replay records at that point, the index-th of the
// capture (Queue::replay returns them in that order). It cannot be waited
// for or timed itself: done(), synchronize() and seconds_until() throw.
class CapturedEvent final : public Event {
 public:
  explicit CapturedEvent(std::size_t index) : index_(index) {}
  std::size_t index() const { return index_; }
  bool done() const override;
  void synchronize() override;
  double seconds_until(const Event& later) const override;

 private:
  std::size_t index_;
};

class Queue {
 public:
  virtual ~Queue() = default;
  virtual Backend& backend() const = 0;

  // True when every operation has finished when its call returns (the host
  // backend). A schedule that overlaps host work with queued work uses
  // worker threads for a queue that runs inline (the bsp driver's FACT
  // beside the update, src/lu/schedules/pdgesv.cpp).
  virtual bool runs_inline() const = 0;
  // True when the queue's work runs on the host's cores (host, emulated):
  // kernel bodies then run as host loops (launch.hpp).
  virtual bool executes_on_host() const = 0;
  // The priority it was made with (Backend::make_queue).
  virtual QueuePriority priority() const { return QueuePriority::Normal; }
  // The SMs this queue's BLAS calls made from now on aim at, leaving the
  // others to other queues' kernels (a GPU's cublasSetSmCountTarget); 0:
  // back to the backend's choice. The sim backend charges such calls as
  // on fewer SMs (SimModel::multiprocessors); the emulated device counts
  // them (DeviceCounters::blas_on_fewer_sms); the host ignores it.
  virtual void set_blas_sms(int sms) { (void)sms; }
  virtual void simulate_kernel(double elements, RowCopy kind) {
    (void)elements;
    (void)kind;
  }

  // Copies `bytes` from src to dst, any memory spaces.
  virtual void copy_bytes(void* dst, const void* src, std::size_t bytes) = 0;
  // Copies `cols` columns of `col_bytes` bytes each; column j starts at
  // src + j * src_pitch and goes to dst + j * dst_pitch (pitches in bytes).
  virtual void copy_columns(void* dst, std::size_t dst_pitch, const void* src,
                            std::size_t src_pitch, std::size_t col_bytes, long cols) = 0;

  // Host-executing queues: runs `work` in the queue's order on the host's
  // cores. Kernel bodies reach the queue this way (launch.hpp); device
  // queues throw (their kernels are compiled for the device).
  virtual void execute(std::function<void()> work) = 0;
  // Runs `fn` on the host when the queue reaches this point (a host
  // callback, as cudaLaunchHostFunc): for work that must be ordered with
  // the queue but runs on the host on any backend.
  virtual void host_callback(std::function<void()> fn) = 0;

  // An event for ordering (wait, done, synchronize); record_timed(): one
  // that seconds_until can also time (DeviceTimeline, the probes).
  virtual EventPtr record() = 0;
  virtual EventPtr record_timed() = 0;
  virtual void wait(const EventPtr& e) = 0;  // later work waits for e
  virtual void synchronize() = 0;            // the host waits for all work so far

  // Capturing (graph.cpp): whether this queue records work for replay
  // (the emulated device; CUDA, unless HPLX_DEVICE_SYNC=1 waits after
  // every call). Between begin_capture() and end_capture() the work given
  // to the queue is recorded, not run: a wait of the host (synchronize(),
  // an event's synchronize()), record() and wait() are refused (Error);
  // record_timed() gives CapturedEvents. replay() queues the recorded work
  // in this queue's order, as one submission, and returns the replay's
  // timed events, one per CapturedEvent of the capture, in their order.
  // Queues that cannot capture throw Error from all three.
  virtual bool can_capture() const { return false; }
  virtual void begin_capture();
  virtual GraphPtr end_capture();
  virtual std::vector<EventPtr> replay(Graph& graph);

  // BLAS on the queue (column-major, operands in the queue's memory).
  // C = alpha op(A) op(B) + beta C, C m x n.
  virtual void gemm(Trans ta, Trans tb, long m, long n, long k, double alpha, const double* a,
                    long lda, const double* b, long ldb, double beta, double* c, long ldc) = 0;
  virtual void gemm(Trans ta, Trans tb, long m, long n, long k, float alpha, const float* a,
                    long lda, const float* b, long ldb, float beta, float* c, long ldc) = 0;
  // B = alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right), B m x n.
  virtual void trsm(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, double alpha,
                    const double* a, long lda, double* b, long ldb) = 0;
  virtual void trsm(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, float alpha,
                    const float* a, long lda, float* b, long ldb) = 0;
  // y = alpha op(A) x + beta y, A m x n.
  virtual void gemv(Trans ta, long m, long n, double alpha, const double* a, long lda,
                    const double* x, long incx, double beta, double* y, long incy) = 0;
  virtual void gemv(Trans ta, long m, long n, float alpha, const float* a, long lda, const float* x,
                    long incx, float beta, float* y, long incy) = 0;

  // Mixed precision (HPL-MxP's update on a GPU): C = alpha op(A) op(B) +
  // beta C with A and B in 16 bits and C in FP32, every product and sum in
  // FP32 (cuBLAS GemmEx, compute type 32F, on the GPU's tensor cores; on
  // the host the operands are widened to FP32 and OpenBLAS's SGEMM runs:
  // docs/GPU.md says where the two round differently).
  virtual void gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const Half* a,
                          long lda, const Half* b, long ldb, float beta, float* c, long ldc) = 0;
  virtual void gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha,
                          const BFloat16* a, long lda, const BFloat16* b, long ldb, float beta,
                          float* c, long ldc) = 0;
  // The same on FP32 A and B multiplied in TF32 (FP32's range, 10 fraction
  // bits; HPL-MxP's panel solves beside a 16-bit update): every product of
  // operands rounded to TF32, the sums in FP32 (cuBLAS GemmEx, compute type
  // 32F_FAST_TF32, on the GPU's tensor cores; on the host A and B rounded
  // by round_to_tf32, precision.hpp, then OpenBLAS's SGEMM).
  virtual void gemm_tf32(Trans ta, Trans tb, long m, long n, long k, float alpha, const float* a,
                         long lda, const float* b, long ldb, float beta, float* c, long ldc) = 0;

  // B = A rounded to 16 bits (to nearest, ties to even; precision.hpp), A
  // and B m x n in the queue's memory: one kernel body (convert_kernel.hpp)
  // on every backend.
  void convert(long m, long n, const float* a, long lda, Half* b, long ldb);
  void convert(long m, long n, const float* a, long lda, BFloat16* b, long ldb);
};

// Typed copies.
template <class T>
void copy(Queue& q, T* dst, const T* src, long count) {
  if (count > 0) q.copy_bytes(dst, src, sizeof(T) * static_cast<std::size_t>(count));
}
// The m x n column-major block at src (leading dimension lds) to dst (ldd).
template <class T>
void copy_matrix(Queue& q, long m, long n, const T* src, long lds, T* dst, long ldd) {
  if (m <= 0 || n <= 0) return;
  q.copy_columns(dst, sizeof(T) * static_cast<std::size_t>(ldd), src,
                 sizeof(T) * static_cast<std::size_t>(lds), sizeof(T) * static_cast<std::size_t>(m),
                 n);
}

}  // namespace hplx::device
