// The FP32 LU without pivoting against an unpivoted LU in double of the same
// matrix; the distributed solves against a serial one; GMRES-IR reaching the
// HPL-MxP check in a few iterations on every grid, odd N and NB; and a
// matrix that is not diagonally dominant reported as failing, not hung.
#include <gtest/gtest.h>
#include <mpi.h>

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/flops.hpp"
#include "core/trace.hpp"
#include "device/device.hpp"
#include "grids.hpp"
#include "hplmxp/distributed_matrix.hpp"
#include "hplmxp/hpl_mxp.hpp"
#include "hplmxp/lu_nopiv.hpp"
#include "hplmxp/triangular_solve.hpp"

using namespace hplx;
using namespace hplx::hplmxp;

namespace {

std::shared_ptr<device::Device> host_device() {
  static auto dev = device::make_device(device::BackendKind::Host);
  return dev;
}
device::Queue& host_queue() {
  return host_device()->compute();
}

// The emulated device: separate memory, asynchronous queues with random
// delays. Every buffer the solver touches must go through the device layer.
std::shared_ptr<device::Device> emulated_device() {
  static auto dev = device::make_device(device::BackendKind::Emulated);
  return dev;
}
device::Device& emulated() {
  return *emulated_device();
}

// The run's context on one of the two (its queues, no trace).
Context context_on(std::shared_ptr<device::Device> dev) {
  return Context(MPI_COMM_WORLD, {}, std::move(dev));
}
device::Queue& emulated_queue() {
  return emulated().compute();
}

// This process's part of the benchmark's matrix on `grid`.
std::vector<double> generated(const Layout& l, const ProcessGrid& grid) {
  std::vector<double> a(static_cast<std::size_t>(l.local_elements()));
  generate_matrix(l, grid, a.data());
  return a;
}

// The whole matrix, generated on this process alone.
std::vector<double> serial_matrix(long n) {
  ProcessGrid self(MPI_COMM_SELF, 1, 1, GridOrder::RowMajor);
  const Layout l = Layout::of(n, 8, self);
  std::vector<double> a(static_cast<std::size_t>(n * n));
  generate_matrix(l, self, a.data());
  return a;
}

// Doolittle LU without pivoting in double, in place (the oracle: LAPACK
// has no unpivoted LU).
void lu_double(long n, std::vector<double>& a) {
  for (long k = 0; k < n; ++k) {
    for (long i = k + 1; i < n; ++i) a[i + k * n] /= a[k + k * n];
    for (long j = k + 1; j < n; ++j)
      for (long i = k + 1; i < n; ++i) a[i + j * n] -= a[i + k * n] * a[k + j * n];
  }
}

}  // namespace

TEST(HplMxpLu, MatchesUnpivotedLuInDoubleOnEveryGrid) {
  for (long n : {3L, 13L, 64L, 101L}) {
    std::vector<double> ref = serial_matrix(n);
    lu_double(n, ref);
    double refmax = 0;
    for (double v : ref) refmax = std::max(refmax, std::fabs(v));
    for (int nb : {1, 4, 7, 32}) {
      for (auto [p, q] : hplmxp_test_grids()) {
        ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
        if (!grid.in_grid()) continue;
        const Layout l = Layout::of(n, nb, grid);
        const std::vector<double> a = generated(l, grid);
        std::vector<float> f(a.begin(), a.end());
        const LuNopivResult r = factor_nopiv(l, grid, host_queue(), f.data());
        EXPECT_FALSE(r.bad_pivot);
        double worst = 0;
        for (long jl = 0; jl < l.nloc; ++jl)
          for (long il = 0; il < l.mloc; ++il) {
            const double want = ref[l.global_row(il) + l.global_col(jl) * n];
            worst = std::max(worst, std::fabs(f[il + jl * l.lda] - want));
          }
        // FP32 rounding, growing at most about linearly with n here.
        EXPECT_LT(worst, 8.0 * n * 6e-8 * refmax)
            << "n " << n << " nb " << nb << " grid " << p << "x" << q;
      }
    }
  }
}

TEST(HplMxpLu, EveryBroadcastTopologyGivesTheSameFactors) {
  const long n = 77;
  const int nb = 6;
  for (auto [p, q] : hplmxp_test_grids()) {
    if (q == 1) continue;
    ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
    if (!grid.in_grid()) continue;
    const Layout l = Layout::of(n, nb, grid);
    const std::vector<double> a = generated(l, grid);
    std::vector<float> first;
    for (int t = 0; t < 6; ++t) {
      std::vector<float> f(a.begin(), a.end());
      factor_nopiv(l, grid, host_queue(), f.data(), {static_cast<lu::Broadcast>(t)});
      if (t == 0) first = f;
      EXPECT_EQ(f, first) << "topology " << t << " grid " << p << "x" << q;
    }
  }
}

TEST(HplMxpLu, LookAheadGivesTheSameFactorsAsNone) {
  const long n = 83;
  for (int nb : {5, 16}) {
    for (auto [p, q] : hplmxp_test_grids()) {
      ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
      if (!grid.in_grid()) continue;
      const Layout l = Layout::of(n, nb, grid);
      const std::vector<double> a = generated(l, grid);
      std::vector<float> none(a.begin(), a.end()), ahead(a.begin(), a.end());
      const LuNopivResult r0 =
          factor_nopiv(l, grid, host_queue(), none.data(), {lu::Broadcast::OneRingM, 0});
      const LuNopivResult r1 =
          factor_nopiv(l, grid, host_queue(), ahead.data(), {lu::Broadcast::Long, 1});
      // The same operations, but the update's SGEMM is cut in other pieces:
      // equal up to FP32 rounding of a few operations.
      double worst = 0, largest = 0;
      for (std::size_t i = 0; i < none.size(); ++i) {
        worst = std::max(worst, static_cast<double>(std::fabs(ahead[i] - none[i])));
        largest = std::max(largest, static_cast<double>(std::fabs(none[i])));
      }
      EXPECT_LE(worst, 1e-5 * largest) << "nb " << nb << " grid " << p << "x" << q;
      ASSERT_EQ(r1.iterations.size(), static_cast<std::size_t>((n + nb - 1) / nb));
      for (std::size_t k = 0; k < r1.iterations.size(); ++k) {
        EXPECT_EQ(r1.iterations[k].j, static_cast<long>(k) * nb);
        EXPECT_EQ(r1.iterations[k].j, r0.iterations[k].j);
      }
    }
  }
}

// The LU's look-ahead schedule at any depth: each panel's update still
// reaches every column in panel order, so deeper look-ahead gives the same
// factors up to the rounding of re-cut SGEMMs, and a record per panel
// whose flops add up to the whole factorization's.
TEST(HplMxpLu, DeeperLookAheadGivesTheSameFactors) {
  const long n = 83;
  const int nb = 7;
  for (auto [p, q] : hplmxp_test_grids()) {
    ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
    if (!grid.in_grid()) continue;
    const Layout l = Layout::of(n, nb, grid);
    const std::vector<double> a = generated(l, grid);
    std::vector<float> one(a.begin(), a.end());
    factor_nopiv(l, grid, host_queue(), one.data(), {lu::Broadcast::OneRingM, 1});
    for (int depth : {2, 3}) {
      std::vector<float> deep(a.begin(), a.end());
      const LuNopivResult r =
          factor_nopiv(l, grid, host_queue(), deep.data(), {lu::Broadcast::TwoRingM, depth});
      double worst = 0, largest = 0;
      for (std::size_t i = 0; i < one.size(); ++i) {
        worst = std::max(worst, static_cast<double>(std::fabs(deep[i] - one[i])));
        largest = std::max(largest, static_cast<double>(std::fabs(one[i])));
      }
      EXPECT_LE(worst, 1e-5 * largest) << "depth " << depth << " grid " << p << "x" << q;
      ASSERT_EQ(r.iterations.size(), static_cast<std::size_t>((n + nb - 1) / nb));
      double flops = 0;
      for (const lu::IterationTimes& it : r.iterations) flops += it.flops;
      EXPECT_NEAR(flops, hpl_flops(static_cast<double>(n)), 1e-9 * flops) << "depth " << depth;
    }
  }
}

// hplx lu's steps give HPL-MxP host threads beside FACT: with several
// threads the main thread factors the next panel while the others update
// the oldest panel's 512-column chunks. The factors are those of one
// thread (up to the rounding of re-cut SGEMMs), and the trace shows UPDATE
// on a worker's track.
TEST(HplMxpLu, ThreadsBesideFactGiveTheSameFactors) {
  const long n = 1200;
  const int nb = 64;
  const int threads_before = omp_get_max_threads();
  for (auto [p, q] : hplmxp_test_grids()) {
    ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
    if (!grid.in_grid()) continue;
    const Layout l = Layout::of(n, nb, grid);
    const std::vector<double> a = generated(l, grid);
    omp_set_num_threads(1);
    std::vector<float> one(a.begin(), a.end());
    factor_nopiv(l, grid, host_queue(), one.data());
    omp_set_num_threads(3);
    std::vector<float> team(a.begin(), a.end());
    TraceRecorder trace(true);
    FactorOptions opt;
    opt.trace = &trace;
    factor_nopiv(l, grid, host_queue(), team.data(), opt);
    omp_set_num_threads(threads_before);
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < one.size(); ++i) {
      worst = std::max(worst, static_cast<double>(std::fabs(team[i] - one[i])));
      largest = std::max(largest, static_cast<double>(std::fabs(one[i])));
    }
    EXPECT_LE(worst, 1e-5 * largest) << "grid " << p << "x" << q;
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("hplx-threads-beside-fact-" + std::to_string(getpid()) + ".json"))
                                 .string();
    trace.write(path, MPI_COMM_SELF, nullptr);
    std::ifstream in(path);
    const nlohmann::json events = nlohmann::json::parse(in).at("traceEvents");
    std::filesystem::remove(path);
    long worker_updates = 0;
    for (const nlohmann::json& e : events)
      if (e.at("name") == "UPDATE" && e.at("tid").get<int>() != 0) ++worker_updates;
    // Which thread takes a chunk is a race: on a rank with one chunk and a
    // short FACT (or none: the panel is on another process column) the
    // main thread may win each one on a loaded machine (CI: 4 ranks x 3
    // threads on 2 cores, a compile beside). The grid's ranks together
    // must have run some on a worker.
    long grid_worker_updates = 0;
    MPI_Allreduce(&worker_updates, &grid_worker_updates, 1, MPI_LONG, MPI_SUM, grid.all());
    EXPECT_GT(grid_worker_updates, 0) << "no update chunk ran beside FACT, grid " << p << "x" << q;
  }
}

TEST(HplMxpLu, NegativeDepthIsAUsageError) {
  ProcessGrid grid(MPI_COMM_WORLD, 1, 1, GridOrder::RowMajor);
  if (!grid.in_grid()) return;
  const Layout l = Layout::of(8, 4, grid);
  std::vector<float> f(static_cast<std::size_t>(l.local_elements()), 1.0f);
  EXPECT_THROW(factor_nopiv(l, grid, host_queue(), f.data(), {lu::Broadcast::OneRingM, -1}),
               UsageError);
}

TEST(HplMxpSolve, DistributedSolvesMatchSerialOnes) {
  const long n = 45;
  for (int nb : {1, 4, 7}) {
    for (auto [p, q] : hplmxp_test_grids()) {
      ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
      if (!grid.in_grid()) continue;
      const Layout l = Layout::of(n, nb, grid);
      const std::vector<double> a = generated(l, grid);
      std::vector<float> f(a.begin(), a.end());
      factor_nopiv(l, grid, host_queue(), f.data());
      // The whole factors, to solve serially here.
      std::vector<float> full(static_cast<std::size_t>(n * n), 0.0f);
      for (long jl = 0; jl < l.nloc; ++jl)
        for (long il = 0; il < l.mloc; ++il)
          full[l.global_row(il) + l.global_col(jl) * n] = f[il + jl * l.lda];
      MPI_Allreduce(MPI_IN_PLACE, full.data(), static_cast<int>(n * n), MPI_FLOAT, MPI_SUM,
                    grid.all());
      const std::vector<double> b = generate_rhs(n);
      std::vector<double> y(b);
      for (long i = 0; i < n; ++i)
        for (long j = 0; j < i; ++j) y[i] -= full[i + j * n] * y[j];
      for (long i = n - 1; i >= 0; --i) {
        for (long j = i + 1; j < n; ++j) y[i] -= full[i + j * n] * y[j];
        y[i] /= full[i + i * n];
      }
      std::vector<float> x(b.begin(), b.end());
      solve_lu(l, grid, host_queue(), f.data(), x.data(), x.data());
      for (long i = 0; i < n; ++i)
        EXPECT_NEAR(x[i], y[i], 1e-5 * (1 + std::fabs(y[i])))
            << i << " nb " << nb << " grid " << p << "x" << q;
    }
  }
}

TEST(HplMxpRefinement, ConvergesInFewIterationsOnEveryGrid) {
  for (long n : {3L, 31L, 200L, 333L}) {
    for (int nb : {1, 5, 16, 64}) {
      if (n > 100 && nb == 1) continue;  // N/NB latency-bound steps; covered at small n
      for (auto [p, q] : hplmxp_test_grids()) {
        HplMxpConfig c;
        c.n = n;
        c.nb = nb;
        c.nprow = p;
        c.npcol = q;
        const HplMxpResult r = run_hpl_mxp(context_on(host_device()), c);
        if (!r.in_grid) continue;
        const std::string what = "n " + std::to_string(n) + " nb " + std::to_string(nb) + " " +
                                 std::to_string(p) + "x" + std::to_string(q);
        EXPECT_TRUE(r.passed()) << what << " check " << r.refinement.check;
        EXPECT_LT(r.refinement.check, 16.0) << what;
        EXPECT_LE(r.refinement.iterations, 10) << what;
        EXPECT_GT(r.gflops, 0.0);
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) {  // the record is rank 0's (grid rank 0 is world rank 0)
          EXPECT_EQ(r.iterations.size(), static_cast<std::size_t>((n + nb - 1) / nb));
        }
        EXPECT_EQ(r.refinement.check_history.size(),
                  static_cast<std::size_t>(r.refinement.cycles + 1));
        EXPECT_EQ(r.refinement.estimate_history.size(),
                  static_cast<std::size_t>(r.refinement.iterations));
      }
    }
  }
}

TEST(HplMxpRefinement, MatrixThatIsNotDominantFailsToConvergeInsteadOfHanging) {
  for (double scale : {0.0, 1e-9}) {
    for (auto [p, q] : hplmxp_test_grids()) {
      HplMxpConfig c;
      c.n = 150;
      c.nb = 16;
      c.nprow = p;
      c.npcol = q;
      c.max_iterations = 20;
      c.restart = 10;
      c.diagonal_scale = scale;
      const HplMxpResult r = run_hpl_mxp(context_on(host_device()), c);
      if (!r.in_grid) continue;
      EXPECT_FALSE(r.passed()) << "scale " << scale << " grid " << p << "x" << q;
      EXPECT_LE(r.refinement.iterations, 20);
      if (scale == 0.0) {
        EXPECT_TRUE(r.bad_pivot);
      }
    }
  }
}
// The panel's solves as GEMMs by the diagonal block's inverted triangles
// (--panel-solve inverse, in FP32, and inverse-tf32, the default on device
// backends beside a 16-bit update): the same factors as the unpivoted LU in
// double, to FP32 rounding (TF32's 10 fraction bits for inverse-tf32), on
// the host and on the emulated device with FACT on its own queue (L11's
// inverse made by FACT on the diagonal block's process and by U's solve on
// the others of its process row), every grid, NB 1 to 32, look-ahead on
// and off.
void check_inverted_triangles(PanelSolve solve, double unit) {
  for (long n : {13L, 64L, 101L}) {
    std::vector<double> ref = serial_matrix(n);
    lu_double(n, ref);
    double refmax = 0;
    for (double v : ref) refmax = std::max(refmax, std::fabs(v));
    for (int nb : {1, 7, 32}) {
      for (int depth : {0, 1}) {
        for (auto [p, q] : hplmxp_test_grids()) {
          ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
          if (!grid.in_grid()) continue;
          const Layout l = Layout::of(n, nb, grid);
          const std::vector<double> a = generated(l, grid);
          FactorOptions how;
          how.depth = depth;
          how.panel_solve = solve;
          std::vector<float> on_host(a.begin(), a.end());
          EXPECT_FALSE(factor_nopiv(l, grid, host_queue(), on_host.data(), how).bad_pivot);
          device::Queue& eq = emulated_queue();
          const std::vector<float> start(a.begin(), a.end());
          device::Buffer<float> dev_lu(eq.backend(), l.local_elements());
          device::copy(eq, dev_lu.data(), start.data(), l.local_elements());
          how.fact_queue = &emulated().panel();
          EXPECT_FALSE(factor_nopiv(l, grid, eq, dev_lu.data(), how).bad_pivot);
          std::vector<float> on_device(start.size());
          device::copy(eq, on_device.data(), dev_lu.data(), l.local_elements());
          eq.synchronize();
          double worst_host = 0, worst_device = 0;
          for (long jl = 0; jl < l.nloc; ++jl)
            for (long il = 0; il < l.mloc; ++il) {
              const double want = ref[l.global_row(il) + l.global_col(jl) * n];
              worst_host = std::max(worst_host, std::fabs(on_host[il + jl * l.lda] - want));
              worst_device = std::max(worst_device, std::fabs(on_device[il + jl * l.lda] - want));
            }
          EXPECT_LT(worst_host, 8.0 * n * unit * refmax)
              << name_of(solve) << " host n " << n << " nb " << nb << " depth " << depth << " grid "
              << p << "x" << q;
          EXPECT_LT(worst_device, 8.0 * n * unit * refmax)
              << name_of(solve) << " emulated n " << n << " nb " << nb << " depth " << depth
              << " grid " << p << "x" << q;
        }
      }
    }
  }
}

TEST(HplMxpLu, InvertedTrianglesGiveTheUnpivotedLuOnEveryGrid) {
  check_inverted_triangles(PanelSolve::Inverse, 6e-8);  // FP32's unit roundoff
}

// TF32's rounding falls on the panel solves' products only, whose factors
// (L21, U12) are small beside the matrix's largest entry (U's diagonal):
// the factors stayed within 0.007 n 2^-11 max|LU| on every grid and NB
// here, so the bound uses a 64th of TF32's unit roundoff.
TEST(HplMxpLu, InvertedTrianglesInTf32GiveTheUnpivotedLuOnEveryGrid) {
  check_inverted_triangles(PanelSolve::InverseTf32, std::ldexp(1.0, -11) / 64);
}

// On the emulated device (the matrix in device memory, host copies for MPI,
// FACT on the panel queue) the factors are those of the host backend, and
// the solves give the same vector.
TEST(HplMxpDevice, EmulatedDeviceFactorsAndSolvesAsTheHost) {
  const long n = 61;
  const int nb = 8;
  for (auto [p, q] : hplmxp_test_grids()) {
    ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
    if (!grid.in_grid()) continue;
    const Layout l = Layout::of(n, nb, grid);
    const std::vector<double> a = generated(l, grid);
    std::vector<float> on_host(a.begin(), a.end());
    factor_nopiv(l, grid, host_queue(), on_host.data());
    device::Queue& eq = emulated_queue();
    device::Buffer<float> dev_lu(eq.backend(), l.local_elements());
    const std::vector<float> start(a.begin(), a.end());
    device::copy(eq, dev_lu.data(), start.data(), l.local_elements());
    FactorOptions beside;
    beside.fact_queue = &emulated().panel();
    const LuNopivResult r = factor_nopiv(l, grid, eq, dev_lu.data(), beside);
    EXPECT_FALSE(r.bad_pivot);
    std::vector<float> back(start.size());
    device::copy(eq, back.data(), dev_lu.data(), l.local_elements());
    eq.synchronize();
    double worst = 0;
    for (std::size_t i = 0; i < back.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::fabs(back[i] - on_host[i])));
    EXPECT_LE(worst, 1e-5 * n) << "grid " << p << "x" << q;

    const std::vector<double> b = generate_rhs(n);
    std::vector<float> x_host(b.begin(), b.end()), x_dev(b.begin(), b.end());
    solve_lu(l, grid, host_queue(), on_host.data(), x_host.data(), x_host.data());
    solve_lu(l, grid, eq, dev_lu.data(), x_dev.data(), x_dev.data());
    for (long i = 0; i < n; ++i)
      EXPECT_NEAR(x_dev[i], x_host[i], 1e-5 * (1 + std::fabs(x_host[i])))
          << i << " grid " << p << "x" << q;
  }
}

// With 16-bit operands in the update the factors are those of an unpivoted
// LU in double up to the 16-bit rounding, and HPL-MxP still passes its
// check, after more refinement than with FP32 (BF16 keeps 8 bits, FP16 11).
TEST(HplMxpDevice, SixteenBitUpdateStillPassesTheCheck) {
  const long n = 150;
  for (device::Precision prec : {device::Precision::Fp16, device::Precision::Bf16}) {
    for (auto [p, q] : hplmxp_test_grids()) {
      for (const std::shared_ptr<device::Device>& dev : {host_device(), emulated_device()}) {
        HplMxpConfig c;
        c.n = n;
        c.nb = 16;
        c.nprow = p;
        c.npcol = q;
        c.precision = prec;
        const HplMxpResult r = run_hpl_mxp(context_on(dev), c);
        if (!r.in_grid) continue;
        const std::string what = std::string(device::name_of(prec)) + " on " +
                                 dev->backend().describe() + " grid " + std::to_string(p) + "x" +
                                 std::to_string(q);
        EXPECT_TRUE(r.passed()) << what << " check " << r.refinement.check;
        EXPECT_LE(r.refinement.iterations, 30) << what;
        // The FP32 solution alone is far from passing: the refinement did it.
        ASSERT_FALSE(r.refinement.check_history.empty());
        EXPECT_GT(r.refinement.check_history.front(), 16.0) << what;
      }
    }
  }
}

// The default problem: the time target at the FP32 rate, the memory at 12
// bytes per element, N a multiple of NB.
TEST(HplMxpDefaultSize, SizedByTimeOrByMemoryAtTwelveBytesPerElement) {
  HplMxpConfig c;
  c.nb = 128;
  c.nprow = 1;
  c.npcol = 2;
  // 100 Gflop/s for 1 s at 0.85: (1.5 * 85e9)^(1/3) = 5032 -> 4992.
  const DefaultSize by_time = choose_default_size(c, 100.0, 1LL << 40, 1.0);
  EXPECT_EQ(by_time.n, 4992);
  EXPECT_FALSE(by_time.memory_bound);
  EXPECT_NEAR(by_time.predicted_seconds, 0.98, 0.02);
  // 1 GiB per rank, 80% of it: 12 N^2 / 2 <= 0.8 GiB -> N about 11985.
  const DefaultSize by_memory = choose_default_size(c, 1e6, 1LL << 30, 60.0);
  EXPECT_TRUE(by_memory.memory_bound);
  EXPECT_EQ(by_memory.n % 128, 0);
  EXPECT_GT(by_memory.n, 11000);
  EXPECT_LE(by_memory.bytes_per_process, static_cast<long long>(0.8 * (1LL << 30)));
  c.n = by_memory.n + 128;
  EXPECT_GT(bytes_per_process(c), static_cast<long long>(0.8 * (1LL << 30)));
}

// Column-major grids: the solver addresses processes by grid coordinates
// only, so the mapping changes no number.
TEST(HplMxpRefinement, ColumnMajorGridGivesTheSameResultAsRowMajor) {
  for (auto [p, q] : hplmxp_test_grids()) {
    HplMxpConfig c;
    c.n = 201;
    c.nb = 16;
    c.nprow = p;
    c.npcol = q;
    const HplMxpResult row = run_hpl_mxp(context_on(host_device()), c);
    c.pmap = GridOrder::ColumnMajor;
    const HplMxpResult column = run_hpl_mxp(context_on(host_device()), c);
    ASSERT_EQ(row.in_grid, column.in_grid);
    if (!column.in_grid) continue;
    EXPECT_TRUE(column.passed()) << p << "x" << q;
    EXPECT_EQ(column.refinement.check, row.refinement.check) << p << "x" << q;
    EXPECT_EQ(column.refinement.iterations, row.refinement.iterations) << p << "x" << q;
  }
}
