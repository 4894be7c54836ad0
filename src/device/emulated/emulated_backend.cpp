#include "device/emulated/emulated_backend.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/blas_forwarding.hpp"
#include "device/host/host_backend.hpp"
#include "device/host_blas.hpp"

namespace hplx::device {
namespace {

// The device allocations, to check that BLAS operands are device memory.
class DeviceMemoryMap {
 public:
  void add(const void* p, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(m_);
    spans_[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  }
  void remove(const void* p) {
    std::lock_guard<std::mutex> lock(m_);
    spans_.erase(reinterpret_cast<std::uintptr_t>(p));
  }
  bool contains(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard<std::mutex> lock(m_);
    auto it = spans_.upper_bound(a);
    if (it == spans_.begin()) return false;
    --it;
    return a < it->first + std::max<std::size_t>(it->second, 1);
  }

 private:
  mutable std::mutex m_;
  std::map<std::uintptr_t, std::size_t> spans_;
};

// What the emulated device counts (Backend::counters), shared by its
// queues and events.
struct Counts {
  std::atomic<long> host_waits{0};
  std::atomic<long long> to_device{0}, to_host{0}, on_device{0};
  std::atomic<long> blas_on_fewer_sms{0};
  void copied(const DeviceMemoryMap& memory, const void* dst, const void* src, std::size_t bytes) {
    const bool d = memory.contains(dst), s = memory.contains(src);
    if (d && s)
      on_device += static_cast<long long>(bytes);
    else if (d)
      to_device += static_cast<long long>(bytes);
    else if (s)
      to_host += static_cast<long long>(bytes);
  }
};

// The waits a queue drops (DroppedWaits), consulted on the host's thread as
// the waits are made.
class WaitRules {
 public:
  struct Rule {
    int synchronizes = 0;  // host synchronize() calls still to drop
    // Waits on the events of this worker's queue are dropped; empty: none.
    std::weak_ptr<const void> recorder;
    std::atomic<long> dropped{0};
  };
  void add(const std::shared_ptr<Rule>& r) {
    std::lock_guard<std::mutex> lock(m_);
    rules_.push_back(r);
  }
  void remove(const Rule* r) {
    std::lock_guard<std::mutex> lock(m_);
    std::erase_if(rules_, [r](const std::shared_ptr<Rule>& x) { return x.get() == r; });
  }
  // Whether this synchronize() is dropped (it uses up one of a rule's).
  bool drop_synchronize() {
    std::lock_guard<std::mutex> lock(m_);
    for (const auto& r : rules_)
      if (r->synchronizes > 0) {
        --r->synchronizes;
        ++r->dropped;
        return true;
      }
    return false;
  }
  // Whether a wait on an event of `recorder`'s queue is dropped.
  bool drop_wait(const std::shared_ptr<const void>& recorder) {
    std::lock_guard<std::mutex> lock(m_);
    for (const auto& r : rules_)
      if (!r->recorder.owner_before(recorder) && !recorder.owner_before(r->recorder) &&
          !r->recorder.expired()) {
        ++r->dropped;
        return true;
      }
    return false;
  }

 private:
  std::mutex m_;
  std::vector<std::shared_ptr<Rule>> rules_;
};

// A queue's worker: runs operations in order on its own thread.
class Worker {
 public:
  // `fixed_delay_us`: a wait before every operation, beside the random ones.
  Worker(std::uint64_t seed, const EmulatedOptions& o, int fixed_delay_us)
      : rng_(seed),
        delay_(0, std::max(0, o.max_delay_us)),
        share_(o.delay_share),
        fixed_delay_us_(std::max(0, fixed_delay_us)) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    more_.notify_all();
    thread_.join();
  }

  // The ticket of the pushed operation: it has run when completed() >= it.
  std::uint64_t push(std::function<void()> op) {
    std::lock_guard<std::mutex> lock(m_);
    ops_.push_back(std::move(op));
    more_.notify_all();
    return ++pushed_;
  }
  std::uint64_t pushed() const {
    std::lock_guard<std::mutex> lock(m_);
    return pushed_;
  }
  bool reached(std::uint64_t ticket) const {
    std::lock_guard<std::mutex> lock(m_);
    return completed_ >= ticket;
  }
  void wait_for(std::uint64_t ticket) const {
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return completed_ >= ticket; });
  }
  // Waits for everything pushed so far (not from an operation of its own).
  void wait_idle() const {
    if (std::this_thread::get_id() != thread_.get_id()) wait_for(pushed());
  }
  // The same, then rethrows the first error.
  void drain() {
    wait_idle();
    std::lock_guard<std::mutex> lock(m_);
    if (error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> op;
      {
        std::unique_lock<std::mutex> lock(m_);
        more_.wait(lock, [&] { return stop_ || !ops_.empty(); });
        if (ops_.empty()) return;
        op = std::move(ops_.front());
        ops_.pop_front();
      }
      std::uniform_real_distribution<double> coin(0, 1);
      if (delay_.b() > 0 && coin(rng_) < share_)
        std::this_thread::sleep_for(std::chrono::microseconds(delay_(rng_)));
      if (fixed_delay_us_ > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(fixed_delay_us_));
      std::exception_ptr failure;
      try {
        op();
      } catch (...) {
        failure = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(m_);
        if (failure && !error_) error_ = failure;
        ++completed_;
      }
      done_.notify_all();
    }
  }

  mutable std::mutex m_;
  mutable std::condition_variable more_, done_;
  std::deque<std::function<void()>> ops_;
  std::uint64_t pushed_ = 0, completed_ = 0;
  std::exception_ptr error_;
  bool stop_ = false;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<int> delay_;
  double share_;
  int fixed_delay_us_;
  std::thread thread_;
};

// Reached when the worker has run everything queued before it, and stamped
// then by an operation of its own.
class EmulatedEvent final : public Event {
 public:
  // `reached_at`: null for an event of record(), which only orders work.
  EmulatedEvent(std::shared_ptr<Worker> w, std::uint64_t ticket,
                std::shared_ptr<std::atomic<double>> reached_at, Counts& counts)
      : worker_(std::move(w)),
        ticket_(ticket),
        reached_at_(std::move(reached_at)),
        counts_(counts) {}
  bool done() const override { return worker_->reached(ticket_); }
  // The host's wait (counted); a queue's wait() runs wait_reached() instead.
  void synchronize() override {
    ++counts_.host_waits;
    wait_reached();
  }
  void wait_reached() const { worker_->wait_for(ticket_); }
  const std::shared_ptr<Worker>& worker() const { return worker_; }
  double seconds_until(const Event& later) const override {
    const auto& e = dynamic_cast<const EmulatedEvent&>(later);
    if (!reached_at_ || !e.reached_at_) throw_untimed_event("emulated");
    return e.reached_at_->load() - reached_at_->load();
  }

 private:
  std::shared_ptr<Worker> worker_;
  std::uint64_t ticket_;
  std::shared_ptr<std::atomic<double>> reached_at_;
  Counts& counts_;
};

// Whether `cols` columns of `width` bytes at `a` (pitch pa) and at `b`
// (pitch pb) share a byte.
bool columns_overlap(const char* a, std::size_t pa, const char* b, std::size_t pb,
                     std::size_t width, long cols) {
  const auto span = [&](std::size_t pitch) { return (cols - 1) * pitch + width; };
  if (a + span(pa) <= b || b + span(pb) <= a) return false;
  if (pa != pb || pa == 0) return true;  // their spans meet: taken as overlapping
  // Equal pitches: column i of a meets column j of b where b - a is within
  // one width of (i - j) pitches.
  const auto diff = static_cast<long double>(b - a), pitch = static_cast<long double>(pa);
  const long near = std::lround(diff / pitch);
  for (long k = near - 1; k <= near + 1; ++k)
    if (std::abs(k) <= cols - 1 && std::fabs(diff - k * pitch) < static_cast<long double>(width))
      return true;
  return false;
}

void refuse_overlap(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t width, long cols) {
  if (columns_overlap(static_cast<const char*>(dst), dst_pitch, static_cast<const char*>(src),
                      src_pitch, width, cols))
    throw Error(fmt::format(
        "emulated device: a copy of {} column(s) of {} bytes from {} to {} overlaps itself (its "
        "result is undefined on a GPU)",
        cols, width, src, dst));
}

// A capture's operations in their order (Queue::begin_capture): each one
// to run, what it counts when it is queued (a copy's bytes), or a timed
// event's place.
struct EmulatedGraph final : Graph {
  struct Step {
    std::function<void()> op;
    std::function<void()> on_queue;
    bool marker = false;
  };
  std::vector<Step> steps;
  std::size_t markers = 0;
  const void* queue = nullptr;  // the queue that captured it
};

class EmulatedQueue final : public BlasForwarding<EmulatedQueue> {
 public:
  EmulatedQueue(Backend& b, const DeviceMemoryMap& memory, std::uint64_t seed,
                const EmulatedOptions& o, QueuePriority priority, Counts& counts)
      : backend_(b),
        memory_(memory),
        worker_(std::make_shared<Worker>(
            seed, o, priority == QueuePriority::High ? o.high_priority_delay_us : 0)),
        priority_(priority),
        counts_(counts) {}
  // An error nobody synchronized for goes with the queue, said on stderr
  // (a destructor never throws, nor drops an error unsaid).
  ~EmulatedQueue() override {
    try {
      worker_->drain();
    } catch (const std::exception& e) {
      log_dropped_error("emulated device", "a queue's operation", e.what());
    } catch (...) {
      log_dropped_error("emulated device", "a queue's operation", "unknown exception");
    }
  }
  QueuePriority priority() const override { return priority_; }
  // No SMs here: the calls made with a target are counted (DeviceCounters).
  void set_blas_sms(int sms) override { blas_sms_ = sms; }
  Backend& backend() const override { return backend_; }
  const std::shared_ptr<Worker>& worker() const { return worker_; }
  bool runs_inline() const override { return false; }
  bool executes_on_host() const override { return true; }

  // cudaMemcpyAsync and cudaMemcpy2DAsync leave overlapping source and
  // destination undefined (a GPU copies in parallel): refused here.
  void copy_bytes(void* dst, const void* src, std::size_t bytes) override {
    if (bytes == 0 || dst == src) return;
    refuse_overlap(dst, bytes, src, bytes, bytes, 1);
    count([this, dst, src, bytes] { counts_.copied(memory_, dst, src, bytes); });
    push([=] { std::memcpy(dst, src, bytes); });
  }
  void copy_columns(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t col_bytes, long cols) override {
    if (cols <= 0 || col_bytes == 0) return;
    refuse_overlap(dst, dst_pitch, src, src_pitch, col_bytes, cols);
    count([this, dst, src, bytes = col_bytes * static_cast<std::size_t>(cols)] {
      counts_.copied(memory_, dst, src, bytes);
    });
    push([=] {
      auto* d = static_cast<char*>(dst);
      const auto* s = static_cast<const char*>(src);
      for (long j = 0; j < cols; ++j) std::memcpy(d + j * dst_pitch, s + j * src_pitch, col_bytes);
    });
  }
  void execute(std::function<void()> work) override { push(std::move(work)); }
  void host_callback(std::function<void()> fn) override { push(std::move(fn)); }
  EventPtr record() override {
    refuse_in_capture("record()");
    const std::uint64_t ticket = worker_->push([] {});
    return std::make_shared<EmulatedEvent>(worker_, ticket, nullptr, counts_);
  }
  EventPtr record_timed() override {
    if (capture_) {
      capture_->steps.push_back({{}, {}, true});
      return std::make_shared<CapturedEvent>(capture_->markers++);
    }
    return timed_event();
  }
  void wait(const EventPtr& e) override {
    refuse_in_capture("wait()");
    if (const auto* own = dynamic_cast<const EmulatedEvent*>(e.get());
        own && dropped_->drop_wait(own->worker()))
      return;
    if (!e || e->done()) return;
    worker_->push([e] {
      if (const auto* own = dynamic_cast<const EmulatedEvent*>(e.get()))
        own->wait_reached();
      else
        e->synchronize();
    });
  }
  void synchronize() override {
    refuse_in_capture("synchronize()");
    if (dropped_->drop_synchronize()) return;
    ++counts_.host_waits;
    worker_->drain();
  }
  const std::shared_ptr<WaitRules>& dropped_waits() const { return dropped_; }

  // As a CUDA stream's capture: operations are recorded, not run, and a
  // replay queues them all again (random delays included), with fresh
  // timed events where the capture recorded them.
  bool can_capture() const override { return true; }
  void begin_capture() override {
    refuse_in_capture("begin_capture()");
    capture_ = std::make_unique<EmulatedGraph>();
    capture_->queue = this;
  }
  GraphPtr end_capture() override {
    if (!capture_) throw Error("emulated device: end_capture() without begin_capture()");
    return std::move(capture_);
  }
  std::vector<EventPtr> replay(Graph& graph) override {
    refuse_in_capture("replay()");
    auto* g = dynamic_cast<EmulatedGraph*>(&graph);
    if (g == nullptr || g->queue != this)
      throw Error("emulated device: replay() of a graph another queue captured");
    std::vector<EventPtr> events;
    events.reserve(g->markers);
    for (const EmulatedGraph::Step& step : g->steps) {
      if (step.on_queue) step.on_queue();
      if (step.marker)
        events.push_back(timed_event());
      else if (step.op)
        worker_->push(step.op);
    }
    return events;
  }

 private:
  friend class BlasForwarding<EmulatedQueue>;

  // An operation in the queue's order, or into the capture.
  void push(std::function<void()> op) {
    if (capture_)
      capture_->steps.push_back({std::move(op), {}, false});
    else
      worker_->push(std::move(op));
  }
  // What an operation counts as it is queued (a capture: at each replay).
  void count(std::function<void()> counted) {
    if (capture_)
      capture_->steps.push_back({{}, std::move(counted), false});
    else
      counted();
  }
  EventPtr timed_event() {
    auto reached_at = std::make_shared<std::atomic<double>>(0.0);
    const std::uint64_t ticket = worker_->push([reached_at] { *reached_at = wall_time(); });
    return std::make_shared<EmulatedEvent>(worker_, ticket, std::move(reached_at), counts_);
  }
  void refuse_in_capture(const char* what) const {
    if (capture_)
      throw Error(fmt::format(
          "emulated device: {} during a capture (a CUDA stream being captured refuses it too)",
          what));
  }

  // cuBLAS reads its operands from device memory only.
  void require_device(const char* op, const char* what, const void* p) const {
    if (!memory_.contains(p))
      throw Error(fmt::format(
          "emulated device: {} operand {} at {} is not device memory (a GPU BLAS cannot read it)",
          op, what, p));
  }
  template <class T>
  void gemm_t(Trans ta, Trans tb, long m, long n, long k, T alpha, const T* a, long lda, const T* b,
              long ldb, T beta, T* c, long ldc) {
    if (m <= 0 || n <= 0) return;
    if (k > 0) {
      require_device("gemm", "A", a);
      require_device("gemm", "B", b);
    }
    require_device("gemm", "C", c);
    count_fewer_sms();
    push([=] { host_blas::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); });
  }
  // The host's widen-and-SGEMM on the queue's thread (host_backend.hpp).
  template <class T>
  void gemm_mixed_t(Trans ta, Trans tb, long m, long n, long k, float alpha, const T* a, long lda,
                    const T* b, long ldb, float beta, float* c, long ldc) {
    if (m <= 0 || n <= 0) return;
    if (k > 0) {
      require_device("gemm_mixed", "A", a);
      require_device("gemm_mixed", "B", b);
    }
    require_device("gemm_mixed", "C", c);
    count_fewer_sms();
    push([=] { host_gemm_mixed(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); });
  }
  template <class T>
  void trsm_t(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, T alpha, const T* a,
              long lda, T* b, long ldb) {
    if (m <= 0 || n <= 0) return;
    require_device("trsm", "A", a);
    require_device("trsm", "B", b);
    count_fewer_sms();
    push([=] { host_blas::trsm(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb); });
  }
  template <class T>
  void gemv_t(Trans ta, long m, long n, T alpha, const T* a, long lda, const T* x, long incx,
              T beta, T* y, long incy) {
    const long ny = ta == Trans::No ? m : n;
    if (ny <= 0) return;
    if (m > 0 && n > 0) {
      require_device("gemv", "A", a);
      require_device("gemv", "x", x);
    }
    require_device("gemv", "y", y);
    count_fewer_sms();
    push([=] { host_blas::gemv(ta, m, n, alpha, a, lda, x, incx, beta, y, incy); });
  }
  void count_fewer_sms() {
    if (blas_sms_ > 0) ++counts_.blas_on_fewer_sms;
  }

  Backend& backend_;
  const DeviceMemoryMap& memory_;
  std::shared_ptr<Worker> worker_;
  QueuePriority priority_;
  Counts& counts_;
  int blas_sms_ = 0;                        // set_blas_sms
  std::unique_ptr<EmulatedGraph> capture_;  // while capturing
  std::shared_ptr<WaitRules> dropped_ = std::make_shared<WaitRules>();
};

EmulatedQueue& emulated_queue(Queue& q, const char* what) {
  auto* e = dynamic_cast<EmulatedQueue*>(&q);
  if (e == nullptr)
    throw Error(fmt::format("DroppedWaits::{}: a queue of the {} backend, not the emulated device",
                            what, name_of(q.backend().kind())));
  return *e;
}

// A DroppedWaits' hold on `rule`, put on `q`'s rules until it goes.
std::shared_ptr<void> hold(EmulatedQueue& q, const std::shared_ptr<WaitRules::Rule>& rule) {
  q.dropped_waits()->add(rule);
  return std::shared_ptr<void>(rule.get(),
                               [rules = std::weak_ptr<WaitRules>(q.dropped_waits()), rule](void*) {
                                 if (auto r = rules.lock()) r->remove(rule.get());
                               });
}

class EmulatedBackend final : public Backend {
 public:
  explicit EmulatedBackend(const EmulatedOptions& o) : options_(o) {}
  BackendKind kind() const override { return BackendKind::Emulated; }
  std::string describe() const override {
    return fmt::format(
        "emulated device (an emulation on the CPU, not a GPU: separate memory, queues on worker "
        "threads, delays up to {} us, seed {}{})",
        options_.max_delay_us, options_.seed,
        options_.high_priority_delay_us > 0
            ? fmt::format(", {} us before each operation of a high-priority (panel) queue",
                          options_.high_priority_delay_us)
            : std::string());
  }
  bool host_accessible(MemorySpace space) const override { return space != MemorySpace::Device; }
  // Fresh memory holds garbage, as cudaMalloc's and cudaMallocHost's do: all
  // bits set (a NaN in every float and double), so a read of what nothing
  // wrote shows in the results here rather than only on a GPU.
  void* allocate(std::size_t bytes, MemorySpace space) override {
    void* p = allocate_host(bytes);
    std::memset(p, 0xff, bytes);
    if (space == MemorySpace::Device) memory_.add(p, bytes);
    if (space != MemorySpace::Host) ++device_allocations_;
    return p;
  }
  long device_allocations() const override { return device_allocations_; }
  DeviceCounters counters() const override {
    DeviceCounters c;
    c.allocations = device_allocations_;
    c.host_waits = counts_.host_waits;
    c.bytes_to_device = counts_.to_device;
    c.bytes_to_host = counts_.to_host;
    c.bytes_device_to_device = counts_.on_device;
    c.blas_on_fewer_sms = counts_.blas_on_fewer_sms;
    return c;
  }
  // As cudaFree and cudaFreeHost: the device finishes the work queued so
  // far before the memory goes (a buffer freed while a queue still reads it
  // is then safe here, as it is on a GPU).
  void deallocate(void* p, std::size_t, MemorySpace space) noexcept override {
    if (space != MemorySpace::Host) {
      ++counts_.host_waits;
      wait_for_all_queues();
    }
    if (space == MemorySpace::Device) memory_.remove(p);
    free_host(p);
  }
  std::size_t free_device_bytes() const override { return free_host_bytes(); }
  using Backend::make_queue;
  // Each queue is its own worker thread; High priority changes nothing
  // here (the OS shares the cores among the workers).
  std::unique_ptr<Queue> make_queue(QueuePriority priority) override {
    auto q = std::make_unique<EmulatedQueue>(*this, memory_, options_.seed + queues_++, options_,
                                             priority, counts_);
    std::lock_guard<std::mutex> lock(workers_m_);
    workers_.push_back(q->worker());
    return q;
  }

 private:
  void wait_for_all_queues() noexcept {
    std::lock_guard<std::mutex> lock(workers_m_);
    std::erase_if(workers_, [](const std::weak_ptr<Worker>& w) { return w.expired(); });
    for (const auto& weak : workers_)
      if (auto w = weak.lock()) w->wait_idle();
  }

  EmulatedOptions options_;
  DeviceMemoryMap memory_;
  std::atomic<long> device_allocations_{0};
  Counts counts_;
  std::uint64_t queues_ = 0;
  std::mutex workers_m_;
  std::vector<std::weak_ptr<Worker>> workers_;
};

long env_number(const char* name, long fallback, long lo, long hi) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi)
    throw UsageError(fmt::format("{}={}: expected an integer in [{}, {}]", name, v, lo, hi));
  return x;
}

}  // namespace

DroppedWaits DroppedWaits::next_synchronizes(Queue& q, int count) {
  EmulatedQueue& e = emulated_queue(q, "next_synchronizes");
  auto rule = std::make_shared<WaitRules::Rule>();
  rule->synchronizes = std::max(0, count);
  return DroppedWaits(hold(e, rule),
                      std::shared_ptr<const std::atomic<long>>(rule, &rule->dropped));
}

DroppedWaits DroppedWaits::waits_on_events_of(Queue& waiter, Queue& recorder) {
  EmulatedQueue& w = emulated_queue(waiter, "waits_on_events_of");
  const EmulatedQueue& r = emulated_queue(recorder, "waits_on_events_of");
  auto rule = std::make_shared<WaitRules::Rule>();
  rule->recorder = r.worker();
  return DroppedWaits(hold(w, rule),
                      std::shared_ptr<const std::atomic<long>>(rule, &rule->dropped));
}

EmulatedOptions emulated_options_from_env() {
  EmulatedOptions o;
  o.seed = static_cast<std::uint64_t>(
      env_number("HPLX_EMULATED_SEED", static_cast<long>(o.seed), 0, 1L << 62));
  o.max_delay_us =
      static_cast<int>(env_number("HPLX_EMULATED_DELAY_US", o.max_delay_us, 0, 100000));
  o.high_priority_delay_us = static_cast<int>(
      env_number("HPLX_EMULATED_HIGH_PRIORITY_DELAY_US", o.high_priority_delay_us, 0, 100000));
  return o;
}

std::unique_ptr<Backend> make_emulated_backend(const EmulatedOptions& options) {
  return std::make_unique<EmulatedBackend>(options);
}

}  // namespace hplx::device
