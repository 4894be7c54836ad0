// system_info probes and the JSON run record built on them.
#include "core/error.hpp"
#include "core/json_record.hpp"
#include "core/system_info.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace {

TEST(SystemInfo, FieldsArePresentAndSane) {
  const hplx::SystemInfo info = hplx::probe_system();
  for (const std::string* s :
       {&info.hostname, &info.cpu_model, &info.os, &info.compiler, &info.mpi_library, &info.blas}) {
    EXPECT_FALSE(s->empty());
  }
  EXPECT_GE(info.logical_cpus, 1);
  EXPECT_GE(info.cpus_allowed, 1);
  EXPECT_LE(info.cpus_allowed, info.logical_cpus);
  EXPECT_GT(info.mem_total_bytes, 0);
  EXPECT_GT(info.mem_available_bytes, 0);
  EXPECT_LE(info.mem_available_bytes, info.mem_total_bytes);
  EXPECT_NE(info.blas.find("OpenBLAS"), std::string::npos) << info.blas;
  EXPECT_EQ(info.mpi_library.find('\n'), std::string::npos) << info.mpi_library;
}

TEST(SystemInfo, AvailableMemoryIsPositiveAndBounded) {
  const long long avail = hplx::available_memory_bytes();
  EXPECT_GT(avail, 0);
  EXPECT_LE(avail, hplx::probe_system().mem_total_bytes);
}

TEST(SystemInfo, JsonHasEveryField) {
  const hplx::SystemInfo info = hplx::probe_system();
  const nlohmann::json j = hplx::to_json(info);
  for (const char* key :
       {"hostname", "cpu_model", "logical_cpus", "cpus_allowed", "mem_total_bytes",
        "mem_available_bytes", "os", "compiler", "mpi_library", "blas", "blas_kernels"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["hostname"], info.hostname);
  EXPECT_EQ(j["mem_total_bytes"].get<long long>(), info.mem_total_bytes);
}

TEST(JsonRecord, HeaderIsVersionedAndTimestamped) {
  const nlohmann::json h = hplx::make_record_header("lu", {"hplx", "lu", "--json", "x.json"});
  EXPECT_EQ(h["schema"], "hplx.run");
  EXPECT_EQ(h["schema_version"], 2);
  EXPECT_EQ(h["hplx_version"], HPLX_VERSION);
  EXPECT_EQ(h["command"], "lu");
  ASSERT_EQ(h["argv"].size(), 4u);
  EXPECT_EQ(h["argv"][3], "x.json");
  const std::string at = h["started_at"];
  EXPECT_TRUE(std::regex_match(at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << at;
  EXPECT_TRUE(h["machine"].contains("hostname"));
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("hplx_json_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(TempDir, WriteAtomicallyRoundTripsAndLeavesNoTemporary) {
  const std::string path = (dir_ / "run.json").string();
  nlohmann::json rec = hplx::make_record_header("lu", {"hplx"});
  rec["gflops"] = 12.5;
  hplx::write_json_atomically(path, rec);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in), rec);

  // Overwriting replaces the whole file.
  hplx::write_json_atomically(path, nlohmann::json{{"a", 1}});
  std::ifstream again(path);
  EXPECT_EQ(nlohmann::json::parse(again), (nlohmann::json{{"a", 1}}));
}

TEST_F(TempDir, WriteSurvivesInvalidUtf8) {
  const std::string path = (dir_ / "bad.json").string();
  hplx::write_json_atomically(path, nlohmann::json{{"argv", {std::string("\xff\xfe")}}});
  std::ifstream in(path);
  nlohmann::json back;
  EXPECT_NO_THROW(back = nlohmann::json::parse(in));
  EXPECT_TRUE(back["argv"][0].is_string());
}

TEST_F(TempDir, FailureNamesThePathAndLeavesNothing) {
  const std::string path = (dir_ / "missing" / "run.json").string();
  try {
    hplx::write_json_atomically(path, nlohmann::json{{"a", 1}});
    FAIL() << "expected SystemError";
  } catch (const hplx::SystemError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST_F(TempDir, RenameFailureRemovesTemporary) {
  // A directory in the way makes the rename fail after the write succeeded.
  const std::string path = (dir_ / "occupied").string();
  std::filesystem::create_directories(dir_ / "occupied" / "child");
  EXPECT_THROW(hplx::write_json_atomically(path, nlohmann::json{{"a", 1}}), hplx::SystemError);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_TRUE(std::filesystem::is_directory(path));
}

}  // namespace
