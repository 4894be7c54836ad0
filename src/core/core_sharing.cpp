#include "core/core_sharing.hpp"

#include <cblas.h>
#include <omp.h>
#include <sched.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/grid.hpp"
#include "core/threads.hpp"

namespace hplx {

CoreShare share_cores(const std::vector<int>& node_cpus, int local_p, int local_q, int local_row,
                      int local_col) {
  const int c = static_cast<int>(node_cpus.size());
  const int ranks = local_p * local_q;
  if (local_p < 1 || local_q < 1 || local_row < 0 || local_row >= local_p || local_col < 0 ||
      local_col >= local_q)
    throw Error(fmt::format("core sharing: place ({}, {}) outside the node grid {} x {}", local_row,
                            local_col, local_p, local_q));
  if (c < ranks) {
    throw UsageError(fmt::format(
        "--core-sharing on: this node runs {} ranks of the grid on {} cpus; allowed: at most one "
        "rank per cpu (each rank needs a root core)",
        ranks, c));
  }
  CoreShare s;
  s.local_p = local_p;
  s.local_q = local_q;
  s.local_row = local_row;
  s.local_col = local_col;
  s.root_cpu = node_cpus[local_row * local_q + local_col];
  const int part = (c - ranks) / local_p;  // cores left over by the division stay idle
  const auto first = node_cpus.begin() + ranks + local_row * part;
  s.pool.assign(first, first + part);
  s.cpus.push_back(s.root_cpu);
  s.cpus.insert(s.cpus.end(), s.pool.begin(), s.pool.end());
  std::sort(s.cpus.begin(), s.cpus.end());
  s.fact_threads = 1 + part;
  s.update_threads = 1 + part / local_q;
  return s;
}

namespace {

// Sorted distinct values.
std::vector<int> distinct(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

int index_of(const std::vector<int>& v, int x) {
  return static_cast<int>(std::find(v.begin(), v.end(), x) - v.begin());
}

void set_affinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  const int ncpu = *std::max_element(cpus.begin(), cpus.end()) + 1;
  cpu_set_t* set = CPU_ALLOC(ncpu);
  if (set == nullptr) throw SystemError("core sharing: cannot allocate a cpu set");
  const size_t size = CPU_ALLOC_SIZE(ncpu);
  CPU_ZERO_S(size, set);
  for (int c : cpus) CPU_SET_S(c, size, set);
  const int rc = sched_setaffinity(0, size, set);
  CPU_FREE(set);
  if (rc != 0)
    throw SystemError("core sharing: sched_setaffinity failed for cpus " + format_cpu_list(cpus));
}

// What the process had before the first apply_core_sharing().
struct Saved {
  std::vector<int> cpus;
  int omp_threads = 1, blas_threads = 1;
};
std::optional<Saved>& saved() {
  static std::optional<Saved> s;
  return s;
}

}  // namespace

CoreShare plan_core_sharing(MPI_Comm grid_comm, int myrow, int mycol) {
  MPI_Comm node_raw = MPI_COMM_NULL;
  HPLX_MPI_CHECK(MPI_Comm_split_type(grid_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_raw));
  Communicator node(node_raw);
  int ranks = 1;
  MPI_Comm_size(node.get(), &ranks);
  int mine[2] = {myrow, mycol};
  std::vector<int> all(2 * ranks);
  HPLX_MPI_CHECK(MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, node.get()));
  std::vector<int> rows, cols;
  for (int i = 0; i < ranks; ++i) {
    rows.push_back(all[2 * i]);
    cols.push_back(all[2 * i + 1]);
  }
  rows = distinct(rows);
  cols = distinct(cols);
  const int local_p = static_cast<int>(rows.size()), local_q = static_cast<int>(cols.size());
  if (local_p * local_q != ranks) {
    throw UsageError(fmt::format(
        "--core-sharing on: the {} ranks on this node hold {} process rows and {} columns of the "
        "grid, not a full block; allowed: place ranks so each node holds a p x q block (e.g. "
        "PMAP column-major with P a multiple of the ranks per node)",
        ranks, local_p, local_q));
  }
  return share_cores(usable_cpus(), local_p, local_q, index_of(rows, myrow), index_of(cols, mycol));
}

void apply_core_sharing(const CoreShare& share) {
  if (!saved()) saved() = Saved{affinity_cpus(), omp_get_max_threads(), blas_threads()};
  set_affinity(share.cpus);
  set_thread_counts(share.update_threads, share.update_threads);
}

void restore_binding() {
  if (!saved()) return;
  set_affinity(saved()->cpus);
  set_thread_counts(saved()->omp_threads, saved()->blas_threads);
  saved().reset();
}

std::string describe(const CoreShare& s, int node_cpus) {
  auto threads = [](int n) { return fmt::format("{} thread{}", n, n == 1 ? "" : "s"); };
  return fmt::format(
      "core sharing: node grid {} x {} on {} cpus; this rank (node row {}, column {}): root cpu "
      "{}, pool {} -> bound to cpus {}, FACT {}, update {}",
      s.local_p, s.local_q, node_cpus, s.local_row, s.local_col, s.root_cpu,
      format_cpu_list(s.pool), format_cpu_list(s.cpus), threads(s.fact_threads),
      threads(s.update_threads));
}

}  // namespace hplx
