// How many threads a rank may ask for, checked before any thread starts.
//
// A thread count far beyond what the machine can start does not fail
// cleanly: the OpenMP runtime or OpenBLAS dies mid-start (hplx lu --threads
// 100000 was a segmentation fault). So every thread count a command takes
// (--threads, --fact-threads, calibrate's --max-threads, and
// OPENBLAS_NUM_THREADS or OMP_NUM_THREADS when the plan takes its count
// from them) is compared, per rank, with the smallest of:
//   - the ceiling: kThreadsPerCpu threads per CPU of the node, at least
//     kMinThreadsPerNode, shared by the node's ranks. Oversubscription below
//     it stays allowed (the run prints it); beyond it no HPL or HPG-MxP
//     configuration gains anything, and a count that large is a typo;
//   - the OpenMP runtime's thread limit (omp_get_thread_limit,
//     OMP_THREAD_LIMIT);
//   - the tasks the node may start: RLIMIT_NPROC (ulimit -u) and the
//     kernel's threads-max, shared by the node's ranks;
//   - memory for the threads' stacks (OMP_STACKSIZE, else the default
//     pthread stack) within RLIMIT_AS (ulimit -v), or within the available
//     memory when the kernel commits memory strictly
//     (vm.overcommit_memory = 2); otherwise a stack is address space only.
// Beyond it: a UsageError (exit 2), one line naming the value, where it came
// from and what is allowed.
#pragma once

#include <string>

namespace hplx {

inline constexpr long kThreadsPerCpu = 8;
inline constexpr long kMinThreadsPerNode = 64;

// What bounds the threads of one node's ranks. A limit <= 0 is no limit.
struct ThreadCapacity {
  int node_cpus = 1;                   // CPUs the node's ranks may use
  int local_ranks = 1;                 // ranks sharing them
  long omp_thread_limit = 0;           // omp_get_thread_limit()
  long task_limit = 0;                 // min(RLIMIT_NPROC soft, kernel.threads-max)
  std::string task_limit_what;         // which of the two, for the message
  long long stack_bytes = 0;           // one thread's stack
  long long stack_memory = 0;          // what the stacks may take: of one rank, or of the node
  bool stack_memory_per_rank = false;  // RLIMIT_AS bounds each process alone
  std::string stack_memory_what;       // which limit, for the message
};

// The most threads per rank `c` allows (>= 1) and, in words, which limit
// sets it, e.g. "8 per cpu, at least 64 per node: 2 cpus, 1 rank on this
// node".
struct ThreadCeiling {
  long threads = 1;
  std::string why;
};
ThreadCeiling thread_ceiling(const ThreadCapacity& c);

// Throws UsageError "GIVEN: more threads than ...; allowed: 1 to N threads
// per rank (WHY)" when `threads` exceeds thread_ceiling(c). `given` is the
// value as the user wrote it: "--threads 100000", "OMP_NUM_THREADS=100000".
void check_thread_count(long threads, const std::string& given, const ThreadCapacity& c);

// This process's limits (OpenMP, rlimits, /proc/sys, OMP_STACKSIZE), for a
// node of `node_cpus` CPUs shared by `local_ranks` ranks.
ThreadCapacity probe_thread_capacity(int node_cpus, int local_ranks);

// OMP_STACKSIZE's value in bytes ("512K", "4 M", "1g", "100" = KiB, as the
// OpenMP spec reads it); 0 when malformed.
long long parse_omp_stacksize(const std::string& text);

}  // namespace hplx
