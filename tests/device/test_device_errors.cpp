// Device errors name the operation they happened in (device_errors.hpp),
// and a destructor says an error it cannot throw.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "device/device_errors.hpp"

namespace hplx::device {
namespace {

TEST(DeviceErrors, NameTheInnermostOperationOfTheThread) {
  EXPECT_EQ(current_device_operation(), "");
  EXPECT_EQ(device_error_message("CUDA", "cudaMemcpyAsync", "invalid argument (1)", false),
            "CUDA: cudaMemcpyAsync failed: invalid argument (1)");
  {
    DeviceOperation outer("RS+UPDATE of the panel at column 2048 (LU iteration 2)");
    {
      DeviceOperation inner("the look-ahead update");
      EXPECT_EQ(device_error_message("cuBLAS", "cublasDgemm", "x", false),
                "cuBLAS: cublasDgemm failed: x (in the look-ahead update)");
    }
    EXPECT_EQ(device_error_message("CUDA", "kernel hplx::lu::kernels::GatherRows", "y", false),
              "CUDA: kernel hplx::lu::kernels::GatherRows failed: y (in RS+UPDATE of the panel at "
              "column 2048 (LU iteration 2))");
  }
  EXPECT_EQ(current_device_operation(), "");
}

// A fault of earlier work (an illegal address seen by a later call) points
// at HPLX_DEVICE_SYNC=1, which checks each call where it is made.
TEST(DeviceErrors, AFaultOfEarlierWorkSaysHowToFindIt) {
  ASSERT_FALSE(device_sync_mode());  // ctest runs it without the variable
  const std::string m =
      device_error_message("CUDA", "cudaStreamSynchronize", "an illegal memory access", true);
  EXPECT_NE(m.find("HPLX_DEVICE_SYNC=1"), std::string::npos) << m;
}

TEST(DeviceErrors, DestructorsSayTheErrorTheyCannotThrow) {
  testing::internal::CaptureStderr();
  log_dropped_error("CUDA", "cudaFree", "an illegal memory access was encountered");
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said,
            "hplx: CUDA: cudaFree failed in a destructor (its error cannot be thrown there): an "
            "illegal memory access was encountered\n");
}

}  // namespace
}  // namespace hplx::device
