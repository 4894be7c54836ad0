// HPL-MxP on the device: the diagonal block factored on the queue
// (diagonal_block.hpp) against an unblocked LU in double, on the host and
// the emulated device, with its bad-pivot flag; the factorization on one
// process making no host wait, allocation or host copy per panel; the
// emulated device catching a planted missing wait between FACT's queue and
// the update's; the refinement on the queue reaching the host's backward
// error, with no vector to the host per GMRES iteration on one process.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "device/compiled_backends.hpp"
#include "device/device.hpp"
#include "device/emulated/emulated_backend.hpp"
#include "device/launch.hpp"
#include "hplmxp/diagonal_block.hpp"
#include "hplmxp/distributed_matrix.hpp"
#include "hplmxp/generated_matrix.hpp"
#include "hplmxp/gmres_ir.hpp"
#include "hplmxp/hpl_mxp.hpp"
#include "hplmxp/kernels/nopiv_kernels.hpp"
#include "hplmxp/kernels/vector_kernels.hpp"
#include "hplmxp/lu_nopiv.hpp"
#include "hplmxp/triangle_inverse.hpp"
#include "hplmxp/triangular_solve.hpp"
#include "tests/device/backends.hpp"

using namespace hplx;
using namespace hplx::hplmxp;

namespace {

// One device per backend for the whole program.
std::shared_ptr<device::Device> device_of(device::BackendKind kind) {
  static std::map<device::BackendKind, std::shared_ptr<device::Device>> made;
  std::shared_ptr<device::Device>& dev = made[kind];
  if (!dev) dev = device::make_device(kind);
  return dev;
}

// A random n x n block (leading dimension lda, the rows below n set to a
// marker) with a dominant diagonal.
std::vector<float> random_block(long n, long lda, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<float> a(static_cast<std::size_t>(lda * n), 7.0f);
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < n; ++i) a[i + j * lda] = u(gen) + (i == j ? static_cast<float>(n) : 0.0f);
  return a;
}

// Unblocked LU without pivoting in double (the oracle).
std::vector<double> lu_double(long n, long lda, const std::vector<float>& a) {
  std::vector<double> f(a.begin(), a.end());
  for (long k = 0; k < n; ++k) {
    for (long i = k + 1; i < n; ++i) f[i + k * lda] /= f[k + k * lda];
    for (long j = k + 1; j < n; ++j)
      for (long i = k + 1; i < n; ++i) f[i + j * lda] -= f[i + k * lda] * f[k + j * lda];
  }
  return f;
}

struct Factored {
  std::vector<float> a;
  int bad = 0;
};

// factor_diagonal_block on `kind`'s compute queue, the block in its memory.
Factored factor_on(device::BackendKind kind, long n, long lda, const std::vector<float>& a) {
  std::shared_ptr<device::Device> dev = device_of(kind);
  device::Queue& q = dev->compute();
  device::Buffer<float> da(dev->backend(), static_cast<long>(a.size()));
  device::Buffer<int> bad(dev->backend(), 1);
  const int zero = 0;
  device::copy(q, da.data(), a.data(), static_cast<long>(a.size()));
  device::copy(q, bad.data(), &zero, 1);
  factor_diagonal_block(q, n, da.data(), lda, bad.data());
  Factored f;
  f.a.resize(a.size());
  device::copy(q, f.a.data(), da.data(), static_cast<long>(a.size()));
  device::copy(q, &f.bad, bad.data(), 1);
  q.synchronize();
  return f;
}

// On every backend compiled in and usable here (a GPU's where one is).
class HplMxpDiagonalBlock : public testing::TestWithParam<device::BackendKind> {};

// One leaf (n <= kLeafColumns), a leaf and a sliver, several levels of the
// recursion with uneven halves: the factors of an unblocked LU in double up
// to FP32's rounding, the rows below the block untouched, no pivot flagged.
TEST_P(HplMxpDiagonalBlock, GivesTheUnblockedLu) {
  for (const long n : {1L, 5L, kLeafColumns, kLeafColumns + 1, 100L, 257L}) {
    const long lda = n + 3;
    const std::vector<float> a = random_block(n, lda, static_cast<std::uint64_t>(n));
    const std::vector<double> want = lu_double(n, lda, a);
    {
      const device::BackendKind kind = GetParam();
      const Factored got = factor_on(kind, n, lda, a);
      EXPECT_EQ(got.bad, 0) << "n " << n << " on " << device::name_of(kind);
      double worst = 0;
      for (long j = 0; j < n; ++j) {
        for (long i = 0; i < n; ++i)
          worst = std::max(worst, std::fabs(got.a[i + j * lda] - want[i + j * lda]) /
                                      (1.0 + std::fabs(want[i + j * lda])));
        for (long i = n; i < lda; ++i) ASSERT_EQ(got.a[i + j * lda], 7.0f) << "row " << i;
      }
      EXPECT_LT(worst, 1e-5) << "n " << n << " on " << device::name_of(kind);
    }
  }
}

// A zero pivot in the first leaf, one in the second half of the recursion,
// and a NaN: each sets the flag, on every backend.
TEST_P(HplMxpDiagonalBlock, FlagsAZeroOrNonFinitePivot) {
  const long n = 80;
  struct Plant {
    long at;
    float value;
  };
  for (const Plant plant :
       {Plant{0, 0.0f}, Plant{50, 0.0f}, Plant{70, std::numeric_limits<float>::quiet_NaN()}}) {
    std::vector<float> a = random_block(n, n, 3);
    // A zero where the pivot will be: the column's entries above and left
    // of it are zeroed too, so that the elimination leaves it zero.
    for (long k = 0; k < n; ++k) {
      a[plant.at + k * n] = 0.0f;
      a[k + plant.at * n] = 0.0f;
    }
    a[plant.at + plant.at * n] = plant.value;
    EXPECT_EQ(factor_on(GetParam(), n, n, a).bad, 1)
        << "pivot " << plant.at << " = " << plant.value;
  }
}

// T X - I in double, its largest entry.
double largest_residual(device::Uplo uplo, long n, const std::vector<float>& t, long ldt,
                        const std::vector<float>& x) {
  double worst = 0;
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < n; ++i) {
      double s = i == j ? -1.0 : 0.0;
      for (long k = 0; k < n; ++k) {
        const bool in = uplo == device::Uplo::Lower ? k <= i : k >= i;
        const double tik = !in                                       ? 0.0
                           : (k == i && uplo == device::Uplo::Lower) ? 1.0
                                                                     : t[i + k * ldt];
        s += tik * x[k + j * n];
      }
      worst = std::max(worst, std::fabs(s));
    }
  return worst;
}

// The triangles' inverses of the panel solves (triangle_inverse.hpp): the
// factors of a diagonally dominant block, as HPL-MxP's, as T (L11 with its
// unit diagonal, U11), one TRSM leaf, a leaf and a sliver, several levels
// with uneven halves. T X = I as closely as a TRSM on the identity gets it
// (the inverse the recursion replaced), the other triangle exactly zero
// (the panel solves' GEMMs take the inverse as a full block) and a unit
// diagonal exactly one.
TEST_P(HplMxpDiagonalBlock, InvertsTrianglesAsCloselyAsATrsmOnTheIdentity) {
  using device::Uplo;
  std::shared_ptr<device::Device> dev = device_of(GetParam());
  device::Queue& q = dev->compute();
  for (const long n : {1L, 7L, kInverseLeafColumns, kInverseLeafColumns + 1, 300L, 517L}) {
    const long ldt = n + 5;
    const std::vector<double> lu = lu_double(n, ldt, random_block(n, ldt, 40 + n));
    const std::vector<float> t(lu.begin(), lu.end());
    device::Buffer<float> dt(dev->backend(), static_cast<long>(t.size()));
    device::Buffer<float> dx(dev->backend(), n * n);
    device::copy(q, dt.data(), t.data(), static_cast<long>(t.size()));
    for (const Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
      std::vector<float> x(n * n), by_trsm(n * n);
      invert_triangle(q, uplo, n, dt.data(), ldt, dx.data());
      device::copy(q, x.data(), dx.data(), n * n);
      device::launch(q, n * n, kernels::Identity{dx.data(), n});
      q.trsm(device::Side::Left, uplo, device::Trans::No,
             uplo == Uplo::Lower ? device::Diag::Unit : device::Diag::NonUnit, n, n, 1.0f,
             dt.data(), ldt, dx.data(), n);
      device::copy(q, by_trsm.data(), dx.data(), n * n);
      q.synchronize();
      const auto where = testing::Message() << (uplo == Uplo::Lower ? "lower" : "upper") << " n "
                                            << n << " on " << device::name_of(GetParam());
      for (long j = 0; j < n; ++j)
        for (long i = 0; i < n; ++i) {
          if (uplo == Uplo::Lower ? i < j : i > j)
            ASSERT_EQ(x[i + j * n], 0.0f) << where << " (" << i << ", " << j << ")";
          if (uplo == Uplo::Lower && i == j) ASSERT_EQ(x[i + j * n], 1.0f) << where;
        }
      const double got = largest_residual(uplo, n, t, ldt, x);
      const double trsm = largest_residual(uplo, n, t, ldt, by_trsm);
      EXPECT_LE(got, 2 * trsm + 1e-12) << where << " (TRSM: " << trsm << ")";
    }
  }
}

HPLX_INSTANTIATE_OVER_BACKENDS(HplMxpDiagonalBlock);

// The factors of the benchmark's matrix on a 1 x 1 grid of `dev` (ranks
// beyond it sit out: empty factors), with FACT on the device's panel queue.
struct OneProcess {
  std::vector<float> factors;
  device::DeviceCounters counted;
  bool in_grid = false, bad_pivot = false;
};
// `workspace`: the buffers made before the counters start, as hpl-mxp
// makes them before its clock. `omit_fact_wait` (the emulated device only):
// the update's waits for FACT's queue dropped (DroppedWaits).
// `update_sms`, `below`: FactorOptions::update_sms and update_sms_below.
OneProcess factor_one_process(device::Device& dev, long n, int nb, bool omit_fact_wait = false,
                              bool workspace = false, PanelSolve solve = PanelSolve::Trsm,
                              int update_sms = 0, long below = 0) {
  OneProcess r;
  ProcessGrid grid(MPI_COMM_WORLD, 1, 1, GridOrder::RowMajor);
  if (!grid.in_grid()) return r;
  r.in_grid = true;
  const Layout l = Layout::of(n, nb, grid);
  std::vector<double> a(static_cast<std::size_t>(l.local_elements()));
  generate_matrix(l, grid, a.data());
  const std::vector<float> start(a.begin(), a.end());
  device::Queue& q = dev.compute();
  device::Buffer<float> da(dev.backend(), l.local_elements());
  device::copy(q, da.data(), start.data(), l.local_elements());
  q.synchronize();
  FactorOptions opt;
  opt.fact_queue = &dev.panel();
  opt.panel_solve = solve;
  opt.update_sms = update_sms;
  opt.update_sms_below = below;
  std::optional<NopivWorkspace> ws;
  if (workspace) {
    ws.emplace(l, dev.backend(), opt.depth, opt.precision, opt.panel_solve);
    opt.workspace = &*ws;
  }
  std::optional<device::DroppedWaits> dropped;
  if constexpr (device::kEmulatedCompiled)
    if (omit_fact_wait)
      dropped.emplace(device::DroppedWaits::waits_on_events_of(q, *opt.fact_queue));
  const device::DeviceCounters before = dev.backend().counters();
  const LuNopivResult f = factor_nopiv(l, grid, q, da.data(), opt);
  r.counted = dev.backend().counters().since(before);
  // One wait per panel factored on the panel queue beside an update (all
  // but the first, which nothing runs beside), each planted out.
  if (dropped) {
    EXPECT_EQ(dropped->dropped(), (n + nb - 1) / nb - 1) << "the planted bug was not reached";
  }
  dropped.reset();
  r.bad_pivot = f.bad_pivot;
  r.factors.resize(start.size());
  device::copy(q, r.factors.data(), da.data(), l.local_elements());
  q.synchronize();
  return r;
}

// On one process nothing of the matrix reaches the host and the host waits
// only at the start (the device timeline's anchor: the queue and its
// event) and at the end (for the two queues, and for each buffer it
// frees): 8 panels and 50 make the same waits and allocations, and the
// bytes each way are the bad-pivot flag's.
TEST(HplMxpDevice, OneProcessMakesNoHostWaitOrCopyPerPanel) {
  std::shared_ptr<device::Device> dev = device_of(device::BackendKind::Emulated);
  const long n = 400;
  const OneProcess few = factor_one_process(*dev, n, 50);
  const OneProcess many = factor_one_process(*dev, n, 8);
  // With the buffers made beforehand (hpl-mxp makes them before its clock).
  const OneProcess ready = factor_one_process(*dev, n, 8, false, true);
  // The panel's solves by inverted triangles, in FP32 and in TF32 (hpl-mxp's
  // defaults on a device); every rank makes the grid, so every rank calls.
  const OneProcess inverted = factor_one_process(*dev, n, 8, false, true, PanelSolve::Inverse);
  const OneProcess tf32 = factor_one_process(*dev, n, 8, false, true, PanelSolve::InverseTf32);
  if (!few.in_grid) return;
  ASSERT_GE(few.counted.host_waits, 0) << "the emulated device counts";
  EXPECT_FALSE(few.bad_pivot);
  EXPECT_FALSE(many.bad_pivot);
  EXPECT_EQ(few.counted.host_waits, many.counted.host_waits);
  EXPECT_LE(many.counted.host_waits, many.counted.allocations + 4);
  EXPECT_EQ(few.counted.allocations, many.counted.allocations);
  EXPECT_LE(many.counted.bytes_to_host, 8);
  EXPECT_LE(many.counted.bytes_to_device, 8);
  std::printf(
      "[ counters ] 8 panels: %ld host waits, %ld allocations, %lld B to the host; 50 "
      "panels: %ld, %ld, %lld\n",
      few.counted.host_waits, few.counted.allocations, few.counted.bytes_to_host,
      many.counted.host_waits, many.counted.allocations, many.counted.bytes_to_host);
  // With the workspace: no allocation at all, and no free (each a host
  // wait) at the end.
  EXPECT_FALSE(ready.bad_pivot);
  EXPECT_EQ(ready.counted.allocations, 0);
  EXPECT_LT(ready.counted.host_waits, many.counted.host_waits);
  EXPECT_EQ(ready.factors, many.factors) << "the same factors with the workspace given";
  std::printf("[ counters ] 50 panels, workspace made before: %ld host waits, %ld allocations\n",
              ready.counted.host_waits, ready.counted.allocations);
  // With inverted triangles: no allocation, host wait or copy more, and
  // factors near the STRSMs' (within the bound FP32's rounding keeps at
  // this size); in TF32 visibly coarser than in FP32.
  double worst[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const OneProcess& solved = k == 0 ? inverted : tf32;
    EXPECT_FALSE(solved.bad_pivot);
    EXPECT_EQ(solved.counted.allocations, 0);
    EXPECT_EQ(solved.counted.host_waits, ready.counted.host_waits);
    EXPECT_EQ(solved.counted.bytes_to_host, ready.counted.bytes_to_host);
    EXPECT_EQ(solved.counted.bytes_to_device, ready.counted.bytes_to_device);
    for (std::size_t i = 0; i < ready.factors.size(); ++i)
      worst[k] = std::max(worst[k], double(std::fabs(solved.factors[i] - ready.factors[i])));
    EXPECT_LE(worst[k], 1e-5 * n) << (k == 0 ? "inverse" : "inverse-tf32");
  }
  EXPECT_GT(worst[1], 4 * worst[0]) << "inverse-tf32 multiplied in FP32";
  std::printf(
      "[ inverses ] largest distance from the STRSMs' factors: %.3g (inverse), %.3g "
      "(inverse-tf32)\n",
      worst[0], worst[1]);
}

// --update-sms in HPL-MxP's LU, as in hplx lu's: the update beside FACT
// makes its BLAS calls with the compute queue's SM target set, in every
// iteration or only below the rows given, and the factors are the same.
// N = 400, NB 50: six updates beside FACT (the last panel leaves no
// column), three of them with fewer than 200 rows left.
TEST(HplMxpDevice, TheUpdateBesideFactKeepsSmsWhereAsked) {
  std::shared_ptr<device::Device> dev = device_of(device::BackendKind::Emulated);
  const OneProcess plain = factor_one_process(*dev, 400, 50, false, true);
  const OneProcess every = factor_one_process(*dev, 400, 50, false, true, PanelSolve::Trsm, 100);
  const OneProcess late =
      factor_one_process(*dev, 400, 50, false, true, PanelSolve::Trsm, 100, 200);
  if (!plain.in_grid) return;
  EXPECT_EQ(plain.counted.blas_on_fewer_sms, 0);
  EXPECT_GT(late.counted.blas_on_fewer_sms, 0);
  EXPECT_EQ(every.counted.blas_on_fewer_sms, 2 * late.counted.blas_on_fewer_sms)
      << "as many calls in each of the six iterations";
  EXPECT_EQ(every.factors, plain.factors);
  EXPECT_EQ(late.factors, plain.factors);
  std::printf("[ update sms ] BLAS calls on fewer SMs: %ld in every iteration, %ld below 200\n",
              every.counted.blas_on_fewer_sms, late.counted.blas_on_fewer_sms);
}

// The update must wait for FACT's queue before it reads the panel. With the
// wait planted out (the emulated device drops the compute queue's waits on
// the panel queue's events), the emulated device (queues on threads, every operation
// late by up to 2 ms) gives other factors than the host's in most seeds;
// with it, every seed gives the host's.
TEST(HplMxpDevice, EmulatedDeviceCatchesAMissingWaitForFact) {
  if (!device::kEmulatedCompiled) GTEST_SKIP() << "the emulated backend is not compiled in";
  // Panels of several leaves: a FACT of more operations than the update
  // queued before it on the compute queue, which otherwise often hides the
  // missing wait (the compute queue reaches the panel after FACT is done).
  const long n = 384;
  const int nb = 96, seeds = 6;
  // Every rank makes the same calls (the grid is made over all of them);
  // ranks beyond the 1 x 1 grid get empty factors, the same as the host's.
  const OneProcess host = factor_one_process(*device_of(device::BackendKind::Host), n, nb);
  auto same_as_host = [&](const OneProcess& r) {
    for (std::size_t i = 0; i < r.factors.size(); ++i)
      if (!(std::fabs(r.factors[i] - host.factors[i]) <= 1e-4 * (1 + std::fabs(host.factors[i]))))
        return false;
    return true;
  };
  int caught = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    device::EmulatedOptions o;
    o.seed = static_cast<std::uint64_t>(seed);
    o.max_delay_us = 2000;
    o.delay_share = 1.0;
    device::Device dev(device::make_emulated_backend(o));
    const OneProcess ordered = factor_one_process(dev, n, nb);
    EXPECT_FALSE(ordered.bad_pivot) << "seed " << seed;
    EXPECT_TRUE(same_as_host(ordered)) << "seed " << seed;
    if (!same_as_host(factor_one_process(dev, n, nb, true))) ++caught;
  }
  if (!host.in_grid) return;
  EXPECT_GE(caught, seeds / 2 + 1) << "the planted missing wait went unseen in most seeds";
  std::printf("[ planted ] the missing wait for FACT caught in %d of %d seeds\n", caught, seeds);
}

}  // namespace

namespace {

// The refinement on the emulated device (products made again, vectors and
// solves on the queue) reaches the host backend's backward error in the
// same GMRES iterations, on every grid, FP32 and BF16 updates.
TEST(HplMxpDeviceRefinement, ReachesTheHostsBackwardError) {
  std::shared_ptr<device::Device> emulated = device_of(device::BackendKind::Emulated);
  std::shared_ptr<device::Device> host = device_of(device::BackendKind::Host);
  for (const device::Precision prec : {device::Precision::Fp32, device::Precision::Bf16}) {
    for (auto [p, q] : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {2, 1}}) {
      int size = 1;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      if (p * q > size) continue;
      HplMxpConfig c;
      c.n = 300;
      c.nb = 32;
      c.nprow = p;
      c.npcol = q;
      c.precision = prec;
      const HplMxpResult on_host = run_hpl_mxp(Context(MPI_COMM_WORLD, {}, host), c);
      const HplMxpResult on_device = run_hpl_mxp(Context(MPI_COMM_WORLD, {}, emulated), c);
      if (!on_host.in_grid) continue;
      const std::string what = std::string(device::name_of(prec)) + " grid " + std::to_string(p) +
                               "x" + std::to_string(q);
      EXPECT_TRUE(on_device.passed()) << what;
      EXPECT_EQ(on_device.refinement.iterations, on_host.refinement.iterations) << what;
      // Both far below the threshold, where the last bits of the
      // iterates move the check: within a factor of 4 of each other.
      EXPECT_LT(on_device.refinement.check, 4 * on_host.refinement.check) << what;
      EXPECT_GT(on_device.refinement.check, on_host.refinement.check / 4) << what;
    }
  }
}

// On one process of the emulated device the refinement's vectors stay on
// the queue: the bytes it brings to the host are its max-norms' chunk
// maxima (one per 1024 entries, two norms per cycle and b's), whatever the
// number of GMRES iterations (a BF16 factorization and a check far below
// HPL-MxP's make several).
TEST(HplMxpDeviceRefinement, OneProcessBringsOnlyScalarsToTheHost) {
  std::shared_ptr<device::Device> dev = device_of(device::BackendKind::Emulated);
  ProcessGrid grid(MPI_COMM_WORLD, 1, 1, GridOrder::RowMajor);
  if (!grid.in_grid()) return;
  const long n = 400;
  const Layout l = Layout::of(n, 32, grid);
  device::Queue& q = dev->compute();
  GeneratedMatrix a(q, l, grid);
  device::Buffer<float> lu(dev->backend(), l.local_elements());
  a.fill_float(lu.data());
  FactorOptions how;
  how.precision = device::Precision::Bf16;
  factor_nopiv(l, grid, q, lu.data(), how);
  const std::vector<double> rhs = generate_rhs(n);
  device::Buffer<double> b(dev->backend(), n), x(dev->backend(), n);
  device::Buffer<float> xf(dev->backend(), n);
  device::copy(q, b.data(), rhs.data(), n);
  device::launch(q, n, kernels::ToFloat{b.data(), xf.data()});
  solve_lu_on_queue(l, grid, q, lu.data(), xf.data());
  device::launch(q, n, kernels::ToDouble{xf.data(), x.data()});
  q.synchronize();
  GmresIrOptions strict;  // a check far below HPL-MxP's: more iterations
  strict.threshold = 1e-3;
  strict.max_iterations = 12;
  GmresIrWorkspace ws(dev->backend(), n, strict.restart);  // as hpl-mxp: before the clock
  strict.workspace = &ws;
  const device::DeviceCounters before = dev->backend().counters();
  const GmresIrResult r = gmres_ir(
      q, n, [&](const double* v, double* av) { a.multiply(v, av); }, a.norm_inf(), b.data(),
      [&](const double* v, double* z) {
        device::launch(q, n, kernels::ToFloat{v, xf.data()});
        solve_lu_on_queue(l, grid, q, lu.data(), xf.data());
        device::launch(q, n, kernels::ToDouble{xf.data(), z});
      },
      strict, x.data());
  const device::DeviceCounters counted = dev->backend().counters().since(before);
  ASSERT_GE(r.iterations, 3) << "too few iterations to tell";
  const long long maxima = (2LL * (r.cycles + 1) + 1) * ((n + 1023) / 1024) * 8;
  EXPECT_LE(counted.bytes_to_host, maxima);
  EXPECT_EQ(counted.bytes_to_device, 0);
  EXPECT_EQ(counted.allocations, 0) << "the refinement allocated with its workspace made before";
  std::printf(
      "[ counters ] %d GMRES iterations in %d cycles: %lld B to the host (the norms' "
      "chunk maxima: %lld), %lld B to the device, %ld allocations\n",
      r.iterations, r.cycles, counted.bytes_to_host, maxima, counted.bytes_to_device,
      counted.allocations);
}

}  // namespace
