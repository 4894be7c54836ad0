// STREAM's four kernels (copy, scale, add, triad) in double on a
// device-layer backend, launched as the MxP's own vector kernel bodies and
// timed with events on the compute queue: the memory bandwidth the HPG-MxP
// motifs are judged against on a GPU (docs/GPU.md: each motif's GB/s over
// this). Bytes as STREAM counts them (2 arrays for copy and scale, 3 for add
// and triad; no write-allocate). Best and median of the repetitions after
// one warm-up.
//
//   build/bin/hplx_stream_probe [--backend NAME] [--n ELEMENTS] [--reps R] [--json FILE]
//
// Defaults: the best backend present; --n 2^28 doubles per array on a GPU
// (2 GiB each) and 2e7 otherwise; --reps 20.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "device/device.hpp"
#include "mxp/vector_ops.hpp"

namespace {

using hplx::device::BackendKind;
using hplx::device::Queue;

struct Kernel {
  const char* name;
  int arrays;  // STREAM's bytes per element: arrays x 8
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hplx_stream_probe: STREAM copy/scale/add/triad on a device-layer backend"};
  std::string backend_name, json_path;
  long n = 0;
  int reps = 20;
  app.add_option("--backend", backend_name, "host, emulated, cuda (default: the best present)");
  app.add_option("--n", n, "doubles per array (default 2^28 on a GPU, 2e7 otherwise)")
      ->check(CLI::Range(1000L, 1L << 34));
  app.add_option("--reps", reps, "timed repetitions per kernel")->check(CLI::Range(1, 10000));
  app.add_option("--json", json_path, "write the results here");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!json_path.empty()) hplx::require_writable("--json", json_path);
    const BackendKind kind = backend_name.empty() ? hplx::device::default_backend()
                                                  : hplx::device::parse_backend(backend_name);
    auto dev = hplx::device::make_device(kind);
    if (n == 0) n = traits_of(kind).gpu ? 1L << 28 : 20'000'000L;
    const double need = 3.0 * 8 * n;
    if (need > 0.9 * static_cast<double>(dev->backend().free_device_bytes()))
      throw hplx::UsageError(
          fmt::format("--n {}: needs {:.1f} GiB for 3 arrays; allowed: what "
                      "fits 90% of the device's free memory",
                      n, need / (1 << 30)));
    std::printf("hplx_stream_probe: %s, %ld doubles per array\n", dev->backend().describe().c_str(),
                n);
    Queue& q = dev->compute();
    auto a = dev->alloc<double>(n), b = dev->alloc<double>(n), c = dev->alloc<double>(n);
    hplx::mxp::fill(q, n, 1.0, a.data());
    hplx::mxp::fill(q, n, 2.0, b.data());
    hplx::mxp::fill(q, n, 0.0, c.data());
    const double s = 3.0;
    const Kernel kernels[] = {{"copy", 2}, {"scale", 2}, {"add", 3}, {"triad", 3}};
    auto run = [&](int k) {
      switch (k) {
        case 0:
          hplx::mxp::convert(q, n, a.data(), c.data());
          break;  // c = a
        case 1:
          hplx::mxp::scale_copy(q, n, s, c.data(), b.data());
          break;  // b = s c
        case 2:
          hplx::mxp::waxpby(q, n, 1.0, a.data(), 1.0, b.data(), c.data());
          break;  // c = a + b
        default:
          hplx::mxp::waxpby(q, n, 1.0, b.data(), s, c.data(), a.data());  // a = b + s c
      }
    };
    nlohmann::json rows = nlohmann::json::array();
    for (int k = 0; k < 4; ++k) {
      run(k);  // warm-up
      std::vector<double> gbs;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = q.record_timed();
        run(k);
        const auto t1 = q.record_timed();
        t1->synchronize();
        gbs.push_back(kernels[k].arrays * 8.0 * n / t0->seconds_until(*t1) / 1e9);
      }
      std::sort(gbs.begin(), gbs.end());
      const double best = gbs.back(), median = gbs[gbs.size() / 2];
      std::printf("%-5s %10.1f GB/s best, %10.1f median of %d\n", kernels[k].name, best, median,
                  reps);
      rows.push_back({{"kernel", kernels[k].name}, {"gbs_best", best}, {"gbs_median", median}});
    }
    q.synchronize();
    if (!json_path.empty()) {
      const nlohmann::json record = {{"probe", "stream"},
                                     {"backend", hplx::device::name_of(kind)},
                                     {"device", dev->backend().describe()},
                                     {"elements", n},
                                     {"kernels", rows}};
      hplx::write_text_atomically(json_path, record.dump(2) + "\n");
    }
  } catch (const hplx::UsageError& e) {
    std::fprintf(stderr, "hplx_stream_probe: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hplx_stream_probe: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
