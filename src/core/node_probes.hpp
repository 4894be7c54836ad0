// The slow node named before a run (hplx lu --preflight): what every rank
// measured of its node in a short, fixed time, gathered on the root, and
// the ranks more than a threshold below the other ranks' median of a kind
// (DGEMM, memory bandwidth, link bandwidth). One slow node sets a whole
// bulk-synchronous run's pace; found before the matrix is allocated, it
// can be taken out of the job before the hours are spent.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace hplx {

// What one rank measured; 0 where not measured (no link: a single rank in
// both its process row and column).
struct NodeProbe {
  double gemm_gflops = 0;      // DGEMM at the run's update shape
  double memory_gbs = 0;       // memory bandwidth: bytes read and written per second / 1e9
  double link_gbs = 0;         // its slowest link's rate for a panel-sized message
  double link_latency_us = 0;  // its slowest link's one-way latency (recorded, not judged)
  int link_peer = -1;          // the rank at the other end of that link
  // Its host's ranks together run more threads than the host has CPUs:
  // they took turns on them while measuring, so their figures say more of
  // the turns than of the node, and are recorded but not judged.
  bool shares_cpus = false;
  // Its memory is its host's, shared with the host's other ranks (the host
  // backend): their shares of the bandwidth depend on timing and on which
  // cores they run (a core that takes the interrupts copies slower), so
  // the host's memory figure is their sum, held against other hosts'.
  bool memory_of_host = false;
};

// Each figure the better of two rounds' (the higher rate; the link's
// latency and peer from the round of its better rate). Noise on a node (a
// neighbour's job, an interrupt, a turn on shared memory) only slows a
// round, and seldom the same rank in both; a slow node is slow in every
// round. The flags are the first round's.
NodeProbe best_of(const NodeProbe& first, const NodeProbe& second);

struct RankProbe {
  int rank = 0;
  std::string host;
  std::string device;  // the device's state where the backend can tell (clocks, temperature)
  NodeProbe probe;
};

// Every rank's figures, host and device state, in rank order, on rank 0 of
// `comm`; empty on the others. Collective: three gathers of a few numbers
// and two short strings a rank.
std::vector<RankProbe> gather_rank_probes(const NodeProbe& mine, const std::string& device,
                                          MPI_Comm comm);

// The hosts among `ranks` (how many nodes the job has).
int count_hosts(const std::vector<RankProbe>& ranks);

enum class ProbeKind { Gemm, Memory, Link };
const char* name_of(ProbeKind kind);  // "DGEMM", "memory bandwidth", "link"

struct SlowProbe {
  RankProbe rank;
  ProbeKind kind = ProbeKind::Gemm;
  double value = 0;          // its figure (Gflop/s or GB/s)
  double others_median = 0;  // the other ranks' median of that kind
  double below = 0;          // 1 - value / others_median
  bool of_host = false;      // the figure is its host's (memory_of_host), held against hosts
  int together = 1;          // the ranks whose figure it is (a host's)
};

// The ranks whose figure of a kind is more than `threshold` (0.10: 10%)
// below the median of the other ranks' of that kind (with two ranks, the
// other's), the farthest below first. Links within a host (shared memory)
// and between hosts (the network) are held against their own kind. A
// link's figure is the same at both of its ends, so a slow link names
// both, unless one end is named for its DGEMM or memory: then that end. Memory that is a host's
// (memory_of_host) is judged by host, the host's first rank named. Ranks that share their host's
// CPUs are left out. None with fewer than two ranks (or hosts) measured.
std::vector<SlowProbe> find_slow_probes(const std::vector<RankProbe>& ranks, double threshold);

// "rank R on HOST (DEVICE): DGEMM 312.0 Gflop/s, 42% below the other
// ranks' median 540.0" (a link's names its peer; a host's memory says so).
std::string slow_probe_sentence(const SlowProbe& s);

// {"threshold", "seconds", "hosts", "ranks": [{"rank", "host", "device",
// "gemm_gflops", "memory_gbs", "link_gbs", "link_latency_us", "link_peer",
// "shares_cpus", "memory_of_host"}],
// "slow": [{"rank", "host", "kind", "value", "others_median", "below", "of_host",
// "together"}]}
nlohmann::json probes_json(const std::vector<RankProbe>& ranks, const std::vector<SlowProbe>& slow,
                           double threshold, double seconds);

}  // namespace hplx
