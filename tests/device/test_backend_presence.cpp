// Which backends the contract tests run on here: every one compiled in and
// usable. A GPU backend compiled in on a machine without a GPU is reported
// as skipped with the reason (not failed), and asking for it is a one-line
// usage error.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "device/backend.hpp"
#include "tests/device/backends.hpp"

namespace hplx::device {
namespace {

TEST(BackendPresence, EveryCompiledUsableBackendGetsTheContractTests) {
  const std::vector<BackendKind> tested = test::contract_backends();
  EXPECT_NE(std::find(tested.begin(), tested.end(), BackendKind::Host), tested.end());
  for (BackendKind k : all_backend_kinds()) {
    if (k == BackendKind::Sim) continue;
    const bool in = std::find(tested.begin(), tested.end(), k) != tested.end();
    EXPECT_EQ(in, compiled_in(k) && usable(k)) << name_of(k);
  }
}

TEST(BackendPresence, CudaRunsTheContractTestsOrSaysWhyNot) {
  if (!compiled_in(BackendKind::Cuda))
    GTEST_SKIP() << "the CUDA backend is not compiled in (" << cmake_switch(BackendKind::Cuda)
                 << ")";
  std::string why;
  if (!usable(BackendKind::Cuda, &why))
    GTEST_SKIP() << "the CUDA backend is compiled in, but there is no GPU here: " << why;
  EXPECT_EQ(default_backend(), BackendKind::Cuda);
}

TEST(BackendPresence, CudaWithoutADeviceIsAOneLineUsageError) {
  if (!compiled_in(BackendKind::Cuda) || usable(BackendKind::Cuda))
    GTEST_SKIP() << "needs the CUDA backend compiled in and no GPU";
  try {
    make_backend(BackendKind::Cuda);
    FAIL() << "make_backend(cuda) succeeded without a GPU";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--backend cuda: no CUDA device is present"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_EQ(default_backend(), BackendKind::Host);
}

}  // namespace
}  // namespace hplx::device
