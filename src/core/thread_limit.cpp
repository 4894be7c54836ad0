#include "core/thread_limit.hpp"

#include <omp.h>
#include <pthread.h>
#include <sys/resource.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <fstream>

#include "core/error.hpp"
#include "core/system_info.hpp"

namespace hplx {

namespace {

std::string bytes_phrase(long long b) {
  if (b >= (1LL << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(b) / (1LL << 30));
  return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1LL << 20));
}

std::string ranks_phrase(int ranks) {
  return fmt::format("{} rank{} on this node", ranks, ranks == 1 ? "" : "s");
}

long read_long(const char* path) {
  std::ifstream in(path);
  long v = 0;
  return in >> v ? v : 0;
}

}  // namespace

ThreadCeiling thread_ceiling(const ThreadCapacity& c) {
  const long ranks = std::max(1, c.local_ranks);
  const long cpus = std::max(1, c.node_cpus);
  const long node = std::max(kMinThreadsPerNode, kThreadsPerCpu * cpus);
  ThreadCeiling best{std::max(1L, node / ranks),
                     fmt::format("{} per cpu, at least {} per node: {} cpu{}, {}", kThreadsPerCpu,
                                 kMinThreadsPerNode, cpus, cpus == 1 ? "" : "s",
                                 ranks_phrase(static_cast<int>(ranks)))};
  auto consider = [&](long threads, std::string why) {
    threads = std::max(1L, threads);
    if (threads < best.threads) best = {threads, std::move(why)};
  };
  if (c.omp_thread_limit > 0)
    consider(c.omp_thread_limit,
             fmt::format("the OpenMP runtime's thread limit (OMP_THREAD_LIMIT) of {}",
                         c.omp_thread_limit));
  if (c.task_limit > 0)
    consider(c.task_limit / ranks,
             fmt::format("{} of {} tasks, {}", c.task_limit_what, c.task_limit,
                         ranks_phrase(static_cast<int>(ranks))));
  if (c.stack_bytes > 0 && c.stack_memory > 0)
    consider(
        static_cast<long>(std::min<long long>(
            LONG_MAX, c.stack_memory / c.stack_bytes / (c.stack_memory_per_rank ? 1 : ranks))),
        fmt::format("stacks of {} each within {} of {}{}", bytes_phrase(c.stack_bytes),
                    c.stack_memory_what, bytes_phrase(c.stack_memory),
                    c.stack_memory_per_rank ? "" : ", " + ranks_phrase(static_cast<int>(ranks))));
  return best;
}

void check_thread_count(long threads, const std::string& given, const ThreadCapacity& c) {
  const ThreadCeiling ceiling = thread_ceiling(c);
  if (threads <= ceiling.threads) return;
  throw UsageError(fmt::format(
      "{}: more threads than this node can run; allowed: 1 to {} thread{} per rank ({})", given,
      ceiling.threads, ceiling.threads == 1 ? "" : "s", ceiling.why));
}

long long parse_omp_stacksize(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const std::size_t start = i;
  long long v = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (v > (LLONG_MAX >> 31)) return 0;  // beyond any machine's memory
    v = v * 10 + (text[i++] - '0');
  }
  if (i == start || v == 0) return 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  int shift = 10;  // no unit: KiB
  if (i < text.size()) {
    switch (std::tolower(static_cast<unsigned char>(text[i++]))) {
      case 'b':
        shift = 0;
        break;
      case 'k':
        shift = 10;
        break;
      case 'm':
        shift = 20;
        break;
      case 'g':
        shift = 30;
        break;
      default:
        return 0;
    }
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) return 0;
  return v << shift;
}

ThreadCapacity probe_thread_capacity(int node_cpus, int local_ranks) {
  ThreadCapacity c;
  c.node_cpus = std::max(1, node_cpus);
  c.local_ranks = std::max(1, local_ranks);
  const int omp_limit = omp_get_thread_limit();
  c.omp_thread_limit = omp_limit > 0 && omp_limit < INT_MAX ? omp_limit : 0;

  rlimit nproc{};
  if (getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY &&
      nproc.rlim_cur < static_cast<rlim_t>(LONG_MAX)) {
    c.task_limit = static_cast<long>(nproc.rlim_cur);
    c.task_limit_what = "the process limit RLIMIT_NPROC (ulimit -u)";
  }
  if (const long kernel = read_long("/proc/sys/kernel/threads-max");
      kernel > 0 && (c.task_limit <= 0 || kernel < c.task_limit)) {
    c.task_limit = kernel;
    c.task_limit_what = "the kernel's limit kernel.threads-max";
  }

  // libgomp gives its threads OMP_STACKSIZE (or GOMP_STACKSIZE), else the
  // default pthread stack (from RLIMIT_STACK at start).
  for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE"}) {
    if (const char* v = std::getenv(name); v != nullptr && c.stack_bytes == 0)
      c.stack_bytes = parse_omp_stacksize(v);
  }
  if (c.stack_bytes == 0) {
    pthread_attr_t attr;
    std::size_t size = 0;
    if (pthread_getattr_default_np(&attr) == 0) {
      pthread_attr_getstacksize(&attr, &size);
      pthread_attr_destroy(&attr);
    }
    c.stack_bytes = static_cast<long long>(size);
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
      as.rlim_cur < static_cast<rlim_t>(LLONG_MAX)) {
    c.stack_memory = static_cast<long long>(as.rlim_cur);
    c.stack_memory_what = "the address-space limit RLIMIT_AS (ulimit -v)";
    c.stack_memory_per_rank = true;
  } else if (read_long("/proc/sys/vm/overcommit_memory") == 2) {
    c.stack_memory = available_memory_bytes();
    c.stack_memory_what = "the available memory (vm.overcommit_memory = 2 commits stacks)";
    c.stack_memory_per_rank = false;
  }
  return c;
}

}  // namespace hplx
