// The RAPL package counters (core/energy.hpp) on fake powercap trees: the
// sum over packages, a counter that wraps, and the reasons a machine gives
// none.
#include "core/energy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;

class FakePowercap : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hplx-powercap-" + std::to_string(getpid()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void zone(const std::string& dir, const std::string& name, unsigned long long energy,
            unsigned long long max_range = 262143328850ULL) {
    fs::create_directories(root_ / dir);
    std::ofstream(root_ / dir / "name") << name << "\n";
    std::ofstream(root_ / dir / "max_energy_range_uj") << max_range << "\n";
    set(dir, energy);
  }
  void set(const std::string& dir, unsigned long long energy) {
    std::ofstream(root_ / dir / "energy_uj") << energy << "\n";
  }
  fs::path root_;
};

TEST(Energy, CounterDeltaHandlesOneWrap) {
  EXPECT_EQ(hplx::counter_delta(100, 250, 1000), 150u);
  EXPECT_EQ(hplx::counter_delta(900, 50, 1000), 150u);
}

TEST_F(FakePowercap, SumsThePackagesAndSkipsOtherZones) {
  zone("intel-rapl:0", "package-0", 1'000'000);
  zone("intel-rapl:1", "package-1", 5'000'000);
  zone("intel-rapl:2", "psys", 0);  // the platform: would count the packages twice
  zone("intel-rapl:0:0", "core", 0);
  const hplx::PackageEnergy e(root_.string());
  ASSERT_TRUE(e.available()) << e.why_not();
  EXPECT_EQ(e.describe(), "RAPL package-0 (intel-rapl:0), RAPL package-1 (intel-rapl:1)");
  const auto before = e.read();
  set("intel-rapl:0", 3'500'000);
  set("intel-rapl:1", 6'000'000);
  const auto after = e.read();
  ASSERT_TRUE(before && after);
  EXPECT_DOUBLE_EQ(e.joules_between(*before, *after), 3.5);
}

TEST_F(FakePowercap, AWrappedCounterStillCounts) {
  zone("intel-rapl:0", "package-0", 999'000'000, 1'000'000'000);
  const hplx::PackageEnergy e(root_.string());
  const auto before = e.read();
  set("intel-rapl:0", 1'000'000);
  const auto after = e.read();
  ASSERT_TRUE(before && after);
  EXPECT_DOUBLE_EQ(e.joules_between(*before, *after), 2.0);
}

TEST_F(FakePowercap, NoPackageZoneSaysSo) {
  const hplx::PackageEnergy e(root_.string());
  EXPECT_FALSE(e.available());
  EXPECT_NE(e.why_not().find("has no intel-rapl package zone"), std::string::npos) << e.why_not();
}

TEST_F(FakePowercap, AnUnreadableCounterIsNamed) {
  zone("intel-rapl:0", "package-0", 1);
  fs::remove(root_ / "intel-rapl:0" / "energy_uj");
  const hplx::PackageEnergy e(root_.string());
  EXPECT_FALSE(e.available());
  EXPECT_NE(e.why_not().find("intel-rapl:0/energy_uj: No such file"), std::string::npos)
      << e.why_not();
}

TEST(Energy, NoPowercapDirectorySaysWhy) {
  const hplx::PackageEnergy e("/no/such/powercap");
  EXPECT_FALSE(e.available());
  EXPECT_NE(e.why_not().find("/no/such/powercap does not exist"), std::string::npos);
}

// This machine's own tree, looked at here independently: top-level
// intel-rapl:N zones named package*, each of whose counters reads as a
// number, mean the counters are available and read; none, or one that
// does not read, means a reason is given.
bool machine_has_readable_package_zones(const fs::path& root) {
  std::error_code ec;
  int packages = 0;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string dir = entry.path().filename().string();
    if (dir.rfind("intel-rapl:", 0) != 0 || dir.find(':', 11) != std::string::npos) continue;
    std::string name;
    std::ifstream(entry.path() / "name") >> name;
    if (name.rfind("package", 0) != 0) continue;
    unsigned long long energy = 0, range = 0;
    if (!(std::ifstream(entry.path() / "energy_uj") >> energy) ||
        !(std::ifstream(entry.path() / "max_energy_range_uj") >> range))
      return false;
    ++packages;
  }
  return packages > 0;
}

TEST(Energy, ThisMachineAgreesWithItsPowercapTree) {
  const hplx::PackageEnergy e;
  const bool expected = machine_has_readable_package_zones("/sys/class/powercap");
  EXPECT_EQ(e.available(), expected) << e.why_not();
  if (expected)
    EXPECT_TRUE(e.read().has_value());
  else
    EXPECT_FALSE(e.why_not().empty());
}

}  // namespace
