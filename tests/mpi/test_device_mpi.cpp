// --cuda-aware-mpi (device/device_mpi.hpp): what each mode gives on each
// backend, and the refusals, with this machine's MPI library (Debian's
// Open MPI says it is not CUDA-aware: MPIX_Query_cuda_support() = 0), and
// the row swap with MPI on device memory (lu::SwapForm::device_memory) on
// the emulated device, whose device memory any MPI reads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "device/compiled_backends.hpp"
#include "device/device_mpi.hpp"
#include "device/emulated/emulated_backend.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "tests/mpi/first_panel_swap.hpp"

namespace hplx::device {
namespace {

TEST(DeviceMpi, OffIsOffEverywhere) {
  for (const BackendKind b :
       {BackendKind::Host, BackendKind::Emulated, BackendKind::Cuda, BackendKind::Hip})
    EXPECT_FALSE(choose_device_mpi(b, "off").on) << name_of(b);
}

TEST(DeviceMpi, AutoIsOnOnlyOnCudaWithAnAwareLibrary) {
  EXPECT_FALSE(choose_device_mpi(BackendKind::Host, "auto").on);
  EXPECT_FALSE(choose_device_mpi(BackendKind::Emulated, "auto").on);
  const DeviceMpi cuda = choose_device_mpi(BackendKind::Cuda, "auto");
  EXPECT_EQ(cuda.on, mpi_says_cuda_aware() == 1);
  EXPECT_NE(cuda.why.find("MPIX_Query_cuda_support"), std::string::npos) << cuda.why;
}

// Debian's Open MPI 4 has no MPIX_Query_rocm_support: the hip backend is on
// only where Cray MPICH's GPU transport layer is asked for.
TEST(DeviceMpi, AutoOnHipFollowsTheRocmQueryOrCrayMpichsGpuSupport) {
  unsetenv("MPICH_GPU_SUPPORT_ENABLED");
  const DeviceMpi hip = choose_device_mpi(BackendKind::Hip, "auto");
  EXPECT_EQ(hip.on, mpi_says_rocm_aware() == 1);
  EXPECT_NE(hip.why.find("rocm"), std::string::npos) << hip.why;
  setenv("MPICH_GPU_SUPPORT_ENABLED", "1", 1);
  EXPECT_TRUE(choose_device_mpi(BackendKind::Hip, "auto").on);
  // Cray's switch speaks for ROCm here; cuda still asks its own query.
  EXPECT_EQ(choose_device_mpi(BackendKind::Cuda, "auto").on, mpi_says_cuda_aware() == 1);
  unsetenv("MPICH_GPU_SUPPORT_ENABLED");
}

TEST(DeviceMpi, OnStandsForAnAwareLibraryOnTheEmulatedDevice) {
  const DeviceMpi e = choose_device_mpi(BackendKind::Emulated, "on");
  EXPECT_TRUE(e.on);
  EXPECT_NE(e.why.find("emulated"), std::string::npos) << e.why;
}

TEST(DeviceMpi, OnIsRefusedWithoutDeviceMemoryOrWithALibraryThatSaysNo) {
  EXPECT_THROW(choose_device_mpi(BackendKind::Host, "on"), UsageError);
  EXPECT_THROW(choose_device_mpi(BackendKind::Sim, "on"), UsageError);
  if (mpi_says_cuda_aware() == 0)
    EXPECT_THROW(choose_device_mpi(BackendKind::Cuda, "on"), UsageError);
  else if (mpi_says_cuda_aware() == 1)
    EXPECT_TRUE(choose_device_mpi(BackendKind::Cuda, "on").on);
}

TEST(DeviceMpi, AnUnknownModeIsAUsageErrorNamingIt) {
  try {
    choose_device_mpi(BackendKind::Cuda, "yes");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--cuda-aware-mpi yes: allowed: auto, on, off"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hplx::device

namespace hplx::lu {
namespace {

// What one swap of the first panel over the trailing columns leaves, and
// what the emulated device counted during it.
struct SwapOutcome {
  std::vector<double> matrix, u;
  device::DeviceCounters counted;
};

SwapOutcome swap_first_panel(SwapForm form, bool device_memory) {
  device::EmulatedOptions o;
  o.max_delay_us = 500;  // late operations: a missing wait for the queue shows
  o.delay_share = 0.5;
  device::Device dev(device::make_emulated_backend(o));
  constexpr long kN = 300;
  std::mt19937_64 gen(7);  // the same pivots on every rank
  test::FirstPanelSwap f(
      dev, kN, 24, [&](int c) { return std::uniform_int_distribution<long>(c, kN - 1)(gen); });
  form.device_memory = device_memory;
  SwapBuffers b;
  dev.compute().synchronize();
  const device::DeviceCounters before = dev.backend().counters();
  swap_rows(dev.compute(), f.a, f.p, f.plan, f.lc0, f.nn, f.grid, b, form);
  dev.compute().synchronize();
  SwapOutcome out{{}, {}, dev.backend().counters().since(before)};
  // The local rows only: the padding below them (lda > mp) is fresh
  // device memory, garbage on the emulated device.
  out.matrix.resize(static_cast<std::size_t>(f.a.mp()) * f.a.nq());
  out.u.resize(static_cast<std::size_t>(f.nn) * f.p.jb);
  device::copy_matrix(dev.compute(), f.a.mp(), f.a.nq(), f.a.data(), f.a.lda(), out.matrix.data(),
                      f.a.mp());
  device::copy(dev.compute(), out.u.data(), b.u.device(), f.nn * f.p.jb);
  dev.compute().synchronize();
  return out;
}

// Every form of the swap (binary exchange, the long swap in both orders,
// with and without equilibration, U either way round) leaves the same
// matrix and U with MPI on device memory as through the host, and moves no
// byte from the device to the host.
TEST(RowSwapOnDeviceMemory, LeavesTheSameMatrixAndUWithNoByteToTheHost) {
  if (!device::kEmulatedCompiled) GTEST_SKIP() << "the emulated backend is not compiled in";
  struct Case {
    const char* name;
    SwapAlgorithm algorithm;
    bool roll_first, equilibrate, u_transposed;
  };
  const Case cases[] = {
      {"binary exchange", SwapAlgorithm::BinaryExchange, true, false, true},
      {"binary exchange, U jb x nn", SwapAlgorithm::BinaryExchange, true, false, false},
      {"long, roll first", SwapAlgorithm::Long, true, false, true},
      {"long, netlib's order", SwapAlgorithm::Long, false, false, false},
      {"long, equilibrated", SwapAlgorithm::Long, true, true, true},
      {"long, equilibrated, U jb x nn", SwapAlgorithm::Long, false, true, false},
  };
  for (const Case& c : cases) {
    SwapForm form;
    form.algorithm = c.algorithm;
    form.roll_first = c.roll_first;
    form.equilibrate = c.equilibrate;
    form.u_transposed = c.u_transposed;
    const SwapOutcome host = swap_first_panel(form, false);
    const SwapOutcome on_device = swap_first_panel(form, true);
    EXPECT_EQ(on_device.matrix, host.matrix) << c.name;
    EXPECT_EQ(on_device.u, host.u) << c.name;
    EXPECT_EQ(on_device.counted.bytes_to_host, 0) << c.name;
    EXPECT_GT(host.counted.bytes_to_host, 0) << c.name;
    EXPECT_EQ(on_device.counted.host_waits, host.counted.host_waits) << c.name;
  }
}

}  // namespace
}  // namespace hplx::lu
