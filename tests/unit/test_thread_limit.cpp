// The thread limit (core/thread_limit.hpp): which counts a node can run,
// and the one-line refusal naming the value, its source and what is allowed.
#include "core/thread_limit.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "core/error.hpp"

namespace {

using hplx::check_thread_count;
using hplx::thread_ceiling;
using hplx::ThreadCapacity;

ThreadCapacity node(int cpus, int ranks) {
  ThreadCapacity c;
  c.node_cpus = cpus;
  c.local_ranks = ranks;
  return c;
}

std::string refusal(long threads, const std::string& given, const ThreadCapacity& c) {
  try {
    check_thread_count(threads, given, c);
  } catch (const hplx::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ThreadCeiling, EightPerCpuAtLeast64PerNode) {
  EXPECT_EQ(thread_ceiling(node(2, 1)).threads, 64);
  EXPECT_EQ(thread_ceiling(node(16, 1)).threads, 128);
  EXPECT_EQ(thread_ceiling(node(128, 1)).threads, 1024);
  // The node's ranks share it.
  EXPECT_EQ(thread_ceiling(node(16, 4)).threads, 32);
  EXPECT_EQ(thread_ceiling(node(2, 8)).threads, 8);
  // One thread per rank is always allowed, however many ranks.
  EXPECT_EQ(thread_ceiling(node(2, 1000)).threads, 1);
}

TEST(ThreadCeiling, TheSmallestLimitWinsAndIsNamed) {
  ThreadCapacity c = node(64, 2);  // ceiling 256 per rank
  c.omp_thread_limit = 48;
  EXPECT_EQ(thread_ceiling(c).threads, 48);
  EXPECT_NE(thread_ceiling(c).why.find("OMP_THREAD_LIMIT"), std::string::npos);

  c.task_limit = 60;  // shared by the 2 ranks: 30 each
  c.task_limit_what = "the process limit RLIMIT_NPROC (ulimit -u)";
  EXPECT_EQ(thread_ceiling(c).threads, 30);
  EXPECT_NE(thread_ceiling(c).why.find("RLIMIT_NPROC (ulimit -u) of 60 tasks, 2 ranks"),
            std::string::npos)
      << thread_ceiling(c).why;

  // 8 MiB stacks in a 160 MiB address space: 20 per process.
  c.stack_bytes = 8LL << 20;
  c.stack_memory = 160LL << 20;
  c.stack_memory_per_rank = true;
  c.stack_memory_what = "the address-space limit RLIMIT_AS (ulimit -v)";
  EXPECT_EQ(thread_ceiling(c).threads, 20);
  EXPECT_NE(thread_ceiling(c).why.find("stacks of 8.0 MiB each within the address-space limit"),
            std::string::npos)
      << thread_ceiling(c).why;
  // Committed memory is the node's: shared by its ranks.
  c.stack_memory_per_rank = false;
  EXPECT_EQ(thread_ceiling(c).threads, 10);
}

TEST(CheckThreadCount, OversubscriptionBelowTheCeilingIsAllowed) {
  EXPECT_NO_THROW(check_thread_count(1, "--threads 1", node(2, 1)));
  EXPECT_NO_THROW(check_thread_count(8, "--threads 8", node(2, 1)));
  EXPECT_NO_THROW(check_thread_count(64, "--threads 64", node(2, 1)));
}

TEST(CheckThreadCount, BeyondItOneLineNamingValueSourceAndLimit) {
  const std::string msg = refusal(100000, "--threads 100000", node(2, 1));
  EXPECT_EQ(msg,
            "--threads 100000: more threads than this node can run; allowed: 1 to 64 threads per "
            "rank (8 per cpu, at least 64 per node: 2 cpus, 1 rank on this node)");
  const std::string env = refusal(65, "OMP_NUM_THREADS=65", node(2, 1));
  EXPECT_EQ(env.rfind("OMP_NUM_THREADS=65: ", 0), 0u) << env;
  EXPECT_EQ(env.find('\n'), std::string::npos);
  // The ranks of the node multiply the threads: 4 ranks x 17 > 64.
  const std::string ranks = refusal(17, "--threads 17", node(2, 4));
  EXPECT_NE(ranks.find("allowed: 1 to 16 threads per rank"), std::string::npos) << ranks;
  EXPECT_NE(ranks.find("4 ranks on this node"), std::string::npos) << ranks;
  EXPECT_EQ(refusal(LONG_MAX, "OPENBLAS_NUM_THREADS=99999999999999999999", node(2, 1))
                .rfind("OPENBLAS_NUM_THREADS=99999999999999999999: ", 0),
            0u);
}

TEST(ParseOmpStacksize, UnitsAsTheOpenMpSpecReadsThem) {
  EXPECT_EQ(hplx::parse_omp_stacksize("100"), 100LL << 10);  // no unit: KiB
  EXPECT_EQ(hplx::parse_omp_stacksize("512K"), 512LL << 10);
  EXPECT_EQ(hplx::parse_omp_stacksize(" 4 m "), 4LL << 20);
  EXPECT_EQ(hplx::parse_omp_stacksize("1G"), 1LL << 30);
  EXPECT_EQ(hplx::parse_omp_stacksize("4096B"), 4096);
  EXPECT_EQ(hplx::parse_omp_stacksize(""), 0);
  EXPECT_EQ(hplx::parse_omp_stacksize("lots"), 0);
  EXPECT_EQ(hplx::parse_omp_stacksize("4T"), 0);
  EXPECT_EQ(hplx::parse_omp_stacksize("99999999999999999999G"), 0);
}

TEST(ProbeThreadCapacity, ThisProcessCanRunItsOwnCpus) {
  const ThreadCapacity c = hplx::probe_thread_capacity(2, 1);
  EXPECT_EQ(c.node_cpus, 2);
  EXPECT_GT(c.stack_bytes, 0);
  EXPECT_GE(thread_ceiling(c).threads, 2);
}

}  // namespace
