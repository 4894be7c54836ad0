// The update's DGEMM alone, on a device-layer backend: C (M x M) -= A (M x K)
// B (K x M) with K = NB, the shape of the LU's trailing update, timed over
// several repetitions after one warm-up. The figure a GPU LU is judged
// against (docs/GPU.md: hplx lu reaches some share of this rate).
// `--form lu` times the update as `hplx lu` calls it on one process row
// instead: DTRSM of U (NB x M, rows of the matrix itself) by the panel's
// unit lower L11, then DGEMM of the panel's A2 (ld M + NB) and U into the
// trailing M x M block of an (M + NB)-order matrix (lda M + NB), both
// timed, and the DGEMM alone in that layout: what the LU's update loses to
// the plain product's rate, and where.
// `--precision single` times SGEMM instead: the rate HPL-MxP's FP32
// factorization is judged against (bench/hpl-mxp-vs-lu.sh); `fp16` and
// `bf16` the 16-bit update of HPL-MxP on a GPU (Queue::gemm_mixed: cuBLAS
// GemmEx, 16-bit A and B, FP32 C, products and sums).
//
//   build/bin/hplx_dgemm_probe [--backend NAME] [--m M,M,...] [--nb NB,NB,...]
//                              [--precision double|single|fp16|bf16] [--reps R]
//                              [--form plain|lu] [--data random|constant] [--json FILE]
//
// Defaults: --backend the default one (cuda where a GPU is present),
// --m 20000,40000,60000 on a GPU and 2000,4000 otherwise, --nb 256,512,768,1024,
// --reps 5, --data random (operands in [-0.5, 0.5), as HPL's matrix: a GPU
// runs products of constants faster, at a lower power; the probes of the
// 2026-11-27 and 2026-11-28 runs used constants). Shapes that do not fit the device's free memory
// are skipped and said so. Prints one line per shape and, with --json, a record of them.
#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/blas_core.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/device.hpp"
#include "probe_common.hpp"

namespace {

using hplx::device::BackendKind;
using hplx::probe::Data;
using hplx::probe::fill_operand;
using hplx::probe::parse_list;

// The rates of `reps` timed GEMMs of one shape after a warm-up, Gflop/s:
// A and B of type T, C of type C (16-bit T: FP32 C through gemm_mixed).
template <class T, class C = T>
std::vector<double> time_gemm(hplx::device::Device& dev, long m, long k, int reps, Data data) {
  using hplx::device::Trans;
  hplx::device::Queue& q = dev.compute();
  auto a = dev.alloc<T>(m * k), b = dev.alloc<T>(k * m);
  auto c = dev.alloc<C>(m * m);
  fill_operand<T>(q, a.data(), m * k, data, 1e-3, 1, 1);
  fill_operand<T>(q, b.data(), k * m, data, 1e-3, 1, 2);
  fill_operand<C>(q, c.data(), m * m, data, 1, 1, 3);
  auto gemm = [&] {
    if constexpr (std::is_same_v<T, C>)
      q.gemm(Trans::No, Trans::No, m, m, k, T(-1), a.data(), m, b.data(), k, T(1), c.data(), m);
    else
      q.gemm_mixed(Trans::No, Trans::No, m, m, k, -1.0f, a.data(), m, b.data(), k, 1.0f, c.data(),
                   m);
  };
  gemm();  // warm-up: library initialisation, clocks
  q.synchronize();
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    const double t0 = hplx::wall_time();
    gemm();
    q.synchronize();
    rates.push_back(2.0 * m * m * k / (hplx::wall_time() - t0) / 1e9);
  }
  return rates;
}

// The LU's update on one process row (update_in_place in src/lu/phases/update/update.cpp):
// rates of `reps` (DTRSM + DGEMM) and of `reps` DGEMMs alone, Gflop/s of
// the DGEMM's 2 M^2 K flops (the DTRSM's K^2 M are left out, so the two
// rates compare as times).
std::pair<std::vector<double>, std::vector<double>> time_lu_form(hplx::device::Device& dev, long m,
                                                                 long k, int reps, Data data) {
  using namespace hplx::device;
  Queue& q = dev.compute();
  const long n = m + k;  // the matrix's order and leading dimension
  auto w = dev.alloc<double>(n * k), a = dev.alloc<double>(n * n);
  // The panel's entries below 0.005 in magnitude: L11 is then near the
  // identity, so the repeated DTRSMs in place keep U's size.
  fill_operand<double>(q, w.data(), n * k, data, 1e-3, 0.01, 1);
  fill_operand<double>(q, a.data(), n * n, data, 1, 1, 2);
  double* u = a.data() + k * n;  // rows [0, k) of columns [k, n)
  double* c = a.data() + k * n + k;
  auto trsm = [&] {
    q.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, k, m, 1.0, w.data(), n, u, n);
  };
  auto gemm = [&] {
    q.gemm(Trans::No, Trans::No, m, m, k, -1.0, w.data() + k, n, u, n, 1.0, c, n);
  };
  trsm();  // warm-up
  gemm();
  q.synchronize();
  std::vector<double> both, alone;
  const double flops = 2.0 * m * m * k;
  for (int r = 0; r < reps; ++r) {
    double t0 = hplx::wall_time();
    trsm();
    gemm();
    q.synchronize();
    both.push_back(flops / (hplx::wall_time() - t0) / 1e9);
    t0 = hplx::wall_time();
    gemm();
    q.synchronize();
    alone.push_back(flops / (hplx::wall_time() - t0) / 1e9);
  }
  return {both, alone};
}

// The rates in `precision` (--precision's value).
std::vector<double> time_in(const std::string& precision, hplx::device::Device& dev, long m, long k,
                            int reps, Data data) {
  if (precision == "single") return time_gemm<float>(dev, m, k, reps, data);
  if (precision == "fp16") return time_gemm<hplx::device::Half, float>(dev, m, k, reps, data);
  if (precision == "bf16") return time_gemm<hplx::device::BFloat16, float>(dev, m, k, reps, data);
  return time_gemm<double>(dev, m, k, reps, data);
}

// The record's name of the probe, and its line's.
const char* probe_name(const std::string& precision) {
  if (precision == "single") return "sgemm";
  if (precision == "fp16") return "gemmex_fp16";
  if (precision == "bf16") return "gemmex_bf16";
  return "dgemm";
}
const char* routine_name(const std::string& precision) {
  if (precision == "single") return "SGEMM";
  if (precision == "fp16") return "GemmEx FP16";
  if (precision == "bf16") return "GemmEx BF16";
  return "DGEMM";
}

}  // namespace

int main(int argc, char** argv) {
  hplx::restart_with_better_blas_core(argv);  // OpenBLAS's kernels, as hplx runs them
  CLI::App app{"hplx_dgemm_probe: the LU update's DGEMM rate on a backend"};
  std::string backend_name, ms_text, nbs_text = "256,512,768,1024", json_path;
  std::string precision = "double";
  std::string form = "plain";
  std::string data_text = "random";
  int reps = 5;
  app.add_option("--backend", backend_name, "host, emulated, cuda (default: the best present)");
  app.add_option("--m", ms_text, "M = N of the update, comma-separated");
  app.add_option("--nb", nbs_text, "K = NB, comma-separated");
  app.add_option("--precision", precision,
                 "double (DGEMM, default), single (SGEMM), fp16 or bf16 (16-bit A and B, FP32 C)")
      ->check(CLI::IsMember({"double", "single", "fp16", "bf16"}));
  app.add_option("--reps", reps, "timed repetitions per shape")->check(CLI::Range(1, 1000));
  app.add_option("--form", form,
                 "plain (C -= A B, separate buffers, default) or lu (the LU's DTRSM + DGEMM in "
                 "one matrix, double only)")
      ->check(CLI::IsMember({"plain", "lu"}));
  app.add_option("--data", data_text,
                 "random (values in [-0.5, 0.5) as HPL's matrix, default) or constant (a GPU "
                 "multiplies constants at a lower power, so faster where its power limit binds)");
  app.add_option("--json", json_path, "write the results here");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!json_path.empty()) hplx::require_writable("--json", json_path);
    const Data data = hplx::probe::parse_data(data_text);
    const bool lu_form = form == "lu";
    if (lu_form && precision != "double")
      throw hplx::UsageError(
          fmt::format("--form lu with --precision {}: allowed with double only", precision));
    const BackendKind kind = backend_name.empty() ? hplx::device::default_backend()
                                                  : hplx::device::parse_backend(backend_name);
    auto dev = hplx::device::make_device(kind);
    const bool gpu = traits_of(kind).gpu;
    // A and B's bytes, C's.
    const double element = precision == "double" ? 8.0 : precision == "single" ? 4.0 : 2.0;
    const double c_element = precision == "double" ? 8.0 : 4.0;
    const std::vector<long> ms =
        parse_list(ms_text.empty() ? (gpu ? "20000,40000,60000" : "2000,4000") : ms_text, "--m");
    const std::vector<long> nbs = parse_list(nbs_text, "--nb");
    std::printf("hplx_dgemm_probe: %s%s on %s operands, %s\n", routine_name(precision),
                lu_form ? " in the LU's form" : "", hplx::probe::data_name(data),
                dev->backend().describe().c_str());
    nlohmann::json rows = nlohmann::json::array();
    for (long m : ms) {
      for (long k : nbs) {
        const double bytes = lu_form
                                 ? 8.0 * (m + k) * (m + 2.0 * k)
                                 : element * 2.0 * m * k + c_element * static_cast<double>(m) * m;
        if (bytes > 0.9 * static_cast<double>(dev->backend().free_device_bytes())) {
          std::printf("M = %ld, NB = %ld: skipped, needs %.1f GiB\n", m, k, bytes / (1 << 30));
          continue;
        }
        if (lu_form) {
          auto [both, alone] = time_lu_form(*dev, m, k, reps, data);
          std::sort(both.begin(), both.end());
          std::sort(alone.begin(), alone.end());
          const double b = both[both.size() / 2], g = alone[alone.size() / 2];
          std::printf(
              "M = %ld, NB = %ld, the LU's form: DTRSM + DGEMM %.1f Gflop/s, DGEMM alone %.1f "
              "(medians of %d; the DGEMM's flops over each time)\n",
              m, k, b, g, reps);
          rows.push_back({{"m", m},
                          {"nb", k},
                          {"gflops_median", g},
                          {"gflops", alone},
                          {"trsm_gemm_gflops_median", b},
                          {"trsm_gemm_gflops", both}});
          continue;
        }
        std::vector<double> rates = time_in(precision, *dev, m, k, reps, data);
        std::sort(rates.begin(), rates.end());
        const double median = rates[rates.size() / 2];
        std::printf("M = %ld, NB = %ld: %.1f Gflop/s (median of %d; min %.1f, max %.1f)\n", m, k,
                    median, reps, rates.front(), rates.back());
        rows.push_back({{"m", m}, {"nb", k}, {"gflops_median", median}, {"gflops", rates}});
      }
    }
    if (!json_path.empty()) {
      const nlohmann::json record = {{"probe", lu_form ? "dgemm_lu_form" : probe_name(precision)},
                                     {"backend", hplx::device::name_of(kind)},
                                     {"device", dev->backend().describe()},
                                     {"data", hplx::probe::data_name(data)},
                                     {"shapes", rows}};
      hplx::write_text_atomically(json_path, record.dump(2) + "\n");
    }
  } catch (const hplx::UsageError& e) {
    std::fprintf(stderr, "hplx_dgemm_probe: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hplx_dgemm_probe: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
