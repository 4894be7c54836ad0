// --cuda-aware-mpi (device/device_mpi.hpp): what each mode gives on each
// backend, and the refusals, with this machine's MPI library (Debian's
// Open MPI says it is not CUDA-aware: MPIX_Query_cuda_support() = 0).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "device/device_mpi.hpp"

namespace hplx::device {
namespace {

TEST(DeviceMpi, OffIsOffEverywhere) {
  for (const BackendKind b : {BackendKind::Host, BackendKind::Emulated, BackendKind::Cuda})
    EXPECT_FALSE(choose_device_mpi(b, "off").on) << name_of(b);
}

TEST(DeviceMpi, AutoIsOnOnlyOnCudaWithAnAwareLibrary) {
  EXPECT_FALSE(choose_device_mpi(BackendKind::Host, "auto").on);
  EXPECT_FALSE(choose_device_mpi(BackendKind::Emulated, "auto").on);
  const DeviceMpi cuda = choose_device_mpi(BackendKind::Cuda, "auto");
  EXPECT_EQ(cuda.on, mpi_says_cuda_aware() == 1);
  EXPECT_NE(cuda.why.find("MPIX_Query_cuda_support"), std::string::npos) << cuda.why;
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
