#include "device/node_probes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "core/timer.hpp"

namespace hplx::device {
namespace {

constexpr long kMaxGroup = 1000;
constexpr double kGroupSeconds = 0.01;
// A stretch of the window: longer than a CPU quota's period (a cgroup's
// 100 ms; throttling by power or heat is slower still), so a throttled
// rank's every stretch is slow.
constexpr double kStretchSeconds = 0.1;

// Runs `call` once to warm up and once timed, then `together()` (every
// rank at this point: core/node_probes.hpp), then calls in groups of about
// kGroupSeconds, the queue drained after each, for a window of `seconds`;
// returns the calls per second of the window's fastest stretch of
// kStretchSeconds. A fixed window, not a fixed count: ranks that share a
// host's memory copy beside one another the whole time. Its fastest
// stretch: when ranks take turns on shared cores the turns fall unevenly
// from stretch to stretch, a slow node's stretches are all slow.
template <class Call>
double calls_per_second(Queue& q, double seconds, const std::function<void()>& together,
                        Call call) {
  call();
  q.synchronize();
  double t0 = wall_time();
  call();
  q.synchronize();
  const double one = std::max(wall_time() - t0, 1e-9);
  const long group = std::clamp(static_cast<long>(kGroupSeconds / one), 1L, kMaxGroup);
  together();
  const double start = wall_time();
  double stretch = start, best = 0;
  long calls = 0;
  for (;;) {
    for (long r = 0; r < group; ++r) call();
    q.synchronize();
    calls += group;
    const double now = wall_time();
    if (now - stretch >= kStretchSeconds || now - start >= seconds) {
      best = std::max(best, static_cast<double>(calls) / std::max(now - stretch, 1e-9));
      stretch = now;
      calls = 0;
    }
    if (now - start >= seconds) return best;
  }
}

// Bounded values away from zero, in `b` of `count` doubles (Device memory):
// no denormals however often C -= A B runs. Written through the host
// where the memory is not the host's.
void fill(Device& dev, Buffer<double>& b, long count, double base) {
  Backend& be = dev.backend();
  if (!be.holds_data() || count == 0) return;
  std::vector<double> values(static_cast<std::size_t>(count));
  for (long i = 0; i < count; ++i) values[i] = base + static_cast<double>(i % 7) / 64.0;
  dev.compute().copy_bytes(b.data(), values.data(), sizeof(double) * values.size());
  dev.compute().synchronize();
}

}  // namespace

double probe_device_gemm(Device& dev, long m, long n, long k, double seconds,
                         const std::function<void()>& together) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  Buffer<double> a = dev.alloc<double>(m * k), b = dev.alloc<double>(k * n),
                 c = dev.alloc<double>(m * n);
  fill(dev, a, m * k, 0.5);
  fill(dev, b, k * n, 0.25);
  fill(dev, c, m * n, 0.0);
  Queue& q = dev.compute();
  const double rate = calls_per_second(q, seconds, together, [&] {
    q.gemm(Trans::No, Trans::No, m, n, k, -1.0, a.data(), m, b.data(), k, 1.0, c.data(), m);
  });
  return 2.0 * static_cast<double>(m) * n * k * rate / 1e9;
}

double probe_device_memory(Device& dev, std::size_t bytes, int host_threads, double seconds,
                           const std::function<void()>& together) {
  if (bytes == 0) return 0;
  const long count = static_cast<long>(bytes / sizeof(double));
  Buffer<double> src = dev.alloc<double>(count), dst = dev.alloc<double>(count);
  fill(dev, src, count, 1.0);
  Queue& q = dev.compute();
  const int threads = std::max(1, host_threads);
  // On the host's cores, one thread cannot draw a node's bandwidth: the
  // copy is split among the rank's share of the node's CPUs.
  auto copy = [&, n = src.bytes()] {
    char* d = reinterpret_cast<char*>(dst.data());
    const char* from = reinterpret_cast<const char*>(src.data());
    const std::size_t chunk = (n / threads + 63) / 64 * 64;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const std::size_t begin = std::min(n, chunk * static_cast<std::size_t>(t));
      const std::size_t end = std::min(n, begin + chunk);
      if (end > begin) std::memcpy(d + begin, from + begin, end - begin);
    }
  };
  const double rate = calls_per_second(q, seconds, together, [&] {
    if (q.executes_on_host())
      q.execute(copy);
    else
      q.copy_bytes(dst.data(), src.data(), src.bytes());
  });
  return 2.0 * static_cast<double>(src.bytes()) * rate / 1e9;
}

}  // namespace hplx::device
