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

// cuda and hip: compiled in or not, with a GPU or not.
class GpuBackendPresence : public ::testing::TestWithParam<BackendKind> {};

TEST_P(GpuBackendPresence, RunsTheContractTestsOrSaysWhyNot) {
  const BackendKind k = GetParam();
  if (!compiled_in(k))
    GTEST_SKIP() << name_of(k) << " is not compiled in (" << cmake_switch(k) << ")";
  std::string why;
  if (!usable(k, &why))
    GTEST_SKIP() << name_of(k) << " is compiled in, but there is no GPU here: " << why;
  EXPECT_EQ(default_backend(), k);
}

TEST_P(GpuBackendPresence, WithoutADeviceIsAOneLineUsageError) {
  const BackendKind k = GetParam();
  if (!compiled_in(k) || usable(k))
    GTEST_SKIP() << "needs " << name_of(k) << " compiled in and no GPU";
  const std::string expected = k == BackendKind::Cuda ? "--backend cuda: no CUDA device is present"
                                                      : "--backend hip: no AMD GPU is present";
  try {
    make_backend(k);
    FAIL() << "make_backend(" << name_of(k) << ") succeeded without a GPU";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(expected), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_EQ(default_backend(), BackendKind::Host);
}

TEST_P(GpuBackendPresence, NotCompiledInNamesTheSwitchInOneLine) {
  const BackendKind k = GetParam();
  if (compiled_in(k)) GTEST_SKIP() << name_of(k) << " is compiled in";
  try {
    parse_backend(name_of(k));
    FAIL() << "parse_backend(" << name_of(k) << ") accepted a backend this build lacks";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::string("--backend ") + name_of(k) +
                        ": not compiled in; rebuild with " + cmake_switch(k)),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(CudaAndHip, GpuBackendPresence,
                         ::testing::Values(BackendKind::Cuda, BackendKind::Hip),
                         [](const auto& info) { return std::string(name_of(info.param)); });

}  // namespace
}  // namespace hplx::device
