// The harness every benchmark run of hplx keeps around its tests
// (core/run_harness.hpp), on every rank count the job has: who sits a test
// out, the record on disk while running and once complete, the root's
// status on every rank, and the context the tests run in.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/grid.hpp"
#include "core/run_harness.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx {
namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

RunHarness::Options quiet_options(const std::string& json_path = "") {
  RunHarness::Options o;
  o.command = "hplx test";
  o.say = "hplx test";
  o.json_path = json_path;
  o.watchdog_s = 0.0;  // off: the tests time nothing
  o.quiet = true;
  o.planned = 2;
  return o;
}

// A path every rank agrees on: rank 0's pid in the temporary folder.
std::string shared_record_path() {
  long pid = world_rank() == 0 ? static_cast<long>(getpid()) : 0;
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return "/tmp/hplx-test-run-harness-" + std::to_string(pid) + ".json";
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(RunHarness, OnlyTheGridsRanksRunATest) {
  RunHarness h(test::test_context(), quiet_options());
  const ProcessGrid one(MPI_COMM_WORLD, 1, 1, GridOrder::RowMajor);
  EXPECT_EQ(h.begin_test(one, "N=8 P=1 Q=1"), world_rank() == 0);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const ProcessGrid all(MPI_COMM_WORLD, 1, size, GridOrder::RowMajor);
  EXPECT_TRUE(h.begin_test(all, "N=8 P=1 Q=all"));
  EXPECT_EQ(h.close(nullptr, 2, 0), 0);
}

TEST(RunHarness, EveryRankReturnsTheRootsStatus) {
  {
    RunHarness h(test::test_context(), quiet_options());
    EXPECT_EQ(h.close(nullptr, 0, world_rank() == 0 ? 1 : 0), 1);
  }
  {
    RunHarness h(test::test_context(), quiet_options());
    EXPECT_EQ(h.close(nullptr, 0, world_rank() == 0 ? 0 : 1), 0);
  }
}

TEST(RunHarness, TheRecordIsOnDiskRunningThenComplete) {
  const std::string path = shared_record_path();
  RunHarness h(test::test_context(), quiet_options(path));
  nlohmann::json record = {{"tests", {{{"n", 8}}}}};
  h.keep(record, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    const nlohmann::json kept = read_json(path);
    EXPECT_EQ(kept["status"], "running");
    EXPECT_EQ(kept["progress"]["done"], 1);
    EXPECT_EQ(kept["progress"]["planned"], 2);
  }
  record["tests"].push_back({{"n", 16}});
  EXPECT_EQ(h.close(world_rank() == 0 ? &record : nullptr, 2, 0), 0);
  if (world_rank() == 0) {
    const nlohmann::json done = read_json(path);
    EXPECT_EQ(done["status"], "complete");
    EXPECT_EQ(done["progress"]["done"], 2);
    EXPECT_EQ(done["tests"].size(), 2u);
    std::remove(path.c_str());
  }
}

TEST(RunHarness, TheTestsContextCarriesTheTraceTheActivityAndTheLog) {
  {
    RunHarness h(test::test_context(), quiet_options());
    EXPECT_EQ(h.context().trace(), &h.trace());
    EXPECT_NE(h.context().activity(), nullptr);
    EXPECT_EQ(h.context().log(), nullptr);  // --quiet: no progress lines anywhere
    EXPECT_EQ(h.context().world(), MPI_COMM_WORLD);
    h.close(nullptr, 0, 0);
  }
  RunHarness::Options loud = quiet_options();
  loud.quiet = false;
  RunHarness h(test::test_context(), loud);
  EXPECT_EQ(h.context().log(), world_rank() == 0 ? stderr : nullptr);
  h.close(nullptr, 0, 0);
}

}  // namespace
}  // namespace hplx
