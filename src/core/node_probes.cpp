#include "core/node_probes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/host_name.hpp"
#include "core/median.hpp"

namespace hplx {
namespace {

constexpr int kDeviceChars = 96;  // a device state's characters kept (with its NUL)
constexpr int kNumbers = 7;

double figure(const NodeProbe& p, ProbeKind kind) {
  switch (kind) {
    case ProbeKind::Gemm:
      return p.gemm_gflops;
    case ProbeKind::Memory:
      return p.memory_gbs;
    case ProbeKind::Link:
      return p.link_gbs;
  }
  return 0;
}

// A rate in one decimal, or three digits where that says nothing (a link
// of 0.0123 GB/s).
std::string rate_text(double v) {
  return v >= 1 ? fmt::format("{:.1f}", v) : fmt::format("{:.3g}", v);
}

const char* unit_of(ProbeKind kind) {
  return kind == ProbeKind::Gemm ? "Gflop/s" : "GB/s";
}

// The strings of every rank, `chars` each, gathered on the root.
std::vector<char> gather_text(const char* mine, int chars, bool root, int size, MPI_Comm comm) {
  std::vector<char> all(root ? static_cast<std::size_t>(chars) * static_cast<std::size_t>(size)
                             : 0);
  HPLX_MPI_CHECK(MPI_Gather(mine, chars, MPI_CHAR, all.data(), chars, MPI_CHAR, 0, comm));
  return all;
}

}  // namespace

NodeProbe best_of(const NodeProbe& first, const NodeProbe& second) {
  NodeProbe b = first;
  b.gemm_gflops = std::max(first.gemm_gflops, second.gemm_gflops);
  b.memory_gbs = std::max(first.memory_gbs, second.memory_gbs);
  if (second.link_gbs > first.link_gbs) {  // the link's figures from one round
    b.link_gbs = second.link_gbs;
    b.link_latency_us = second.link_latency_us;
    b.link_peer = second.link_peer;
  }
  return b;
}

std::vector<RankProbe> gather_rank_probes(const NodeProbe& mine, const std::string& device,
                                          MPI_Comm comm) {
  int rank = 0, size = 1;
  HPLX_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  HPLX_MPI_CHECK(MPI_Comm_size(comm, &size));
  const bool root = rank == 0;
  const double numbers[kNumbers] = {mine.gemm_gflops,
                                    mine.memory_gbs,
                                    mine.link_gbs,
                                    mine.link_latency_us,
                                    static_cast<double>(mine.link_peer),
                                    mine.shares_cpus ? 1.0 : 0.0,
                                    mine.memory_of_host ? 1.0 : 0.0};
  std::vector<double> all_numbers(root ? kNumbers * static_cast<std::size_t>(size) : 0);
  HPLX_MPI_CHECK(
      MPI_Gather(numbers, kNumbers, MPI_DOUBLE, all_numbers.data(), kNumbers, MPI_DOUBLE, 0, comm));
  const std::array<char, kHostChars> host = my_host_name();
  std::array<char, kDeviceChars> state{};
  std::snprintf(state.data(), state.size(), "%s", device.c_str());
  const std::vector<char> hosts = gather_text(host.data(), kHostChars, root, size, comm);
  const std::vector<char> states = gather_text(state.data(), kDeviceChars, root, size, comm);
  std::vector<RankProbe> out;
  if (!root) return out;
  out.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    RankProbe& p = out[i];
    p.rank = r;
    p.host = std::string(hosts.data() + i * kHostChars);
    p.device = std::string(states.data() + i * kDeviceChars);
    const double* x = all_numbers.data() + kNumbers * i;
    p.probe = {x[0], x[1], x[2], x[3], static_cast<int>(x[4]), x[5] != 0, x[6] != 0};
  }
  return out;
}

int count_hosts(const std::vector<RankProbe>& ranks) {
  std::set<std::string> hosts;
  for (const RankProbe& r : ranks) hosts.insert(r.host);
  return static_cast<int>(hosts.size());
}

const char* name_of(ProbeKind kind) {
  switch (kind) {
    case ProbeKind::Gemm:
      return "DGEMM";
    case ProbeKind::Memory:
      return "memory bandwidth";
    case ProbeKind::Link:
      return "link";
  }
  return "?";
}

namespace {

// Whether `r` is one of the population `group` of its kind: links within a
// host and between hosts apart (group 0 and 1), one group for the others.
int group_of(const RankProbe& r, ProbeKind kind, const std::vector<RankProbe>& ranks) {
  if (kind != ProbeKind::Link) return 0;
  const int peer = r.probe.link_peer;
  const bool same_host = peer >= 0 && static_cast<std::size_t>(peer) < ranks.size() &&
                         ranks[static_cast<std::size_t>(peer)].host == r.host;
  return same_host ? 0 : 1;
}

}  // namespace

namespace {

// What one figure of a kind is held against: a rank's, or for the memory
// of ranks that share their host's, the host's (its ranks' sum).
struct Subject {
  const RankProbe* first;  // the rank named: the host's first for a host's figure
  double value = 0;
  int together = 1;
};

std::vector<Subject> subjects_of(const std::vector<RankProbe>& ranks, ProbeKind kind, int group) {
  const bool by_host = kind == ProbeKind::Memory &&
                       std::any_of(ranks.begin(), ranks.end(),
                                   [](const RankProbe& r) { return r.probe.memory_of_host; });
  std::vector<Subject> out;
  std::map<std::string, std::size_t> of_host;
  for (const RankProbe& r : ranks) {
    const double v = figure(r.probe, kind);
    if (r.probe.shares_cpus || v <= 0 || group_of(r, kind, ranks) != group) continue;
    if (!by_host) {
      out.push_back({&r, v, 1});
      continue;
    }
    const auto [it, fresh] = of_host.emplace(r.host, out.size());
    if (fresh) {
      out.push_back({&r, v, 1});
    } else {
      out[it->second].value += v;
      ++out[it->second].together;
    }
  }
  return out;
}

}  // namespace

std::vector<SlowProbe> find_slow_probes(const std::vector<RankProbe>& ranks, double threshold) {
  std::vector<SlowProbe> slow;
  for (ProbeKind kind : {ProbeKind::Gemm, ProbeKind::Memory, ProbeKind::Link})
    for (int group : {0, 1}) {
      const std::vector<Subject> subjects = subjects_of(ranks, kind, group);
      if (subjects.size() < 2) continue;
      std::vector<double> values;
      for (const Subject& x : subjects) values.push_back(x.value);
      std::sort(values.begin(), values.end());
      for (const Subject& x : subjects) {
        const double others = median_without(values, x.value);
        if (others <= 0) continue;
        const double below = 1 - x.value / others;
        if (below > threshold)
          slow.push_back({*x.first, kind, x.value, others, below,
                          x.first->probe.memory_of_host && kind == ProbeKind::Memory, x.together});
      }
    }
  // A slow link whose one end is slow at its own work (DGEMM, memory) is
  // that end's: the other end is not named for it.
  std::set<int> slow_at_work;
  for (const SlowProbe& x : slow)
    if (x.kind != ProbeKind::Link) slow_at_work.insert(x.rank.rank);
  std::erase_if(slow, [&](const SlowProbe& x) {
    return x.kind == ProbeKind::Link && !slow_at_work.count(x.rank.rank) &&
           slow_at_work.count(x.rank.probe.link_peer);
  });
  std::stable_sort(slow.begin(), slow.end(),
                   [](const SlowProbe& a, const SlowProbe& b) { return a.below > b.below; });
  return slow;
}

std::string slow_probe_sentence(const SlowProbe& s) {
  const std::string device = s.rank.device.empty() ? "" : " (" + s.rank.device + ")";
  std::string what = name_of(s.kind);
  if (s.kind == ProbeKind::Link) what += fmt::format(" to rank {}", s.rank.probe.link_peer);
  if (s.of_host)
    what += s.together > 1 ? fmt::format(" of the host's {} ranks", s.together)
                           : std::string(" of the host");
  return fmt::format("rank {} on {}{}: {} {} {}, {:.0f}% below the other {}' median {}",
                     s.rank.rank, s.rank.host, device, what, rate_text(s.value), unit_of(s.kind),
                     100 * s.below, s.of_host ? "hosts" : "ranks", rate_text(s.others_median));
}

nlohmann::json probes_json(const std::vector<RankProbe>& ranks, const std::vector<SlowProbe>& slow,
                           double threshold, double seconds) {
  nlohmann::json j;
  j["threshold"] = threshold;
  j["seconds"] = seconds;
  j["hosts"] = count_hosts(ranks);
  nlohmann::json& all = j["ranks"] = nlohmann::json::array();
  for (const RankProbe& r : ranks)
    all.push_back({{"rank", r.rank},
                   {"host", r.host},
                   {"device", r.device},
                   {"gemm_gflops", r.probe.gemm_gflops},
                   {"memory_gbs", r.probe.memory_gbs},
                   {"link_gbs", r.probe.link_gbs},
                   {"link_latency_us", r.probe.link_latency_us},
                   {"link_peer", r.probe.link_peer},
                   {"shares_cpus", r.probe.shares_cpus},
                   {"memory_of_host", r.probe.memory_of_host}});
  nlohmann::json& named = j["slow"] = nlohmann::json::array();
  for (const SlowProbe& s : slow)
    named.push_back({{"rank", s.rank.rank},
                     {"host", s.rank.host},
                     {"kind", name_of(s.kind)},
                     {"value", s.value},
                     {"others_median", s.others_median},
                     {"below", s.below},
                     {"of_host", s.of_host},
                     {"together", s.together}});
  return j;
}

}  // namespace hplx
