// The device layer's contract, checked on every implementation compiled in:
// what a driver relies on when it moves data and orders work.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "core/error.hpp"
#include "device/compiled_backends.hpp"
#include "device/device.hpp"
#include "device/emulated/emulated_backend.hpp"
#include "device/launch.hpp"
#include "device/mirror.hpp"
#include "tests/device/backends.hpp"
#include "tests/device/test_bodies.hpp"
#include "tests/device/test_data.hpp"

namespace hplx::device {
namespace {

using test::random_values;

class DeviceContract : public testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override { dev_ = make_device(GetParam()); }
  Queue& q() { return dev_->compute(); }

  // Host vector -> device buffer.
  template <class T>
  Buffer<T> upload(const std::vector<T>& v) {
    Buffer<T> b = dev_->alloc<T>(static_cast<long>(v.size()));
    copy(q(), b.data(), v.data(), static_cast<long>(v.size()));
    return b;
  }
  template <class T>
  std::vector<T> download(const Buffer<T>& b) {
    std::vector<T> v(b.size());
    copy(q(), v.data(), b.data(), b.size());
    q().synchronize();
    return v;
  }

 public:
  Device& dev() { return *dev_; }

 protected:
  std::shared_ptr<Device> dev_;
};

TEST_P(DeviceContract, CopiesRoundTripThroughDeviceMemory) {
  const std::vector<double> host = random_values(1000, 1);
  Buffer<double> d = upload(host);
  EXPECT_EQ(d.size(), 1000);
  EXPECT_EQ(download(d), host);
}

TEST_P(DeviceContract, CopyMatrixMovesOnlyTheBlock) {
  // A 5 x 3 block out of a 7 x 4 matrix into a 6 x 3 one.
  std::vector<double> a = random_values(28, 2), out(18, -9.0);
  Buffer<double> da = upload(a), dout = upload(out);
  copy_matrix(q(), 5, 3, da.data() + 1 + 7, 7, dout.data(), 6);
  const std::vector<double> got = download(dout);
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 5; ++i) EXPECT_EQ(got[i + j * 6], a[1 + i + (j + 1) * 7]);
    EXPECT_EQ(got[5 + j * 6], -9.0) << "the row past the block was written";
  }
}

using test::AxpyBody;
using test::SquareBody;
using test::TermBody;

TEST_P(DeviceContract, LaunchRunsTheBodyOnceForEveryIndex) {
  const long n = 100000;  // above the grain: threads share it on the host
  const std::vector<double> x = random_values(n, 3), y0 = random_values(n, 4);
  Buffer<double> dx = upload(x), dy = upload(y0);
  launch(q(), n, AxpyBody{2.0, dx.data(), dy.data()});
  const std::vector<double> y = download(dy);
  for (long i = 0; i < n; ++i) ASSERT_EQ(y[i], y0[i] + 2.0 * x[i]) << i;
}

TEST_P(DeviceContract, EachPhaseSeesEveryWriteOfThePhaseBefore) {
  // One block (a GPU's barrier inside the block), a few, and as many as
  // the device holds at once (a grid-wide barrier); more elements than a
  // block's threads, so each thread reads other threads' writes.
  const long n = 5003, phases = 37;
  std::vector<double> x0(n);  // whole numbers: the sums are exact
  for (long i = 0; i < n; ++i) x0[i] = static_cast<double>((i * 7919) % 10007);
  const std::vector<double> zeros(n, 0.0);  // a copy's source lives until the queue has read it
  for (int blocks : {1, 3, 0}) {
    Buffer<double> a = upload(x0), b = upload(zeros);
    launch_phased(q(), test::ShiftPhases{{a.data(), b.data()}, n, phases}, blocks);
    const std::vector<double> got = download(phases % 2 == 0 ? a : b);
    for (long i = 0; i < n; ++i)
      ASSERT_EQ(got[i], x0[(i + phases) % n] + static_cast<double>(phases))
          << "blocks " << blocks << ", element " << i;
  }
}

TEST_P(DeviceContract, ReduceSumAddsEveryTerm) {
  const long n = 50001;
  const std::vector<double> x = random_values(n, 5);
  Buffer<double> dx = upload(x);
  double want = 0;
  for (double v : x) want += v * v;
  EXPECT_NEAR(reduce_sum(q(), n, SquareBody{dx.data()}), want, 1e-9 * want);
}

TEST_P(DeviceContract, ReduceSumGivesTheSameBitsEveryRunAndOnAnyThreadCount) {
  // Terms of magnitudes 1e-8 to 1e8: every order of additions rounds
  // differently, so only a fixed order gives the same sum each time.
  const long n = 300007;
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0), e(-8.0, 8.0);
  std::vector<double> x(n);
  for (double& v : x) v = u(gen) * std::pow(10.0, e(gen));
  Buffer<double> dx = upload(x);
  const int threads = omp_get_max_threads();
  const double first = reduce_sum(q(), n, TermBody{dx.data()});
  for (int run = 0; run < 4; ++run) {
    omp_set_num_threads(run % 2 == 0 ? 1 : std::max(2, threads));
    const double again = reduce_sum(q(), n, TermBody{dx.data()});
    EXPECT_EQ(std::memcmp(&first, &again, sizeof first), 0)
        << "run " << run << ": " << first << " then " << again;
  }
  omp_set_num_threads(threads);
  double want = 0;
  for (double v : x) want += v;
  EXPECT_NEAR(first, want, 1e-6 * std::fabs(want) + 1e-6);
}

TEST_P(DeviceContract, EventOrdersOneQueueAfterAnother) {
  // transfer fills, compute waits for its event, then doubles: the result
  // must see the fill whatever the queues' timing.
  const long n = 4096;
  std::vector<double> ones(n, 1.0);
  Buffer<double> d = dev_->alloc<double>(n);
  for (int round = 0; round < 20; ++round) {
    copy(dev_->transfer(), d.data(), ones.data(), n);
    EventPtr filled = dev_->transfer().record();
    q().wait(filled);
    launch(q(), n, AxpyBody{1.0, d.data(), d.data()});
    std::vector<double> got(n);
    copy(q(), got.data(), d.data(), n);
    q().synchronize();
    EventPtr done = q().record();
    done->synchronize();
    EXPECT_TRUE(done->done());
    ASSERT_EQ(got[0], 2.0);
    ASSERT_EQ(got[n - 1], 2.0);
  }
}

// The panel queue: High priority, beside Normal compute and transfer
// queues, and ordered with them by events like any queue. Work flows
// compute -> panel -> transfer -> compute each round; every step must see
// the one before whatever the queues' timing.
TEST_P(DeviceContract, PanelQueueHasHighPriorityAndOrdersLikeAnyQueue) {
  EXPECT_EQ(dev_->panel().priority(), QueuePriority::High);
  EXPECT_EQ(dev_->compute().priority(), QueuePriority::Normal);
  EXPECT_EQ(dev_->transfer().priority(), QueuePriority::Normal);
  EXPECT_NE(&dev_->panel(), &dev_->compute());
  EXPECT_NE(&dev_->panel(), &dev_->transfer());
  EXPECT_EQ(dev_->backend().make_queue(QueuePriority::High)->priority(), QueuePriority::High);
  EXPECT_EQ(dev_->backend().make_queue()->priority(), QueuePriority::Normal);
  const long n = 4096;
  std::vector<double> ones(n, 1.0);
  Buffer<double> d = dev_->alloc<double>(n);
  for (int round = 0; round < 10; ++round) {
    copy(q(), d.data(), ones.data(), n);
    dev_->panel().wait(q().record());
    launch(dev_->panel(), n, AxpyBody{1.0, d.data(), d.data()});  // 2
    dev_->transfer().wait(dev_->panel().record());
    launch(dev_->transfer(), n, AxpyBody{1.0, d.data(), d.data()});  // 4
    q().wait(dev_->transfer().record());
    std::vector<double> got(n);
    copy(q(), got.data(), d.data(), n);
    q().synchronize();
    ASSERT_EQ(got[0], 4.0) << "round " << round;
    ASSERT_EQ(got[n - 1], 4.0) << "round " << round;
  }
}

// Events that only order work have no time (on a GPU they are made without
// a timestamp): asking one for seconds is an error on every backend, not
// a silent zero.
TEST_P(DeviceContract, OnlyTimedEventsTellSeconds) {
  EventPtr plain = q().record(), timed = q().record_timed();
  plain->synchronize();
  timed->synchronize();
  EXPECT_TRUE(plain->done());
  EXPECT_THROW(plain->seconds_until(*timed), Error);
  EXPECT_THROW(timed->seconds_until(*plain), Error);
  EventPtr later = q().record_timed();
  later->synchronize();
  EXPECT_NO_THROW(timed->seconds_until(*later));
}

TEST_P(DeviceContract, EventsTimeTheWorkBetweenThem) {
  // 30 ms of work between two events: the queue's own clock says so (the
  // emulated device's random delays may only add to it).
  EventPtr before = q().record_timed();
  q().host_callback([] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); });
  EventPtr after = q().record_timed();
  after->synchronize();
  before->synchronize();
  const double s = before->seconds_until(*after);
  EXPECT_GE(s, 0.029);
  EXPECT_LT(s, 5.0);
  EXPECT_NEAR(after->seconds_until(*before), -s, 1e-6);
  // An event on the other queue, recorded after `after` was reached, is later.
  EventPtr other = dev_->transfer().record_timed();
  other->synchronize();
  EXPECT_GE(before->seconds_until(*other), s);
}

// Capture and replay (queue.hpp): what a capture records runs only when
// replayed, each replay runs all of it again in the queue's order on the
// pointers as they are then, and the timed events each replay returns time
// that replay. A wait of the host inside a capture is refused, as a CUDA
// stream being captured refuses it. Queues that cannot capture say so.
TEST_P(DeviceContract, ReplayRunsTheCapturedWorkAgainEachTime) {
  if (!q().can_capture()) {
    EXPECT_THROW(q().begin_capture(), Error);
    return;
  }
  const long n = 100000;
  const std::vector<double> x = random_values(n, 3), y0 = random_values(n, 4), zero(n, 0.0);
  Buffer<double> dx = upload(x), dy = upload(y0), dz = upload(zero);
  q().synchronize();
  q().begin_capture();
  EXPECT_THROW(q().synchronize(), Error);
  EXPECT_THROW(q().record(), Error);
  const EventPtr start = q().record_timed();
  launch(q(), n, AxpyBody{2.0, dx.data(), dy.data()});  // y += 2 x
  copy(q(), dz.data(), dy.data(), n);                   // z = y
  const EventPtr end = q().record_timed();
  GraphPtr graph = q().end_capture();
  EXPECT_THROW(start->done(), Error) << "a captured event stands for the replays' events";
  EXPECT_EQ(download(dy), y0) << "a capture runs nothing";
  std::vector<double> want = y0;
  for (int replay = 1; replay <= 3; ++replay) {
    const std::vector<EventPtr> events = q().replay(*graph);
    ASSERT_EQ(events.size(), 2u);
    const std::vector<double> y = download(dy), z = download(dz);
    for (long i = 0; i < n; i += 997) {
      want[i] += 2.0 * x[i];
      ASSERT_EQ(y[i], want[i]) << "replay " << replay << ", row " << i;
      ASSERT_EQ(z[i], y[i]) << "replay " << replay << ", row " << i;
    }
    EXPECT_TRUE(events[1]->done());
    EXPECT_GE(events[0]->seconds_until(*events[1]), 0.0);
  }
  // The pointers are the capture's: new values there are what a replay reads.
  const std::vector<double> x2 = random_values(n, 9);
  copy(q(), dx.data(), x2.data(), n);
  const std::vector<double> before = download(dy);
  q().replay(*graph);
  const std::vector<double> after = download(dy);
  for (long i = 0; i < n; i += 997) ASSERT_EQ(after[i], before[i] + 2.0 * x2[i]) << i;
}

template <class T>
std::vector<T> naive_gemm(long m, long n, long k, const std::vector<T>& a, const std::vector<T>& b,
                          const std::vector<T>& c, T alpha, T beta, bool tb) {
  std::vector<T> r(c);
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < m; ++i) {
      double s = 0;
      for (long l = 0; l < k; ++l)
        s += double(a[i + l * m]) * double(tb ? b[j + l * n] : b[l + j * k]);
      r[i + j * m] = static_cast<T>(alpha * s + beta * double(c[i + j * m]));
    }
  return r;
}

template <class T>
void check_gemm(DeviceContract& t, Queue& q, double tol) {
  const long m = 37, n = 29, k = 17;
  auto conv = [](const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); };
  const auto a = conv(random_values(m * k, 6)), b = conv(random_values(k * n, 7)),
             c = conv(random_values(m * n, 8));
  for (bool tb : {false, true}) {
    Buffer<T> da = t.dev().template alloc<T>(m * k), db = t.dev().template alloc<T>(k * n),
              dc = t.dev().template alloc<T>(m * n);
    copy(q, da.data(), a.data(), m * k);
    copy(q, db.data(), b.data(), k * n);
    copy(q, dc.data(), c.data(), m * n);
    q.gemm(Trans::No, tb ? Trans::Yes : Trans::No, m, n, k, T(-1), da.data(), m, db.data(),
           tb ? n : k, T(1), dc.data(), m);
    std::vector<T> got(m * n);
    copy(q, got.data(), dc.data(), m * n);
    q.synchronize();
    const auto want = naive_gemm<T>(m, n, k, a, b, c, T(-1), T(1), tb);
    for (long i = 0; i < m * n; ++i) ASSERT_NEAR(got[i], want[i], tol) << i;
  }
}

TEST_P(DeviceContract, GemmMatchesTheLoopsInDoubleAndFloat) {
  check_gemm<double>(*this, q(), 1e-12);
  check_gemm<float>(*this, q(), 1e-4);
}

TEST_P(DeviceContract, TrsmSolvesAndGemvMultiplies) {
  // L unit lower 4 x 4, B 4 x 3: L X = B, then check L X by gemv per column.
  const long m = 4, n = 3;
  std::vector<double> l = random_values(m * m, 9), b = random_values(m * n, 10);
  Buffer<double> dl = upload(l), dx = upload(b);
  q().trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, m, n, 1.0, dl.data(), m, dx.data(), m);
  std::vector<double> unit = l;
  for (long j = 0; j < m; ++j) {
    for (long i = 0; i < j; ++i) unit[i + j * m] = 0;
    unit[j + j * m] = 1;
  }
  Buffer<double> du = upload(unit), dy = dev_->alloc<double>(m);
  for (long j = 0; j < n; ++j) {
    q().gemv(Trans::No, m, m, 1.0, du.data(), m, dx.data() + j * m, 1, 0.0, dy.data(), 1);
    const std::vector<double> y = download(dy);
    for (long i = 0; i < m; ++i) EXPECT_NEAR(y[i], b[i + j * m], 1e-12);
  }
}

TEST_P(DeviceContract, HostCallbackRunsInQueueOrder) {
  std::vector<int> seen;
  Buffer<double> d = dev_->alloc<double>(1);
  const double one = 1;
  copy(q(), d.data(), &one, 1);
  q().host_callback([&] { seen.push_back(1); });
  q().host_callback([&] { seen.push_back(2); });
  q().synchronize();
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));
}

// Mirrors (mirror.hpp): one memory where Device memory is host accessible,
// two sides with queue copies between them otherwise.
TEST_P(DeviceContract, MirrorSidesAreOneMemoryExactlyWhenDeviceMemoryIsHostAccessible) {
  Mirror<double> m(dev().backend());
  m.resize(100);
  const bool one = dev().backend().host_accessible(MemorySpace::Device);
  EXPECT_EQ(m.aliased(), one);
  EXPECT_EQ(m.data() == m.device(), one);
  EXPECT_EQ(m.size(), 100);
}

TEST_P(DeviceContract, MirrorCarriesHostValuesToAKernelAndItsResultBack) {
  const long n = 5000;
  const std::vector<double> x0 = random_values(n, 11), y0 = random_values(n, 12);
  Mirror<double> x(dev().backend()), y(dev().backend());
  x.resize(n);
  y.resize(n);
  std::copy(x0.begin(), x0.end(), x.data());
  std::copy(y0.begin(), y0.end(), y.data());
  x.to_device(q());
  y.to_device(q());
  launch(q(), n, AxpyBody{3.0, x.device(), y.device()});
  y.to_host(q());
  q().synchronize();
  // nvcc contracts the body's y + a x into one FMA, one rounding fewer than
  // the host's multiply and add: equal up to a rounding, not bit for bit.
  const double eps = std::numeric_limits<double>::epsilon();
  for (long i = 0; i < n; ++i)
    ASSERT_NEAR(y[i], y0[i] + 3.0 * x0[i], eps * (std::fabs(y0[i]) + 3.0 * std::fabs(x0[i]))) << i;
  // Part of a mirror: only elements [10, 20) come back (with one memory
  // there is nothing to copy, and the -1s are the device side's too).
  if (y.aliased()) return;
  std::vector<double> computed(n);
  for (long i = 0; i < n; ++i) computed[i] = y[i];
  for (long i = 0; i < n; ++i) y[i] = -1.0;
  y.to_host(q(), 10, 10);
  q().synchronize();
  for (long i = 0; i < n; ++i) ASSERT_EQ(y[i], i >= 10 && i < 20 ? computed[i] : -1.0) << i;
}

TEST_P(DeviceContract, MirrorKeepsItsCapacityAndAnUnboundOneIsHostMemory) {
  Mirror<double> m(dev().backend());
  m.resize(1000);
  const double* first = m.device();
  m.resize(400);  // within the capacity: the same memory
  EXPECT_EQ(m.device(), first);
  EXPECT_EQ(m.size(), 400);
  m.resize(4000);  // beyond it: new memory of the new size
  EXPECT_EQ(m.size(), 4000);
  m.assign(4000, 2.5);
  EXPECT_EQ(m[3999], 2.5);
  Mirror<double> loose;  // no backend: host memory, both sides one
  loose.resize(8);
  EXPECT_TRUE(loose.aliased());
  EXPECT_EQ(loose.data(), loose.device());
}

// Mixed precision (HPL-MxP's factorization in FP16 or BF16 on a GPU).

// FP32 values over much of FP16's range and beyond, and the values whose
// rounding is easy to get wrong (ties, overflow, subnormals, NaN).
std::vector<float> values_to_round(long count) {
  const std::vector<double> r = random_values(count, 13);
  std::vector<float> v(count);
  for (long i = 0; i < count; ++i) v[i] = static_cast<float>(std::ldexp(r[i], int(i % 61) - 40));
  const float inf = std::numeric_limits<float>::infinity();
  const float special[] = {1.0f,
                           -2.0f,
                           65504.0f,
                           65520.0f,
                           -65520.0f,
                           inf,
                           -inf,
                           std::numeric_limits<float>::quiet_NaN(),
                           std::ldexp(1.0f, -24),
                           std::ldexp(1.0f, -25),
                           3 * std::ldexp(1.0f, -25),
                           1.0f + std::ldexp(1.0f, -11),
                           1.0f + std::ldexp(1.0f, -8),
                           1.0f + 3 * std::ldexp(1.0f, -8),
                           std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::denorm_min(),
                           -0.0f};
  for (std::size_t s = 0; s < std::size(special) && long(s) * 7 < count; ++s) v[s * 7] = special[s];
  return v;
}

template <class T>
void check_convert(DeviceContract& t, Queue& q) {
  // 101 x 97 out of leading dimensions 104 and 103: above the host's
  // threading grain, and the rows past m of B must stay as they were.
  const long m = 101, n = 97, lda = 104, ldb = 103;
  const std::vector<float> a = values_to_round(lda * n);
  const T sentinel{0xabcd};
  std::vector<T> b(ldb * n, sentinel);
  Buffer<float> da = t.dev().template alloc<float>(lda * n);
  Buffer<T> db = t.dev().template alloc<T>(ldb * n);
  copy(q, da.data(), a.data(), lda * n);
  copy(q, db.data(), b.data(), ldb * n);
  q.convert(m, n, da.data(), lda, db.data(), ldb);
  copy(q, b.data(), db.data(), ldb * n);
  q.synchronize();
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < ldb; ++i) {
      const std::uint16_t want = i < m ? round_to<T>(a[i + j * lda]).bits : sentinel.bits;
      ASSERT_EQ(b[i + j * ldb].bits, want) << "row " << i << " column " << j;
    }
}

TEST_P(DeviceContract, ConvertRoundsEveryElementOfTheBlockToHalfAndBFloat16) {
  check_convert<Half>(*this, q());
  check_convert<BFloat16>(*this, q());
}

// C = alpha op(A) op(B) + beta C with 16-bit A and B (stored with leading
// dimensions past their rows), or FP32 A and B multiplied in TF32
// (gemm_tf32), against the same product of the operands' values (the
// 16-bit values; the floats rounded by round_to_tf32) in double. FP32
// products and sums in any order are within (k + 2) eps32 (|alpha| |op(A)|
// |op(B)| + |beta| |C|) of it; the tolerance is twice that, for tensor cores
// that truncate inside their additions. A GPU may round FP32 to TF32 by
// another rule (truncation): there each product may be off by 2^-9 of its
// size more.
template <class T>
float operand_value(T x) {
  if constexpr (std::is_same_v<T, float>)
    return round_to_tf32(x);
  else
    return to_float(x);
}

template <class T>
void check_gemm_mixed(DeviceContract& t, Queue& q, Trans ta, Trans tb, long m, long n, long k) {
  const long rows_a = ta == Trans::No ? m : k, cols_a = ta == Trans::No ? k : m;
  const long rows_b = tb == Trans::No ? k : n, cols_b = tb == Trans::No ? n : k;
  const long lda = rows_a + 3, ldb = rows_b + 2, ldc = m + 1;
  auto stored = [](const std::vector<double>& v) {
    std::vector<T> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_same_v<T, float>)
        r[i] = static_cast<float>(v[i]);
      else
        r[i] = round_to<T>(static_cast<float>(v[i]));
    }
    return r;
  };
  const std::vector<T> a = stored(random_values(lda * cols_a, 14)),
                       b = stored(random_values(ldb * cols_b, 15));
  const std::vector<double> c64 = random_values(ldc * n, 16);
  std::vector<float> c(c64.begin(), c64.end());
  for (long j = 0; j < n; ++j) c[m + j * ldc] = -7.0f;  // the row past C's block
  const float alpha = 0.75f, beta = -1.25f;

  Buffer<T> da = t.dev().template alloc<T>(lda * cols_a),
            db = t.dev().template alloc<T>(ldb * cols_b);
  Buffer<float> dc = t.dev().template alloc<float>(ldc * n);
  copy(q, da.data(), a.data(), lda * cols_a);
  copy(q, db.data(), b.data(), ldb * cols_b);
  copy(q, dc.data(), c.data(), ldc * n);
  if constexpr (std::is_same_v<T, float>)
    q.gemm_tf32(ta, tb, m, n, k, alpha, da.data(), lda, db.data(), ldb, beta, dc.data(), ldc);
  else
    q.gemm_mixed(ta, tb, m, n, k, alpha, da.data(), lda, db.data(), ldb, beta, dc.data(), ldc);
  std::vector<float> got(ldc * n);
  copy(q, got.data(), dc.data(), ldc * n);
  q.synchronize();

  const double eps = std::numeric_limits<float>::epsilon();
  const double rule = std::is_same_v<T, float> && !q.executes_on_host() ? std::ldexp(1.0, -9) : 0;
  double off_fp32 = 0;  // the largest distance from the product of the unrounded floats
  for (long j = 0; j < n; ++j) {
    for (long i = 0; i < m; ++i) {
      double s = 0, size = 0, exact = 0;
      for (long l = 0; l < k; ++l) {
        const T x = ta == Trans::No ? a[i + l * lda] : a[l + i * lda];
        const T y = tb == Trans::No ? b[l + j * ldb] : b[j + l * ldb];
        s += double(operand_value(x)) * operand_value(y);
        size += std::abs(double(operand_value(x)) * operand_value(y));
        if constexpr (std::is_same_v<T, float>) exact += double(x) * y;
      }
      const double want = alpha * s + beta * double(c[i + j * ldc]);
      const double scale = std::abs(alpha) * size + std::abs(beta) * std::abs(c[i + j * ldc]);
      const double tol = (2 * (k + 2) * eps + rule) * scale;
      ASSERT_NEAR(got[i + j * ldc], want, tol)
          << "m " << m << " n " << n << " k " << k << " ta " << (ta == Trans::Yes) << " tb "
          << (tb == Trans::Yes) << " at " << i << "," << j;
      if constexpr (std::is_same_v<T, float>) {
        const double full = alpha * exact + beta * double(c[i + j * ldc]);
        off_fp32 = std::max(off_fp32, std::abs(got[i + j * ldc] - full) / (scale * (k + 2) * eps));
      }
    }
    ASSERT_EQ(got[m + j * ldc], -7.0f) << "the row past C's block was written";
  }
  // TF32's products are visibly coarser than FP32's on random operands
  // where a queue rounds by round_to_tf32 (a GPU without TF32 would
  // multiply in FP32), at a depth where FP32's bound is not loose.
  if (std::is_same_v<T, float> && q.executes_on_host() && k >= 8 && k <= 512) {
    EXPECT_GT(off_fp32, 2.0) << "gemm_tf32 multiplied in FP32: m " << m << " n " << n << " k " << k;
  }
}

template <class T>
void check_gemm_mixed_shapes(DeviceContract& t, Queue& q) {
  for (Trans ta : {Trans::No, Trans::Yes})
    for (Trans tb : {Trans::No, Trans::Yes}) {
      check_gemm_mixed<T>(t, q, ta, tb, 37, 29, 67);
      check_gemm_mixed<T>(t, q, ta, tb, 5, 3, 1100);  // k past the host's blocks of 512
    }
  check_gemm_mixed<T>(t, q, Trans::No, Trans::No, 1, 1, 1);
}

TEST_P(DeviceContract, GemmMixedMatchesDoubleOnTheRoundedOperandsInHalf) {
  check_gemm_mixed_shapes<Half>(*this, q());
}

TEST_P(DeviceContract, GemmMixedMatchesDoubleOnTheRoundedOperandsInBFloat16) {
  check_gemm_mixed_shapes<BFloat16>(*this, q());
}

TEST_P(DeviceContract, GemmTf32MatchesDoubleOnTheOperandsRoundedToTf32) {
  check_gemm_mixed_shapes<float>(*this, q());
}

TEST_P(DeviceContract, GemmMixedWithNoProductScalesCByBeta) {
  const long m = 7, n = 5;
  std::vector<float> c(m * n);
  for (long i = 0; i < m * n; ++i) c[i] = 0.5f + i;
  Buffer<float> dc = upload(c);
  q().gemm_mixed(Trans::No, Trans::No, m, n, 0, 1.0f, static_cast<const Half*>(nullptr), m,
                 static_cast<const Half*>(nullptr), 1, -2.0f, dc.data(), m);
  const std::vector<float> got = download(dc);
  for (long i = 0; i < m * n; ++i) EXPECT_EQ(got[i], -2.0f * c[i]) << i;
}

// BLAS's rule for a product with nothing to sum (k = 0 in GEMM, no columns
// of A in y = A x, no rows in y = A^T x): the output is beta times itself,
// and beta = 0 clears it, NaN included. The LU relies on it where a rank
// holds no columns of the matrix (its part of A x is zero); cuBLAS's GEMV
// returns at once there, leaving y as it was, which the CUDA backend covers.
TEST_P(DeviceContract, ProductsWithNothingToSumScaleTheOutputByBeta) {
  const long m = 7, n = 5;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> one{1.0};  // A and x: read by no product (alive till the last copy)
  std::vector<double> y(m);
  for (long i = 0; i < m; ++i) y[i] = 0.5 + i;
  for (const double beta : {0.0, -2.0}) {
    std::vector<double> start = y;
    if (beta == 0.0) start[3] = nan;
    Buffer<double> dy = upload(start), dx = upload(one);
    q().gemv(Trans::No, m, 0, 1.0, dx.data(), m, dx.data(), 1, beta, dy.data(), 1);
    std::vector<double> got = download(dy);
    for (long i = 0; i < m; ++i) EXPECT_EQ(got[i], beta * y[i]) << "A x, A with no columns, " << i;
    dy = upload(start);
    q().gemv(Trans::Yes, 0, m, 1.0, dx.data(), 1, dx.data(), 1, beta, dy.data(), 1);
    got = download(dy);
    for (long i = 0; i < m; ++i) EXPECT_EQ(got[i], beta * y[i]) << "A^T x, A with no rows, " << i;
  }
  std::vector<double> c(m * n);
  for (long i = 0; i < m * n; ++i) c[i] = 0.5 + i;
  for (const double beta : {0.0, -2.0}) {
    std::vector<double> start = c;
    if (beta == 0.0) start[11] = nan;
    Buffer<double> dc = upload(start), dx = upload(one);
    q().gemm(Trans::No, Trans::No, m, n, 0, 1.0, dx.data(), m, dx.data(), 1, beta, dc.data(), m);
    const std::vector<double> got = download(dc);
    for (long i = 0; i < m * n; ++i) EXPECT_EQ(got[i], beta * c[i]) << "C, k = 0, " << i;
  }
}

HPLX_INSTANTIATE_OVER_BACKENDS(DeviceContract);

// A GPU's copy of a block onto itself shifted is undefined (cudaMemcpyAsync,
// cudaMemcpy2DAsync): the emulated device refuses it where it is asked for,
// and copies columns that interleave without sharing a byte.
TEST(EmulatedDevice, RefusesACopyThatOverlapsItself) {
  auto dev = make_device(BackendKind::Emulated);
  Buffer<double> b = dev->alloc<double>(100);
  Queue& q = dev->compute();
  const std::size_t d = sizeof(double), pitch = 10 * d;
  EXPECT_THROW(q.copy_bytes(b.data() + 1, b.data(), 10 * d), Error);
  // Rows 0-4 of 3 columns onto rows 2-6 of the same columns, and onto rows
  // 0-4 of the next columns.
  EXPECT_THROW(q.copy_columns(b.data() + 2, pitch, b.data(), pitch, 5 * d, 3), Error);
  EXPECT_THROW(q.copy_columns(b.data() + 10, pitch, b.data(), pitch, 5 * d, 3), Error);
  // Rows 0-4 onto rows 5-9: the same columns, no byte shared.
  EXPECT_NO_THROW(q.copy_columns(b.data() + 5, pitch, b.data(), pitch, 5 * d, 3));
  EXPECT_NO_THROW(q.copy_bytes(b.data() + 50, b.data(), 50 * d));
  q.synchronize();
}

// Holds a queue's operation until opened; at most 10 s, so that a wait that
// should have been dropped fails the test instead of hanging it.
class Gate {
 public:
  void pass() {
    std::unique_lock<std::mutex> lock(m_);
    opened_.wait_for(lock, std::chrono::seconds(10), [&] { return open_; });
  }
  void open() {
    {
      std::lock_guard<std::mutex> lock(m_);
      open_ = true;
    }
    opened_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable opened_;
  bool open_ = false;
};

// An operation late enough that a wait which returns at once misses it.
void slow(std::atomic<bool>& done) {
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  done = true;
}

// The tests' fault injection (DroppedWaits): the next synchronize() calls of
// one queue return at once while its work still runs, only as many as asked
// and uncounted; that queue's events and other queues still wait, and so
// does the queue once they are used up or the DroppedWaits has gone.
TEST(EmulatedDevice, DroppedSynchronizesReturnAtOnceOnlyAsManyAsAsked) {
  if constexpr (kEmulatedCompiled) {
    auto dev = make_device(BackendKind::Emulated);
    Queue& q = dev->compute();
    Queue& other = dev->transfer();
    Gate gate;
    std::atomic<bool> held{false}, late{false}, other_late{false}, event_late{false};
    {
      DroppedWaits dropped = DroppedWaits::next_synchronizes(q, 2);
      q.host_callback([&] {
        gate.pass();
        held = true;
      });
      const long waits = dev->backend().counters().host_waits;
      q.synchronize();
      q.synchronize();
      EXPECT_FALSE(held) << "a dropped synchronize() waited";
      EXPECT_EQ(dropped.dropped(), 2);
      EXPECT_EQ(dev->backend().counters().host_waits, waits) << "a dropped wait is counted";
      other.host_callback([&] { slow(other_late); });
      other.synchronize();
      EXPECT_TRUE(other_late) << "another queue's synchronize() was dropped";
      gate.open();
      q.host_callback([&] { slow(late); });
      q.synchronize();  // the third: waits
      EXPECT_TRUE(held);
      EXPECT_TRUE(late) << "more synchronize() calls dropped than asked";
      q.host_callback([&] { slow(event_late); });
      q.record()->synchronize();
      EXPECT_TRUE(event_late) << "an event's synchronize() was dropped";
      EXPECT_EQ(dropped.dropped(), 2);
    }
    std::atomic<bool> after{false};
    { DroppedWaits unused = DroppedWaits::next_synchronizes(q, 5); }
    q.host_callback([&] { slow(after); });
    q.synchronize();
    EXPECT_TRUE(after) << "a synchronize() dropped after its DroppedWaits went";
  } else {
    GTEST_SKIP() << "the emulated backend is not compiled in";
  }
}

// The same for queues' waits: the waiter's waits on the recorder's events do
// nothing while it lives; other queues' waits on those events, and the
// waiter's on other queues' events, still order the work; after it goes the
// waiter's wait on the recorder works again.
TEST(EmulatedDevice, DroppedWaitsOnAQueuesEventsAreOnlyThoseOfTheWaiter) {
  if constexpr (kEmulatedCompiled) {
    auto dev = make_device(BackendKind::Emulated);
    Queue& waiter = dev->compute();
    Queue& recorder = dev->transfer();
    Queue& third = dev->panel();
    // 1: the recorder's work was done when the other queue ran; 0: not yet.
    auto seen = [](const std::atomic<bool>& done) { return done ? 1 : 0; };
    {
      DroppedWaits dropped = DroppedWaits::waits_on_events_of(waiter, recorder);
      Gate gate;
      std::atomic<bool> recorded{false};
      std::atomic<int> waiter_saw{-1}, third_saw{-1};
      recorder.host_callback([&] {
        gate.pass();
        recorded = true;
      });
      const EventPtr e = recorder.record();
      waiter.wait(e);
      waiter.host_callback([&] { waiter_saw = seen(recorded); });
      waiter.synchronize();
      EXPECT_EQ(waiter_saw, 0) << "the dropped wait waited";
      EXPECT_EQ(dropped.dropped(), 1);
      third.wait(e);
      third.host_callback([&] { third_saw = seen(recorded); });
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      gate.open();
      third.synchronize();
      EXPECT_EQ(third_saw, 1) << "another queue's wait on the recorder's event was dropped";

      std::atomic<bool> late{false};
      std::atomic<int> saw_third{-1};
      third.host_callback([&] { slow(late); });
      waiter.wait(third.record());
      waiter.host_callback([&] { saw_third = seen(late); });
      waiter.synchronize();
      EXPECT_EQ(saw_third, 1) << "the waiter's wait on another queue's event was dropped";
      EXPECT_EQ(dropped.dropped(), 1);
    }
    std::atomic<bool> late{false};
    std::atomic<int> saw{-1};
    recorder.host_callback([&] { slow(late); });
    waiter.wait(recorder.record());
    waiter.host_callback([&] { saw = seen(late); });
    waiter.synchronize();
    EXPECT_EQ(saw, 1) << "a wait dropped after its DroppedWaits went";
  } else {
    GTEST_SKIP() << "the emulated backend is not compiled in";
  }
}

// Only the emulated device drops waits: another backend's queue is refused.
TEST(EmulatedDevice, DroppedWaitsRefuseAnotherBackendsQueue) {
  if constexpr (kEmulatedCompiled) {
    auto host = make_device(BackendKind::Host);
    auto emulated = make_device(BackendKind::Emulated);
    EXPECT_THROW((void)DroppedWaits::next_synchronizes(host->compute()), Error);
    EXPECT_THROW((void)DroppedWaits::waits_on_events_of(emulated->compute(), host->compute()),
                 Error);
    EXPECT_THROW((void)DroppedWaits::waits_on_events_of(host->compute(), emulated->compute()),
                 Error);
  } else {
    GTEST_SKIP() << "the emulated backend is not compiled in";
  }
}

// A device on which FACT outlasts the update beside it: the high-priority
// (panel) queue waits its fixed delay before every operation, the others
// only their random ones (none here).
TEST(EmulatedDevice, TheHighPriorityQueueWaitsItsDelayBeforeEachOperation) {
  if constexpr (kEmulatedCompiled) {
    EmulatedOptions o;
    o.max_delay_us = 0;
    o.high_priority_delay_us = 20000;
    Device dev(make_emulated_backend(o));
    EXPECT_NE(dev.backend().describe().find("20000 us before each operation"), std::string::npos);
    const auto timed = [](Queue& q) {
      EventPtr start = q.record_timed();
      for (int i = 0; i < 3; ++i) q.host_callback([] {});
      EventPtr end = q.record_timed();
      end->synchronize();
      return start->seconds_until(*end);
    };
    EXPECT_GE(timed(dev.panel()), 4 * 0.020);  // three callbacks and the end event
    EXPECT_LT(timed(dev.compute()), 0.020);
  } else {
    GTEST_SKIP() << "the emulated backend is not compiled in";
  }
}

TEST(EmulatedDevice, HighPriorityDelayFromTheEnvironment) {
  if constexpr (kEmulatedCompiled) {
    ::setenv("HPLX_EMULATED_HIGH_PRIORITY_DELAY_US", "1500", 1);
    EXPECT_EQ(emulated_options_from_env().high_priority_delay_us, 1500);
    ::setenv("HPLX_EMULATED_HIGH_PRIORITY_DELAY_US", "slow", 1);
    EXPECT_THROW(emulated_options_from_env(), UsageError);
    ::unsetenv("HPLX_EMULATED_HIGH_PRIORITY_DELAY_US");
    EXPECT_EQ(emulated_options_from_env().high_priority_delay_us, 0);
  } else {
    GTEST_SKIP() << "the emulated backend is not compiled in";
  }
}

TEST(BackendChoice, UnknownNameIsAOneLineUsageError) {
  try {
    parse_backend("gpu");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'gpu'"), std::string::npos) << what;
    EXPECT_NE(what.find("allowed: host"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(BackendChoice, AKnownBackendNotBuiltSaysHowToRebuild) {
  for (BackendKind k : all_backend_kinds()) {
    if (compiled_in(k)) {
      EXPECT_EQ(parse_backend(name_of(k)), k);
      continue;
    }
    try {
      parse_backend(name_of(k));
      FAIL() << name_of(k);
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("not compiled in; rebuild with -DHPLX_"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_NE(compiled_backends().find("host"), std::string::npos);
}

}  // namespace
}  // namespace hplx::device
