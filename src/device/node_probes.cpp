#include "device/node_probes.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "core/timer.hpp"

namespace hplx::device {
namespace {

constexpr long kMaxGroup = 1000;
constexpr double kGroupSeconds = 0.01;

// Runs `call` once to warm up and once timed, then `together()` (every
// rank at this point: core/node_probes.hpp), then calls in groups of about
// kGroupSeconds, the queue drained after each, until `seconds` have
// passed; returns the calls and the seconds they took. A fixed window, not
// a fixed count: ranks that share a host's memory then copy beside one
// another the whole time, each its share, whichever is faster.
template <class Call>
std::pair<long, double> repeat_for(Queue& q, double seconds, const std::function<void()>& together,
                                   Call call) {
  call();
  q.synchronize();
  double t0 = wall_time();
  call();
  q.synchronize();
  const double one = std::max(wall_time() - t0, 1e-9);
  const long group = std::clamp(static_cast<long>(kGroupSeconds / one), 1L, kMaxGroup);
  together();
  long calls = 0;
  t0 = wall_time();
  double elapsed = 0;
  do {
    for (long r = 0; r < group; ++r) call();
    q.synchronize();
    calls += group;
    elapsed = wall_time() - t0;
  } while (elapsed < seconds);
  return {calls, std::max(elapsed, 1e-9)};
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
  const auto [reps, elapsed] = repeat_for(q, seconds, together, [&] {
    q.gemm(Trans::No, Trans::No, m, n, k, -1.0, a.data(), m, b.data(), k, 1.0, c.data(), m);
  });
  return 2.0 * static_cast<double>(m) * n * k * static_cast<double>(reps) / elapsed / 1e9;
}

double probe_device_memory(Device& dev, std::size_t bytes, double seconds,
                           const std::function<void()>& together) {
  if (bytes == 0) return 0;
  const long count = static_cast<long>(bytes / sizeof(double));
  Buffer<double> src = dev.alloc<double>(count), dst = dev.alloc<double>(count);
  fill(dev, src, count, 1.0);
  Queue& q = dev.compute();
  const auto [reps, elapsed] =
      repeat_for(q, seconds, together, [&] { q.copy_bytes(dst.data(), src.data(), src.bytes()); });
  return 2.0 * static_cast<double>(src.bytes()) * static_cast<double>(reps) / elapsed / 1e9;
}

}  // namespace hplx::device
