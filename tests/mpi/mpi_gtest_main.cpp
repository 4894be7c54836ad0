// GoogleTest main for MPI tests: every rank runs every test; only rank 0
// prints, and a failure on any rank fails the process (exit status is the max).
#include <gtest/gtest.h>
#include <mpi.h>

#include "core/blas_core.hpp"

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
  }
  int local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return global;
}
