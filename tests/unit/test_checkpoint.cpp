// The checkpoint's files and manifest (lu/checkpoint/): what --resume
// relies on to refuse a damaged or foreign checkpoint and to read back
// exactly what was written.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.hpp"
#include "lu/checkpoint/checkpoint_files.hpp"
#include "lu/checkpoint/checkpointer.hpp"
#include "lu/checkpoint/manifest.hpp"
#include "lu/checkpoint/resume.hpp"

namespace hplx::lu {
namespace {

class CheckpointFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hplx-checkpoint-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }
  std::filesystem::path dir_;
};

// A 5 x 3 block inside a matrix of leading dimension 7.
std::vector<double> strided() {
  std::vector<double> m(7 * 3, -1.0);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 5; ++i) m[i + 7 * j] = 10.0 * j + i + 0.25;
  return m;
}

TEST_F(CheckpointFiles, ColumnsReadBackAsWrittenAndTheFileChecksOut) {
  const std::vector<double> m = strided();
  const FileDigest d = write_columns(dir(), "a.bin", m.data(), 5 * 8, 3, 7 * 8);
  EXPECT_EQ(d.bytes, 5 * 3 * 8);
  EXPECT_EQ(check_file(dir(), d), "");
  std::vector<double> back(5 * 3, 0.0);  // another leading dimension
  read_columns(dir(), d, back.data(), 5 * 8, 3, 5 * 8);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 5; ++i) EXPECT_EQ(back[i + 5 * j], m[i + 7 * j]);
}

TEST_F(CheckpointFiles, AFlippedByteOrAShortFileIsNamed) {
  const std::vector<double> m = strided();
  const FileDigest d = write_columns(dir(), "a.bin", m.data(), 5 * 8, 3, 7 * 8);
  {
    std::fstream f(dir() + "/a.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(17);
    f.put('\x7f');
  }
  EXPECT_NE(check_file(dir(), d).find("does not match the manifest's"), std::string::npos);
  std::filesystem::resize_file(dir() + "/a.bin", 100);
  EXPECT_NE(check_file(dir(), d).find("it has 100 bytes, the manifest says 120"),
            std::string::npos);
  std::filesystem::remove(dir() + "/a.bin");
  EXPECT_NE(check_file(dir(), d).find("cannot open it"), std::string::npos);
}

TEST_F(CheckpointFiles, ManifestRoundTripsAndIsReplacedWhole) {
  Manifest m;
  m.build = "0x0123456789abcdef";
  m.version = "1.2.3";
  m.ranks = 2;
  m.backend = "host";
  m.test_index = 1;
  m.test = {{"n", 4000}, {"nb", 64}};
  m.column = 768;
  m.info = 0;
  m.seconds = 12.5;
  m.checkpoint_seconds = 0.5;
  m.segments = {{0, 768, 12.5}};
  m.files = {{{"rank-0/2-trailing-768.bin", 800, 0xfeedULL}}, {}};
  write_manifest(dir(), m);
  const std::vector<std::string> found = manifests_in(dir());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(std::filesystem::path(found[0]).filename(), "checkpoint-0002-000000000768.json");
  EXPECT_FALSE(std::filesystem::exists(found[0] + ".tmp"));
  std::ifstream in(found[0]);
  const Manifest back = manifest_from_json(nlohmann::json::parse(in));
  EXPECT_EQ(to_json(back), to_json(m));
  EXPECT_EQ(back.files[0][0].xxh3, 0xfeedULL);
}

TEST_F(CheckpointFiles, ManifestsAreListedNewestFirst) {
  Manifest m;
  m.ranks = 1;
  m.files = {{}};
  for (const auto& [test, column] : {std::pair{0L, 640L}, {0L, 1280L}, {1L, 128L}}) {
    m.test_index = test, m.column = column;
    write_manifest(dir(), m);
  }
  const std::vector<std::string> found = manifests_in(dir());
  ASSERT_EQ(found.size(), 3u);
  EXPECT_NE(found[0].find("checkpoint-0002-000000000128"), std::string::npos);
  EXPECT_NE(found[1].find("checkpoint-0001-000000001280"), std::string::npos);
}

TEST(CheckpointManifest, WhatIsNotAManifestIsRefused) {
  Manifest m;
  m.ranks = 2;
  m.files = {{}, {}};
  nlohmann::json j = to_json(m);
  EXPECT_NO_THROW(manifest_from_json(j));
  nlohmann::json other = j;
  other["hplx_checkpoint"] = 99;
  EXPECT_ANY_THROW(manifest_from_json(other));
  other = j;
  other.erase("column");
  EXPECT_ANY_THROW(manifest_from_json(other));
  other = j;
  other["ranks"] = 3;  // files of 2 ranks
  EXPECT_ANY_THROW(manifest_from_json(other));
}

TEST(CheckpointManifest, FirstDifferenceNamesTheKeyAndBothValues) {
  const nlohmann::json theirs = {{"n", 4000}, {"schedule", {{"split", 0.5}, {"kind", "bsp"}}}};
  nlohmann::json ours = theirs;
  EXPECT_EQ(first_difference(theirs, ours), "");
  ours["schedule"]["split"] = 0.25;
  EXPECT_EQ(first_difference(theirs, ours), "schedule.split 0.5 against 0.25");
  ours = theirs;
  ours["n"] = 4096;
  EXPECT_EQ(first_difference(theirs, ours), "n 4000 against 4096");
}

TEST(CheckpointState, PackedStateUnpacksAsItWasAndAShortOneIsRefused) {
  LoopState s;
  s.column = 1280;
  s.info = 0;
  s.times.update = 3.5;
  s.times.fact = 0.75;
  for (int k = 0; k < 20; ++k) {
    IterationTimes it;
    it.k = k;
    it.j = 64 * k;
    it.update = 0.01 * k;
    s.iterations.push_back(it);
  }
  const LoopState back = unpack(pack(s), "state");
  EXPECT_EQ(back.column, 1280);
  EXPECT_EQ(back.times.update, 3.5);
  EXPECT_EQ(back.times.fact, 0.75);
  ASSERT_EQ(back.iterations.size(), 20u);
  EXPECT_EQ(back.iterations[19].j, 64 * 19);
  EXPECT_EQ(back.iterations[7].update, 0.07);
  std::vector<double> cut = pack(s);
  cut.resize(cut.size() / 2);
  EXPECT_THROW(unpack(cut, "state"), UsageError);
}

}  // namespace
}  // namespace hplx::lu
