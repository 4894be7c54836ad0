#include "core/threads.hpp"

#include "core/error.hpp"
#include "core/grid.hpp"

#include <cblas.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

namespace hplx {

namespace {

using Mask = std::vector<std::uint64_t>;

std::string plural(long n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// "cpu 3" or "cpus 0-3".
std::string cpus_phrase(const std::vector<int>& cpus) {
  return fmt::format("{} {}", cpus.size() == 1 ? "cpu" : "cpus", format_cpu_list(cpus));
}

std::vector<int> online_cpus() {
  const long n = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  std::vector<int> cpus(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i) cpus[i] = static_cast<int>(i);
  return cpus;
}

// A thread count from an environment variable, with its text for
// messages. OMP_NUM_THREADS may be a per-level list ("4,2"); the first level
// is what BLAS calls get. Text that is not a positive count is no choice
// (the OpenMP runtime ignores it too); a count too large for a long is kept
// as LONG_MAX, for the thread limit to refuse.
struct EnvThreads {
  long threads = 0;
  std::string given;  // "OMP_NUM_THREADS=100000"
};

std::optional<EnvThreads> env_threads(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(value, &end, 10);
  if (end == value || n <= 0) return std::nullopt;
  if (errno == ERANGE) n = LONG_MAX;
  while (*end == ' ' || *end == '\t') ++end;
  if (*end != '\0' && *end != ',') return std::nullopt;
  return EnvThreads{n, fmt::format("{}={}", name, value)};
}

// Every rank throws the refusal of the lowest rank that has one (the ranks
// of other nodes may see other limits), so none is left waiting in a
// collective.
void refuse_everywhere(MPI_Comm world, const std::string& refusal) {
  int rank = 0;
  HPLX_MPI_CHECK(MPI_Comm_rank(world, &rank));
  int mine = refusal.empty() ? INT_MAX : rank, first = INT_MAX;
  HPLX_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world));
  if (first == INT_MAX) return;
  std::string text = refusal;
  long length = static_cast<long>(text.size());
  HPLX_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG, first, world));
  text.resize(static_cast<std::size_t>(length));
  HPLX_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, first, world));
  throw UsageError(text);
}

Mask to_mask(const std::vector<int>& cpus, size_t words) {
  Mask m(words, 0);
  for (int c : cpus) m[static_cast<size_t>(c) / 64] |= std::uint64_t{1} << (c % 64);
  return m;
}

std::vector<int> from_mask(const std::uint64_t* m, size_t words) {
  std::vector<int> cpus;
  for (size_t w = 0; w < words; ++w) {
    for (int b = 0; b < 64; ++b) {
      if (m[w] >> b & 1) cpus.push_back(static_cast<int>(w * 64 + b));
    }
  }
  return cpus;
}

// "local rank 0: 0-1, 1: 2-3, ..." listing at most a few ranks, so the line
// stays short on a node with 128 ranks.
std::string list_sets(const std::vector<std::vector<int>>& sets) {
  constexpr size_t kShown = 4;
  std::string s;
  for (size_t r = 0; r < std::min(sets.size(), kShown); ++r) {
    s += r == 0 ? fmt::format("local rank 0: {}", format_cpu_list(sets[0]))
                : fmt::format(", {}: {}", r, format_cpu_list(sets[r]));
  }
  if (sets.size() > kShown) s += fmt::format(", ... {} more", sets.size() - kShown);
  return s;
}

// Parses a kernel CPU list ("0-3,8,10-11"); empty on anything malformed.
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  size_t i = 0;
  auto number = [&](int& out) {
    size_t start = i;
    long v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && v < (1 << 20))
      v = v * 10 + (text[i++] - '0');
    out = static_cast<int>(v);
    return i > start;
  };
  while (i < text.size() && text[i] != '\n') {
    int lo = 0, hi = 0;
    if (!number(lo)) return {};
    hi = lo;
    if (i < text.size() && text[i] == '-') {
      ++i;
      if (!number(hi) || hi < lo) return {};
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    if (i < text.size() && text[i] == ',') ++i;
  }
  return cpus;
}

// Open MPI's mpirun binds by default (to a core for 1-2 ranks) and says so
// with orte_bound_at_launch; an explicit --bind-to also sets the policy.
bool launcher_default_binding() {
  const char* bound = std::getenv("OMPI_MCA_orte_bound_at_launch");
  return bound != nullptr && std::string(bound) == "1" &&
         std::getenv("OMPI_MCA_hwloc_base_binding_policy") == nullptr;
}

}  // namespace

std::vector<int> usable_cpus() {
  std::vector<int> cpus = online_cpus();
  std::ifstream in("/sys/fs/cgroup/cpuset.cpus.effective");
  std::string line;
  if (in && std::getline(in, line)) {
    const std::vector<int> allowed = parse_cpu_list(line);
    std::vector<int> both;
    std::set_intersection(cpus.begin(), cpus.end(), allowed.begin(), allowed.end(),
                          std::back_inserter(both));
    if (!both.empty()) cpus = both;
  }
  return cpus;
}

std::vector<int> affinity_cpus() {
  // Grow the set until the kernel's mask fits (machines with > 1024 CPUs).
  for (int ncpu = CPU_SETSIZE; ncpu <= (1 << 20); ncpu *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpu);
    if (set == nullptr) break;
    const size_t size = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      std::vector<int> cpus;
      for (int c = 0; c < ncpu; ++c) {
        if (CPU_ISSET_S(c, size, set)) cpus.push_back(c);
      }
      CPU_FREE(set);
      if (!cpus.empty()) return cpus;
      break;
    }
    CPU_FREE(set);
    if (errno != EINVAL) break;
  }
  return online_cpus();
}

std::string format_cpu_list(std::vector<int> cpus) {
  if (cpus.empty()) return "none";
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return s;
}

namespace {

// How many nodes the job spans, and the most and fewest ranks on any node.
struct NodeCount {
  int nodes = 0;
  int max_local_ranks = 0;
  int min_local_ranks = 0;
};

// Counts the job's nodes (one leader each) and the extremes of their rank
// counts; collective over `world`.
NodeCount count_nodes(MPI_Comm world, MPI_Comm node, int local_ranks) {
  // How many nodes the job spans and how evenly, for the run log: each rank
  // sees only its own node, and a job meant for several hosts whose ranks
  // all landed on one (or spread unevenly) should say so on its first line.
  int node_rank = 0;
  HPLX_MPI_CHECK(MPI_Comm_rank(node, &node_rank));
  int leader = node_rank == 0 ? 1 : 0, nodes = 0;
  HPLX_MPI_CHECK(MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, world));
  int extremes[2] = {local_ranks, -local_ranks}, most[2] = {0, 0};
  HPLX_MPI_CHECK(MPI_Allreduce(extremes, most, 2, MPI_INT, MPI_MAX, world));
  return NodeCount{nodes, most[0], -most[1]};
}

// The affinity of this rank and of every rank of its node, their union and
// how the ranks' sets relate.
struct NodeAffinity {
  std::vector<int> mine;
  std::vector<std::vector<int>> sets;  // one per local rank
  std::vector<int> node_set;           // the union of `sets`
  bool identical = true;
  bool disjoint = true;
};

// All-gathers the affinity masks of the node's ranks; collective over `node`.
NodeAffinity gather_affinity(MPI_Comm node, int local_ranks) {
  NodeAffinity a;
  // Every rank of the node needs the whole picture to reach the same
  // decision, so the affinity masks are all-gathered (not just gathered).
  a.mine = affinity_cpus();
  int my_words = a.mine.back() / 64 + 1;
  int words = 0;
  HPLX_MPI_CHECK(MPI_Allreduce(&my_words, &words, 1, MPI_INT, MPI_MAX, node));
  const Mask my_mask = to_mask(a.mine, static_cast<size_t>(words));
  Mask all(static_cast<size_t>(words) * local_ranks);
  HPLX_MPI_CHECK(
      MPI_Allgather(my_mask.data(), words, MPI_UINT64_T, all.data(), words, MPI_UINT64_T, node));

  Mask union_mask(static_cast<size_t>(words), 0);
  for (int r = 0; r < local_ranks; ++r) {
    const std::uint64_t* m = all.data() + static_cast<size_t>(r) * words;
    a.sets.push_back(from_mask(m, static_cast<size_t>(words)));
    for (int w = 0; w < words; ++w) {
      if (m[w] != all[w]) a.identical = false;
      if (m[w] & union_mask[w]) a.disjoint = false;
      union_mask[w] |= m[w];
    }
  }
  a.node_set = from_mask(union_mask.data(), union_mask.size());
  return a;
}

// Where Open MPI's default binding confined the node's ranks to part of the
// usable CPUs, plans to widen them to all of those; returns the phrase that
// says so for the binding text (empty when nothing was undone).
std::string undo_default_binding(NodeAffinity& a, ThreadPlan& plan) {
  std::string undone;
  if (launcher_default_binding()) {
    const std::vector<int> usable = usable_cpus();
    if (a.node_set.size() < usable.size() &&
        std::includes(usable.begin(), usable.end(), a.node_set.begin(), a.node_set.end())) {
      undone = fmt::format("Open MPI's default binding to {} undone; ", cpus_phrase(a.node_set));
      plan.rebind = usable;
      a.node_set = usable;
      a.identical = true;
      for (auto& set : a.sets) set = usable;
    }
  }
  return undone;
}

// Describes the node's binding in `plan` and returns the automatic thread
// count it allows, from this rank's `own` CPUs.
int plan_binding(const NodeAffinity& a, const std::string& undone, int own, int local_ranks,
                 ThreadPlan& plan) {
  int automatic = 1;
  if (a.identical) {
    automatic = std::max(1, own / local_ranks);
    if (a.node_set == online_cpus() || !plan.rebind.empty()) {
      plan.binding = local_ranks > 1
                         ? fmt::format("none ({}ranks share {})", undone, cpus_phrase(a.node_set))
                         : fmt::format("none ({}{})", undone, cpus_phrase(a.node_set));
    } else {
      plan.binding = local_ranks > 1
                         ? fmt::format("shared (all ranks bound to {})", cpus_phrase(a.node_set))
                         : fmt::format("bound to {}", cpus_phrase(a.node_set));
    }
  } else if (a.disjoint) {
    automatic = own;
    plan.binding = fmt::format("each rank owns its cpus ({})", list_sets(a.sets));
  } else {
    automatic = std::max(1, std::min(own, plan.node_cpus / local_ranks));
    plan.binding = fmt::format("overlapping cpu sets ({})", list_sets(a.sets));
  }
  return automatic;
}

// The thread count in effect and the text of where it came from (empty for
// the automatic count).
struct ChosenThreads {
  long threads = 0;
  std::string given;
};

// --threads first, then OPENBLAS_NUM_THREADS, then OMP_NUM_THREADS, else
// the automatic count.
ChosenThreads choose_threads(int requested, int automatic) {
  long threads = automatic;
  std::string given;
  if (requested > 0) {
    threads = requested;
    given = fmt::format("--threads {}", requested);
  } else if (auto env = env_threads("OPENBLAS_NUM_THREADS"); env) {
    threads = env->threads;
    given = env->given;
  } else if (auto omp = env_threads("OMP_NUM_THREADS"); omp) {
    threads = omp->threads;
    given = omp->given;
  }
  return ChosenThreads{threads, given};
}

// This rank's refusal of the chosen count or one of `also` (empty when all
// are within the node's capacity).
std::string thread_refusal(const ChosenThreads& chosen, const ThreadCounts& also,
                           const ThreadCapacity& capacity) {
  std::string refusal;
  try {
    if (!chosen.given.empty()) check_thread_count(chosen.threads, chosen.given, capacity);
    for (const auto& [text, count] : also) check_thread_count(count, text, capacity);
  } catch (const UsageError& e) {
    refusal = e.what();
  }
  return refusal;
}

}  // namespace

ThreadPlan plan_threads(MPI_Comm world, int requested, const ThreadCounts& also) {
  if (requested < 0) {
    throw UsageError(fmt::format("thread count {} is negative; use 0 for automatic", requested));
  }

  MPI_Comm node_raw = MPI_COMM_NULL;
  HPLX_MPI_CHECK(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_raw));
  Communicator node(node_raw);
  const int local_ranks = node.size();
  const NodeCount count = count_nodes(world, node, local_ranks);
  NodeAffinity affinity = gather_affinity(node, local_ranks);

  ThreadPlan plan;
  const std::string undone = undo_default_binding(affinity, plan);
  plan.local_ranks = local_ranks;
  plan.nodes = count.nodes;
  plan.max_local_ranks = count.max_local_ranks;
  plan.min_local_ranks = count.min_local_ranks;
  plan.node_cpus = static_cast<int>(affinity.node_set.size());
  const int own = static_cast<int>(plan.rebind.empty() ? affinity.mine.size() : plan.rebind.size());
  const int automatic = plan_binding(affinity, undone, own, local_ranks, plan);

  // The count in effect and where it came from; what it overrides is never
  // started (apply_threads sets both runtimes' counts before any parallel
  // region), so only it is checked.
  plan.capacity = probe_thread_capacity(plan.node_cpus, local_ranks);
  const ChosenThreads chosen = choose_threads(requested, automatic);
  refuse_everywhere(world, thread_refusal(chosen, also, plan.capacity));
  plan.threads_per_rank = static_cast<int>(chosen.threads);
  plan.user_set = !chosen.given.empty();
  return plan;
}

void apply_threads(const ThreadPlan& plan) {
  if (!plan.rebind.empty()) {
    const int ncpu = plan.rebind.back() + 1;
    cpu_set_t* set = CPU_ALLOC(ncpu);
    if (set != nullptr) {
      const size_t size = CPU_ALLOC_SIZE(ncpu);
      CPU_ZERO_S(size, set);
      for (int c : plan.rebind) CPU_SET_S(c, size, set);
      sched_setaffinity(0, size, set);  // on failure the rank keeps its binding
      CPU_FREE(set);
    }
  }
  const int n = std::max(1, plan.threads_per_rank);
  set_thread_counts(n, n);
}

void set_thread_counts(int omp_threads, int blas_threads) {
  openblas_set_num_threads(std::max(1, blas_threads));
  omp_set_num_threads(std::max(1, omp_threads));
}

void set_blas_threads(int blas_threads) {
  openblas_set_num_threads(std::max(1, blas_threads));
}

int blas_threads() {
  return openblas_get_num_threads();
}

ScopedThreads::ScopedThreads(int omp_threads, int blas_threads)
    : omp_(omp_get_max_threads()), blas_(openblas_get_num_threads()) {
  set_thread_counts(omp_threads, blas_threads);
}

ScopedThreads::~ScopedThreads() {
  set_thread_counts(omp_, blas_);
}

std::string describe(const ThreadPlan& plan, int world_size) {
  const std::string per_node =
      plan.min_local_ranks == plan.max_local_ranks
          ? plural(plan.local_ranks, "rank")
          : fmt::format("{}-{} ranks", plan.min_local_ranks, plan.max_local_ranks);
  std::string line = fmt::format(
      "hplx: {} x {}{} on {} per node ({} per node, {}), binding: {}", plural(world_size, "rank"),
      plural(plan.threads_per_rank, "thread"), plan.user_set ? " (set by user)" : "",
      plural(plan.node_cpus, "cpu"), per_node, plural(plan.nodes, "node"), plan.binding);
  const long wanted = static_cast<long>(plan.local_ranks) * plan.threads_per_rank;
  if (wanted > plan.node_cpus) {
    line += fmt::format("; oversubscribed: {} on {}", plural(wanted, "thread"),
                        plural(plan.node_cpus, "cpu"));
  }
  return line;
}

}  // namespace hplx
