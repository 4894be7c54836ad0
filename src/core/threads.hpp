// How many BLAS/OpenMP threads each MPI rank runs.
//
// HPL is a DGEMM benchmark: the threads of all ranks on a node together must
// not ask for more cores than the node gives them, or the ranks fight over
// cores and every panel broadcast waits on a descheduled thread. The plan
// looks at the ranks that share this node (MPI_COMM_TYPE_SHARED) and at
// each one's CPU affinity:
//   - all ranks allowed the same CPUs (mpiexec --bind-to none, or all bound
//     to one set): they share them, threads = max(1, cpus / local ranks);
//   - every rank owns a disjoint set (--bind-to core/socket with
//     --map-by ...:PE=n): threads = the size of its own set;
//   - sets that overlap only in part: the share of the union, but no more
//     than the rank's own set.
// One exception to taking the affinity as given: Open MPI binds each rank to
// one core by default when it starts 1 or 2 ranks. With fewer ranks than
// cores that leaves cores idle (1 rank x 2 threads on one core runs at half
// speed, a classic trap), so when the binding is Open MPI's default (not
// asked for with --bind-to) and the node's ranks are bound to fewer CPUs than
// the process may use, the plan undoes it: the ranks share all usable CPUs.
// OPENBLAS_NUM_THREADS (first) or OMP_NUM_THREADS in the environment is the
// user's choice and wins over the automatic plan; an explicit request (for
// example a --threads option) wins over both. The count chosen, and any
// other thread count the command takes, must be within what the node can
// run (core/thread_limit.hpp), or the plan is a usage error.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "core/thread_limit.hpp"

namespace hplx {

struct ThreadPlan {
  int local_ranks = 1;       // ranks on this node (shared-memory communicator)
  int nodes = 1;             // nodes of the job: what MPI_COMM_TYPE_SHARED tells apart
  int min_local_ranks = 1;   // the fewest and most ranks any node of the job runs,
  int max_local_ranks = 1;   // so one line can say "2 ranks per node" or "1-3"
  int node_cpus = 1;         // CPUs the node's ranks may use (union of their affinity)
  int threads_per_rank = 1;  // what apply_threads() sets
  std::string binding;       // how the node's ranks are bound, e.g. "none (ranks share cpus 0-1)"
  bool user_set = false;     // from `requested` or the environment, not the automatic plan
  std::vector<int> rebind;   // non-empty: apply_threads() widens this rank's affinity to these CPUs
  ThreadCapacity capacity;   // what bounds this node's threads (core/thread_limit.hpp)
};

// Further thread counts a command takes, as the user gave them and their
// value: {{"--fact-threads 8", 8}}.
using ThreadCounts = std::vector<std::pair<std::string, long>>;

// Collective over `world`: every rank must call. `requested` > 0 forces that
// many threads (--threads); 0 means the environment or the automatic plan.
// Throws UsageError for a negative request, and on every rank when the
// count in effect or one of `also` is beyond check_thread_count's limit on
// any rank's node, before any thread starts.
ThreadPlan plan_threads(MPI_Comm world, int requested, const ThreadCounts& also = {});

// Sets the OpenMP and OpenBLAS thread counts of this process to the plan
// (and its CPU affinity, when the plan undoes a default binding). Call it
// before the first BLAS call, so the thread pool starts with the new affinity.
void apply_threads(const ThreadPlan& plan);

// The thread counts of this process, set here and nowhere else: OpenBLAS's
// first (its OpenMP build also sets OpenMP's count when asked to set its
// own), then OpenMP's. set_blas_threads() leaves OpenMP's count to that
// side effect, as a bare openblas_set_num_threads() call does.
void set_thread_counts(int omp_threads, int blas_threads);
void set_blas_threads(int blas_threads);
int blas_threads();

// Sets this process's OpenMP and BLAS thread counts for a scope and
// restores both after it: the only other place besides apply_threads()
// that changes them. OpenBLAS's OpenMP build also changes OpenMP's count
// when its own is set, hence both are saved. Used where a schedule runs
// single-threaded BLAS calls on its own threads (the dag's tasks) and by
// calibration's timings.
class ScopedThreads {
 public:
  ScopedThreads(int omp_threads, int blas_threads);
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int omp_, blas_;
};

// One line for the run log, e.g. "hplx: 4 ranks x 1 thread on 2 cpus per
// node (2 ranks per node, 2 nodes), binding: none (ranks share cpus 0-1)".
std::string describe(const ThreadPlan& plan, int world_size);

// The CPUs this process may run on (sched_getaffinity), ascending; all
// online CPUs if the affinity cannot be read.
std::vector<int> affinity_cpus();

// The CPUs this process could be given: the online CPUs, limited to the
// cgroup's cpuset where one is readable.
std::vector<int> usable_cpus();

// "0-3,8,10-11" for {0,1,2,3,8,10,11}; "none" for an empty list.
std::string format_cpu_list(std::vector<int> cpus);

}  // namespace hplx
