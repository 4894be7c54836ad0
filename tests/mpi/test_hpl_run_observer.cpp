// run_hpl's TestObserver (how `hplx lu --predict` reaches the tests without
// the LU depending on the model): called once before and once after every
// test the ranks take part in, in netlib's order, with the measured Gflops,
// and what it adds to a test's JSON object is in the written record.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lu/config.hpp"
#include "lu/run/hpl_run.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx::lu {
namespace {

class Recorder : public TestObserver {
 public:
  void before(const TestCase& t) override { calls.push_back("before " + std::to_string(t.n)); }
  void after(const TestCase& t, const TestResult& r, nlohmann::json& record) override {
    calls.push_back("after " + std::to_string(t.n));
    gflops.push_back(r.gflops);
    record["observed"] = t.n;
  }
  std::vector<std::string> calls;
  std::vector<double> gflops;
};

TEST(HplRunObserver, CalledAroundEveryTestAndAddsToTheRecord) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  HplDat dat;
  dat.source = "<test>";
  dat.device_out = 7;  // stderr: the test's stdout stays clean
  dat.ns = {60, 90};
  dat.nbs = {16};
  dat.grids = {{1, size}};
  RunOptions options;
  options.quiet = true;
  const std::string path = "hpl_run_observer_" + std::to_string(size) + ".json";
  options.json_path = path;
  Recorder rec;
  options.observer = &rec;
  EXPECT_EQ(run_hpl(test::test_context(), dat, options), 0);
  EXPECT_EQ(rec.calls,
            (std::vector<std::string>{"before 60", "after 60", "before 90", "after 90"}));
  for (double g : rec.gflops) EXPECT_GT(g, 0.0);
  if (rank == 0) {
    std::ifstream in(path);
    const nlohmann::json record = nlohmann::json::parse(in);
    ASSERT_EQ(record["tests"].size(), 2u);
    EXPECT_EQ(record["tests"][0]["observed"], 60);
    EXPECT_EQ(record["tests"][1]["observed"], 90);
    EXPECT_EQ(record["backend"], "host");
    EXPECT_EQ(record["tests"][0]["schedule"]["dag_group_columns"], 512);
    EXPECT_EQ(record["tests"][0]["schedule"]["dag_early_swap"], true);
    std::remove(path.c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace hplx::lu
