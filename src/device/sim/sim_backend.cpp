#include "device/sim/sim_backend.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
// After the s4u headers, which define what these two need.
#include <simgrid/version.h>
// SMPI's shared memory (smpi_shared_malloc_partial).
#include <smpi/smpi.h>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/blas_forwarding.hpp"
#include "device/simulation.hpp"

namespace hplx::device {
namespace {

// The rank's own time: the simulated clock and the computations the rank
// owes it (core/timer.hpp).
double now() {
  return wall_time();
}

// The rank computes, or waits for its device, until `t`: owed, like its
// kernels, until it next meets the other ranks.
void sleep_until(double t) {
  defer_work(t - now());
}

// Host buffers from this size on are SMPI shared memory but for their last
// kPrivateTailBytes (SimBackend::allocate).
constexpr std::size_t kSharedFromBytes = std::size_t{256} << 10;
constexpr std::size_t kPrivateTailBytes = 64 * 1024;

// Host copies at most this large are done for real: they may carry
// meaning (a pivot list, a count); larger ones are the matrix's rows.
constexpr std::size_t kRealCopyBytes = 64 * 1024;

class SimEvent final : public Event {
 public:
  SimEvent(double at, bool timed) : at_(at), timed_(timed) {}
  bool done() const override { return now() >= at_; }
  void synchronize() override { sleep_until(at_); }
  double seconds_until(const Event& later) const override {
    const auto& e = dynamic_cast<const SimEvent&>(later);
    if (!timed_ || !e.timed_) throw_untimed_event("sim");
    return e.at_ - at_;
  }
  double at() const { return at_; }

 private:
  double at_;
  bool timed_;
};

class SimBackend;

class SimQueue final : public BlasForwarding<SimQueue> {
 public:
  // `index`: the backend's count of queues made before it (each queue
  // of each rank draws its own spread).
  SimQueue(SimBackend& b, int index);
  ~SimQueue() override;
  Backend& backend() const override;
  bool runs_inline() const override { return !gpu_; }
  bool executes_on_host() const override { return false; }
  void simulate_kernel(double elements, RowCopy kind) override;
  // The queue does `seconds` of work after what it has; `computes`: the
  // work takes the device's cores (kernels, BLAS), not only its copy
  // engines or the link (copies).
  void charge(double seconds, bool computes = true);
  // When the queue's next work can start, and when its work on every SM
  // queued so far ends (BLAS on fewer SMs leaves room: set_blas_sms).
  double ready_at() const { return std::max(busy_until_, now()); }
  double computes_until() const { return computes_until_; }
  // The model's SMs (SimModel::multiprocessors) over the target, for the
  // BLAS calls queued from now on; no change where the spec gives none.
  void set_blas_sms(int sms) override {
    const int all = model_.multiprocessors;
    blas_slowdown_ = all > 0 && sms > 0 && sms < all ? static_cast<double>(all) / sms : 1.0;
  }

  void copy_bytes(void* dst, const void* src, std::size_t bytes) override;
  void copy_columns(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t col_bytes, long cols) override;
  void execute(std::function<void()>) override { charge(model_.kernel_overhead_s); }
  void host_callback(std::function<void()> fn) override {
    synchronize();
    fn();
  }
  EventPtr record() override {
    return std::make_shared<SimEvent>(std::max(busy_until_, now()), false);
  }
  EventPtr record_timed() override {
    return std::make_shared<SimEvent>(std::max(busy_until_, now()), true);
  }
  void wait(const EventPtr& e) override {
    const double at = dynamic_cast<const SimEvent&>(*e).at();
    if (gpu_)
      busy_until_ = std::max(busy_until_, at);
    else
      sleep_until(at);
  }
  void synchronize() override { sleep_until(busy_until_); }

  // BLAS by the model's time (blas_forwarding.hpp): GEMM at its shape's
  // rate (FP32 and the mixed GEMM at SGEMM's), TRSM at the model's rate (FP32
  // twice that), GEMV by its bytes at the memory's bandwidth.
  template <class T>
  void gemm_t(Trans, Trans, long m, long n, long k, T, const T*, long, const T*, long, T, T*,
              long) {
    blas(gemm_seconds(std::is_same_v<T, double> ? model_.dgemm : model_.sgemm, m, n, k));
  }
  template <class T>
  void trsm_t(Side side, Uplo, Trans, Diag, long m, long n, T, const T*, long, T*, long) {
    blas(trsm_seconds(side, m, n, (std::is_same_v<T, double> ? 1 : 2) * model_.trsm_flops));
  }
  template <class T>
  void gemv_t(Trans, long m, long n, T, const T*, long, const T*, long, T, T*, long) {
    charge(double(sizeof(T)) * m * n / model_.memory_Bps + model_.kernel_overhead_s);
  }
  template <class L>
  void gemm_mixed_t(Trans, Trans, long m, long n, long k, float, const L*, long, const L*, long,
                    float, float*, long) {
    blas(gemm_seconds(model_.sgemm, m, n, k));
  }

 private:
  // A BLAS call of `seconds` on every SM, on this queue's SMs.
  void blas(double seconds) {
    if (blas_slowdown_ == 1.0) return charge(seconds);
    charge(seconds * blas_slowdown_, false);  // the SMs it leaves are FACT's
  }
  static double trsm_seconds(Side side, long m, long n, double rate) {
    if (m <= 0 || n <= 0) return 0;
    const double tri = side == Side::Left ? m : n, other = side == Side::Left ? n : m;
    return tri * tri * other / rate;
  }
  // A GEMM's time: its model's mean, varied by the model's spread.
  double gemm_seconds(const GemmModel& g, long m, long n, long k) {
    return g.seconds(m, n, k) * spread_factor(g.cv, spread_state_);
  }
  double copy_seconds(const void* dst, const void* src, std::size_t bytes) const;

  SimBackend& backend_;
  const SimModel& model_;
  const bool gpu_;
  double busy_until_ = 0;
  double computes_until_ = 0;
  double blas_slowdown_ = 1.0;  // set_blas_sms
  std::uint64_t spread_state_;  // spread_factor's stream
};

class SimBackend final : public Backend, public Simulation {
 public:
  explicit SimBackend(const SimModel& m) : Backend(this), model_(m) { model_.check(); }
  BackendKind kind() const override { return BackendKind::Sim; }
  std::string describe() const override {
    return fmt::format("sim: SimGrid {}.{} SMPI, {} ranks, kernel models from {}",
                       SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, rank_kind(model_),
                       model_.source);
  }
  bool host_accessible(MemorySpace space) const override { return space != MemorySpace::Device; }
  ~SimBackend() override {
    for (const auto& [capacity, base] : pool_) smpi_shared_free(base);
    for (const auto& [capacity, base] : reserved_) munmap(base, capacity);
    for (const auto& [capacity, base] : small_) std::free(base);
  }
  void* allocate(std::size_t bytes, MemorySpace space) override {
    const std::size_t size = std::max<std::size_t>(bytes, 1);
    void* p = nullptr;
    Kind kind = Kind::Small;
    if (space == MemorySpace::Device) {
      p = reserve(size);
      kind = Kind::Reserved;
    } else if (size >= kSharedFromBytes) {
      p = allocate_shared(size);
      kind = Kind::Shared;
    } else {
      // Small host buffers from the heap, kept and lent again like the
      // others: unmapping pages costs every core a TLB shootdown, and the
      // LU makes such buffers every iteration (aligned allocations were 5%
      // of a 1024-rank simulation's time).
      p = lend(small_, size, 2 * size, size,
               [](std::size_t n) { return std::aligned_alloc(64, (n + 63) / 64 * 64); });
    }
    if (p == MAP_FAILED || p == nullptr)
      throw SystemError(
          fmt::format("sim backend: cannot reserve {} bytes of address space", bytes));
    const std::lock_guard lock(mutex_);
    spaces_[reinterpret_cast<std::uintptr_t>(p)] = {size, space, kind};
    return p;
  }
  void deallocate(void* p, std::size_t, MemorySpace) noexcept override {
    const std::lock_guard lock(mutex_);
    auto it = spaces_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == spaces_.end()) return;
    const Kind kind = it->second.kind;
    spaces_.erase(it);
    auto lent = lent_.find(p);
    pool_of(kind).emplace(lent->second.capacity, lent->second.base);
    lent_.erase(lent);
  }
  int multiprocessors() const override { return model_.multiprocessors; }
  std::size_t free_device_bytes() const override {
    return model_.device_memory_bytes > 0 ? static_cast<std::size_t>(model_.device_memory_bytes)
                                          : std::size_t{1} << 50;
  }
  using Backend::make_queue;
  // Every simulated queue keeps its own busy-until time; a High priority
  // one is modelled as any other (nothing preempts a kernel in the model).
  std::unique_ptr<Queue> make_queue(QueuePriority) override {
    auto q = std::make_unique<SimQueue>(*this, queues_made_++);
    const std::lock_guard lock(mutex_);
    queues_.push_back(q.get());
    return q;
  }
  void forget(const SimQueue* q) {
    const std::lock_guard lock(mutex_);
    std::erase(queues_, q);
  }
  void charge(const HostPass& pass) override {
    host_work(pass.kind == HostPass::kContiguous
                  ? sizeof(double) * pass.elements / model_.host_memory_Bps
                  : pass.elements * model_.host_row_element_s);
  }

  const SimModel& model() const override { return model_; }
  void host_work(double seconds) override {
    // Owed, then slept (core/timer.hpp), not an execution on the host's
    // cores: a rank owns its core or device, and executions would all be
    // shared out again by SimGrid's solver at every event (most of a
    // 256-rank simulation's time).
    defer_work(seconds);
  }
  void queue_work(Queue& q, double seconds) override;
  void fact_work(Queue& q, double alone_s, double beside_s) override;

  // Whether `p` lies in Device memory of this backend (anything else is the host's).
  bool on_device(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::lock_guard lock(mutex_);
    auto it = spaces_.upper_bound(a);
    if (it == spaces_.begin()) return false;
    --it;
    return a < it->first + it->second.bytes && it->second.space == MemorySpace::Device;
  }

 private:
  // Large host buffers carry matrix rows for MPI: SMPI's shared memory, the
  // same pages in every rank, which its message copies skip. Their last
  // bytes stay private: LBCAST's panel ends with the pivots, so a buffer is
  // placed to end (to 64 bytes) where its allocation ends. Allocations are
  // kept and lent again (the LU makes a panel every iteration): SMPI maps
  // and populates shared memory block by block, too slow to repeat. Every
  // mapping of the shared pages also costs the kernel (each page's reverse
  // map lists it), so a rank keeps as few as it can: any pooled buffer that
  // is large enough, new ones a power of two (`hplx sim dgx-h100 --nodes 8
  // --grid 8x8 --nb 256 --n 150000`: at most 1324 mappings of the block in
  // place of 2217).
  void* allocate_shared(std::size_t size) {
    return lend(pool_, size, SIZE_MAX, std::bit_ceil(size), [](std::size_t n) {
      const std::size_t ranges[2] = {0, n - kPrivateTailBytes};
      return smpi_shared_malloc_partial(n, ranges, 1);
    });
  }

  // Device memory: address space only (touching it faults), reserved once
  // and lent again like the shared buffers (unmapping costs a TLB
  // shootdown on every core).
  void* reserve(std::size_t size) {
    return lend(reserved_, size, 4 * size, size, [](std::size_t n) {
      void* base = mmap(nullptr, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      return base == MAP_FAILED ? nullptr : base;
    });
  }

  // A buffer of `size` bytes: the smallest in `pool` that holds it, if that
  // one is at most `largest` bytes, or else a new one of `capacity` bytes
  // from `make`; placed to end (to 64 bytes) where its allocation ends, and
  // recorded so that deallocate() returns it.
  template <class Make>
  void* lend(std::multimap<std::size_t, void*>& pool, std::size_t size, std::size_t largest,
             std::size_t capacity, Make make) {
    const std::lock_guard lock(mutex_);
    auto it = pool.lower_bound(size);
    Lent lent;
    if (it != pool.end() && it->first <= largest) {
      lent = {it->second, it->first};
      pool.erase(it);
    } else {
      lent = {make(capacity), capacity};
      if (lent.base == nullptr) return nullptr;
    }
    void* p = static_cast<char*>(lent.base) + ((lent.capacity - size) & ~std::size_t{63});
    lent_[p] = lent;
    return p;
  }

  enum class Kind { Small, Shared, Reserved };
  std::multimap<std::size_t, void*>& pool_of(Kind kind) {
    return kind == Kind::Shared ? pool_ : kind == Kind::Reserved ? reserved_ : small_;
  }
  struct Allocation {
    std::size_t bytes;
    MemorySpace space;
    Kind kind;
  };
  struct Lent {
    void* base = nullptr;
    std::size_t capacity = 0;
  };
  const SimModel model_;
  int queues_made_ = 0;
  std::vector<SimQueue*> queues_;  // this backend's queues alive
  mutable std::mutex mutex_;
  std::map<std::uintptr_t, Allocation> spaces_;
  std::multimap<std::size_t, void*> pool_;      // shared allocations free to lend, by capacity
  std::multimap<std::size_t, void*> reserved_;  // device reservations free to lend
  std::multimap<std::size_t, void*> small_;     // small host buffers free to lend
  std::map<void*, Lent> lent_;
};

SimQueue::SimQueue(SimBackend& b, int index)
    : backend_(b),
      model_(b.model()),
      gpu_(b.model().gpu),
      spread_state_(model_.seed * 0x9E3779B97F4A7C15ull ^
                    (static_cast<std::uint64_t>(simgrid::s4u::this_actor::get_pid()) << 8) ^
                    static_cast<std::uint64_t>(index)) {}

SimQueue::~SimQueue() {
  backend_.forget(this);
}

Backend& SimQueue::backend() const {
  return backend_;
}

void SimQueue::charge(double seconds, bool computes) {
  if (!gpu_) {
    backend_.host_work(seconds);
    return;
  }
  busy_until_ = ready_at() + seconds;
  if (computes) computes_until_ = busy_until_;
}

void SimBackend::queue_work(Queue& q, double seconds) {
  dynamic_cast<SimQueue&>(q).charge(seconds);
}

void SimBackend::fact_work(Queue& q, double alone_s, double beside_s) {
  auto& fact = dynamic_cast<SimQueue&>(q);
  if (!model_.gpu || beside_s <= alone_s) {
    fact.charge(alone_s);
    return;
  }
  const double start = fact.ready_at();
  double others_end = start;
  {
    const std::lock_guard lock(mutex_);
    for (const SimQueue* other : queues_)
      if (other != &fact) others_end = std::max(others_end, other->computes_until());
  }
  // The share of the part done beside the others' work, then the rest alone.
  const double beside = others_end - start;
  fact.charge(beside >= beside_s ? beside_s : beside + alone_s * (1 - beside / beside_s));
}

void SimQueue::simulate_kernel(double elements, RowCopy kind) {
  charge(model_.kernel_overhead_s + elements * model_.row_seconds(kind));
}

double SimQueue::copy_seconds(const void* dst, const void* src, std::size_t bytes) const {
  const double b = static_cast<double>(bytes);
  if (!gpu_) return b / model_.memory_Bps;
  const bool d = backend_.on_device(dst), s = backend_.on_device(src);
  if (d && s) return b / model_.memory_Bps;
  if (d || s) return model_.link_latency_s + b / model_.link_Bps;
  return b / model_.host_memory_Bps;
}

void SimQueue::copy_bytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  charge(copy_seconds(dst, src, bytes), false);
  if (bytes <= kRealCopyBytes && !backend_.on_device(dst) && !backend_.on_device(src))
    std::memmove(dst, src, bytes);
}

void SimQueue::copy_columns(void* dst, std::size_t dst_pitch, const void* src,
                            std::size_t src_pitch, std::size_t col_bytes, long cols) {
  if (cols <= 0 || col_bytes == 0) return;
  const std::size_t bytes = col_bytes * static_cast<std::size_t>(cols);
  charge(copy_seconds(dst, src, bytes), false);
  if (bytes <= kRealCopyBytes && !backend_.on_device(dst) && !backend_.on_device(src)) {
    for (long j = 0; j < cols; ++j)
      std::memmove(static_cast<char*>(dst) + j * dst_pitch,
                   static_cast<const char*>(src) + j * src_pitch, col_bytes);
  }
}

}  // namespace

std::unique_ptr<Backend> make_sim_backend(const SimModel& model) {
  return std::make_unique<SimBackend>(model);
}

}  // namespace hplx::device
