// GoogleTest main for MPI tests: every rank runs every test; rank 0 prints
// as usual, the other ranks print only their failures (prefixed with the
// rank), and a failure on any rank fails the process (exit status is the max).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "core/blas_core.hpp"

namespace {

// What a rank other than 0 says: each failed assertion and each failed
// test, so that a test failing on rank 3 only is named in the log.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}

  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "unknown file", r.line_number(), r.message());
  }

  void OnTestEnd(const ::testing::TestInfo& t) override {
    if (t.result()->Failed())
      std::fprintf(stderr, "[rank %d] [  FAILED  ] %s.%s\n", rank_, t.test_suite_name(), t.name());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  hplx::restart_with_better_blas_core(argv);  // as apps/hplx/main.cpp
  int provided = 0;  // as apps/hplx/main.cpp: the dag schedule needs SERIALIZED
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && local == 0 && global != 0)
    std::fprintf(stderr, "FAILED on another rank: see the lines that start with [rank N]\n");
  MPI_Finalize();
  return global;
}
