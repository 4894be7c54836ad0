// Thread planning per MPI rank. ctest runs this under 1..4 ranks with
// --oversubscribe --bind-to none and sets OMP_NUM_THREADS=1 and
// OPENBLAS_NUM_THREADS=1, so each test sets the environment it needs.
#include "core/error.hpp"
#include "core/threads.hpp"

#include <cblas.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <cstdlib>

namespace {

void clear_thread_env() {
  unsetenv("OMP_NUM_THREADS");
  unsetenv("OPENBLAS_NUM_THREADS");
}

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// The same value on every rank of MPI_COMM_WORLD.
bool same_everywhere(int value) {
  int lo = 0, hi = 0;
  MPI_Allreduce(&value, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

TEST(CpuList, FormatsRanges) {
  EXPECT_EQ(hplx::format_cpu_list({}), "none");
  EXPECT_EQ(hplx::format_cpu_list({3}), "3");
  EXPECT_EQ(hplx::format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(hplx::format_cpu_list({5, 4, 4, 0}), "0,4-5");
  EXPECT_FALSE(hplx::affinity_cpus().empty());
}

TEST(PlanThreads, AutomaticNeverOversubscribes) {
  clear_thread_env();
  const hplx::ThreadPlan plan = hplx::plan_threads(MPI_COMM_WORLD, 0);
  EXPECT_FALSE(plan.user_set);
  EXPECT_GE(plan.threads_per_rank, 1);
  EXPECT_GE(plan.local_ranks, 1);
  EXPECT_LE(plan.local_ranks, world_size());
  EXPECT_GE(plan.node_cpus, 1);
  EXPECT_LE(plan.threads_per_rank * plan.local_ranks, std::max(plan.node_cpus, plan.local_ranks));
  EXPECT_TRUE(same_everywhere(plan.threads_per_rank));
  EXPECT_TRUE(same_everywhere(plan.node_cpus));
  EXPECT_FALSE(plan.binding.empty());
}

TEST(PlanThreads, CountsNodesAndRanksPerNode) {
  clear_thread_env();
  const hplx::ThreadPlan plan = hplx::plan_threads(MPI_COMM_WORLD, 0);
  EXPECT_TRUE(same_everywhere(plan.nodes));
  EXPECT_TRUE(same_everywhere(plan.min_local_ranks));
  EXPECT_TRUE(same_everywhere(plan.max_local_ranks));
  EXPECT_LE(plan.min_local_ranks, plan.local_ranks);
  EXPECT_GE(plan.max_local_ranks, plan.local_ranks);
  // Every rank is on exactly one node.
  EXPECT_LE(plan.nodes * plan.min_local_ranks, world_size());
  EXPECT_GE(plan.nodes * plan.max_local_ranks, world_size());
}

TEST(PlanThreads, UnboundRanksShareTheirCpus) {
  clear_thread_env();
  const hplx::ThreadPlan plan = hplx::plan_threads(MPI_COMM_WORLD, 0);
  // --bind-to none: every rank may run on every cpu of the process.
  const int cpus = static_cast<int>(hplx::affinity_cpus().size());
  EXPECT_EQ(plan.node_cpus, cpus);
  EXPECT_EQ(plan.threads_per_rank, std::max(1, cpus / plan.local_ranks));
  if (plan.local_ranks > 1) {
    EXPECT_NE(plan.binding.find("share cpus"), std::string::npos) << plan.binding;
  }
}

TEST(PlanThreads, RequestOverridesEverything) {
  setenv("OMP_NUM_THREADS", "2", 1);
  setenv("OPENBLAS_NUM_THREADS", "2", 1);
  const hplx::ThreadPlan plan = hplx::plan_threads(MPI_COMM_WORLD, 3);
  EXPECT_EQ(plan.threads_per_rank, 3);
  EXPECT_TRUE(plan.user_set);
  clear_thread_env();
  EXPECT_THROW(hplx::plan_threads(MPI_COMM_WORLD, -1), hplx::UsageError);
}

TEST(PlanThreads, EnvironmentIsTheUsersChoice) {
  clear_thread_env();
  setenv("OMP_NUM_THREADS", "5", 1);
  hplx::ThreadPlan plan = hplx::plan_threads(MPI_COMM_WORLD, 0);
  EXPECT_EQ(plan.threads_per_rank, 5);
  EXPECT_TRUE(plan.user_set);

  // OMP_NUM_THREADS may list nested levels; the first counts.
  setenv("OMP_NUM_THREADS", "2,1", 1);
  EXPECT_EQ(hplx::plan_threads(MPI_COMM_WORLD, 0).threads_per_rank, 2);

  // OpenBLAS reads its own variable first, and so does the plan.
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  plan = hplx::plan_threads(MPI_COMM_WORLD, 0);
  EXPECT_EQ(plan.threads_per_rank, 1);
  EXPECT_TRUE(plan.user_set);

  // Garbage is not a choice: back to the automatic plan.
  clear_thread_env();
  setenv("OMP_NUM_THREADS", "lots", 1);
  plan = hplx::plan_threads(MPI_COMM_WORLD, 0);
  EXPECT_FALSE(plan.user_set);
  clear_thread_env();
}

TEST(ApplyThreads, SetsOpenMpAndOpenBlas) {
  clear_thread_env();
  for (int requested : {0, 3, 1, 2}) {
    const hplx::ThreadPlan plan = hplx::plan_threads(MPI_COMM_WORLD, requested);
    hplx::apply_threads(plan);
    EXPECT_EQ(openblas_get_num_threads(), plan.threads_per_rank) << requested;
    EXPECT_EQ(omp_get_max_threads(), plan.threads_per_rank) << requested;
  }
}

TEST(Describe, OneLineNamingRanksThreadsAndBinding) {
  clear_thread_env();
  const int n = world_size();
  const hplx::ThreadPlan plan = hplx::plan_threads(MPI_COMM_WORLD, 0);
  const std::string line = hplx::describe(plan, n);
  const std::string head = n == 1 ? "hplx: 1 rank x " : "hplx: " + std::to_string(n) + " ranks x ";
  EXPECT_EQ(line.rfind(head, 0), 0u) << line;
  EXPECT_NE(line.find("binding: " + plan.binding), std::string::npos) << line;
  EXPECT_NE(line.find(std::to_string(plan.node_cpus) + " cpu"), std::string::npos) << line;
  EXPECT_NE(line.find(std::to_string(plan.nodes) + (plan.nodes == 1 ? " node)" : " nodes)")),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);

  hplx::ThreadPlan crowded = plan;
  crowded.threads_per_rank = plan.node_cpus + 1;
  crowded.user_set = true;
  const std::string warn = hplx::describe(crowded, n);
  EXPECT_NE(warn.find("(set by user)"), std::string::npos) << warn;
  EXPECT_NE(warn.find("oversubscribed"), std::string::npos) << warn;

  // Nodes running different numbers of ranks: the range, not rank 0's count.
  hplx::ThreadPlan uneven = plan;
  uneven.nodes = 2;
  uneven.min_local_ranks = 1;
  uneven.max_local_ranks = 3;
  const std::string spread = hplx::describe(uneven, 4);
  EXPECT_NE(spread.find("(1-3 ranks per node, 2 nodes)"), std::string::npos) << spread;
}

}  // namespace
