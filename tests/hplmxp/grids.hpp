// The grids the HPL-MxP tests run on: every one of 1x1, 1x2, 2x1, 1x3,
// 2x2, 4x1 that fits the ranks (ranks beyond P*Q sit out).
#pragma once

#include <mpi.h>

#include <utility>
#include <vector>

inline std::vector<std::pair<int, int>> hplmxp_test_grids() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::pair<int, int>> grids;
  for (auto g : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {2, 1}, {1, 3}, {2, 2}, {4, 1}})
    if (g.first * g.second <= size) grids.push_back(g);
  return grids;
}
