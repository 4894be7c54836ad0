#include "lu/run/node_preflight.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "core/grid.hpp"
#include "core/host_name.hpp"
#include "core/link_probe.hpp"
#include "core/median.hpp"
#include "core/node_probes.hpp"
#include "core/timer.hpp"
#include "device/node_probes.hpp"

namespace hplx::lu {
namespace {

constexpr double kProbeSeconds = 0.3;   // DGEMM
constexpr double kMemorySeconds = 0.6;  // memory: copies of ranks that share it vary more
// DGEMM's m and n at most: a second's work of one host core or a
// fraction of a GPU's memory.
constexpr long kHostGemmSide = 2048;
constexpr long kDeviceGemmSide = 16384;
constexpr std::size_t kHostCopyBytes = std::size_t{64} << 20;  // beyond the caches
constexpr std::size_t kDeviceCopyBytes = std::size_t{512} << 20;
constexpr std::size_t kMaxPanelBytes = std::size_t{16} << 20;
constexpr int kShown = 8;  // slow ranks named in lines; the rest in the record
// The preflight takes at most 10 s: a second round (at most twice the
// first's time) where the first took at most this long.
constexpr double kSecondRoundBefore = 3.0;

struct Shape {
  long rows = 0, cols = 0;  // a rank's local matrix
  int nb = 1;
  GridShape grid;
  long gemm_m = 0, gemm_n = 0;  // the probe's DGEMM: rows and cols, bounded (x nb)
};

Shape run_shape(const PreflightProblem& problem, device::Device& dev) {
  Shape s;
  const long n = problem.n;
  s.nb = problem.nb;
  s.grid = problem.grid;
  s.rows = (n + s.grid.p - 1) / s.grid.p;
  s.cols = (n + s.grid.q - 1) / s.grid.q;
  const bool host = dev.compute().executes_on_host();
  long side = host ? kHostGemmSide : kDeviceGemmSide;
  // A GPU's C at most a quarter of its free memory.
  while (!host && side > 1024 && 8.0 * side * side > 0.25 * dev.backend().free_device_bytes())
    side /= 2;
  s.gemm_m = std::min(s.rows, side);
  s.gemm_n = std::min(s.cols, side);
  return s;
}

// The rank's DGEMM and memory bandwidth, measured together with the
// ranks of `comm` (a barrier on it before each).
NodeProbe measure_node(const Context& ctx, const Shape& shape, MPI_Comm comm) {
  device::Device& dev = ctx.device();
  const bool host = dev.compute().executes_on_host();
  NodeProbe p;
  // Every rank measures the same thing at the same time, as in the run:
  // ranks on one host share its memory, and one's copies beside another's
  // DGEMM would be held against copies beside copies.
  const auto together = [comm] { HPLX_MPI_CHECK(MPI_Barrier(comm)); };
  p.gemm_gflops =
      device::probe_device_gemm(dev, shape.gemm_m, shape.gemm_n, shape.nb, kProbeSeconds, together);
  // The rank's share of its node's CPUs copies: a host's ranks together
  // draw the node's bandwidth, from every core (a single one may be the one
  // that takes the interrupts, and copy slower).
  const ThreadPlan& plan = ctx.threads();
  const int share = std::max(1, plan.node_cpus / std::max(1, plan.local_ranks));
  p.memory_gbs = device::probe_device_memory(dev, host ? kHostCopyBytes : kDeviceCopyBytes, share,
                                             kMemorySeconds, together);
  return p;
}

// The rank's slowest link to its process row's and column's neighbours,
// into p (every rank at once: a link has two ends).
void measure_links(const Context& ctx, const Shape& shape, const ProcessGrid& grid, NodeProbe& p) {
  HPLX_MPI_CHECK(MPI_Barrier(ctx.world()));
  if (!grid.in_grid()) return;
  const std::size_t bytes = std::clamp<std::size_t>(
      sizeof(double) * static_cast<std::size_t>(shape.rows) * shape.nb, 8, kMaxPanelBytes);
  device::Buffer<char> buffer(ctx.device().backend(), static_cast<long>(bytes),
                              device::MemorySpace::Pinned);
  const LinkFigures links = slower_link(probe_line(grid.row(), ctx.world(), buffer.data(), bytes),
                                        probe_line(grid.col(), ctx.world(), buffer.data(), bytes));
  p.link_gbs = links.gbs;
  p.link_latency_us = links.latency_us;
  p.link_peer = links.peer;
}

// The first round: every rank at once, as in the run.
NodeProbe measure(const Context& ctx, const Shape& shape, const ProcessGrid& grid) {
  NodeProbe p = measure_node(ctx, shape, ctx.world());
  measure_links(ctx, shape, grid, p);
  return p;
}

// The second round, where the first named someone: the DGEMM and memory
// of the named ranks' hosts (`suspect_host`: mine is one) in one turn, of
// the other hosts in another, so that hosts that share hardware (the
// namespace hosts of one machine the tests run on: one memory bus) are
// not held against each other's copies; on a cluster, where no two nodes
// share it, a node measures alike in both rounds. Then the links, every
// rank at once. At most twice the first round's time.
NodeProbe measure_in_turns(const Context& ctx, const Shape& shape, const ProcessGrid& grid,
                           bool suspect_host) {
  MPI_Comm turn = MPI_COMM_NULL;
  HPLX_MPI_CHECK(MPI_Comm_split(ctx.world(), suspect_host ? 0 : 1, 0, &turn));
  NodeProbe p;
  for (const bool suspects_turn : {true, false}) {
    if (suspects_turn == suspect_host) p = measure_node(ctx, shape, turn);
    HPLX_MPI_CHECK(MPI_Barrier(ctx.world()));
  }
  HPLX_MPI_CHECK(MPI_Comm_free(&turn));
  measure_links(ctx, shape, grid, p);
  return p;
}

// Whether each rank's host is one of the slow ranks' (on rank 0, which
// has `ranks`; scattered to every rank).
bool on_a_suspect_host(const std::vector<RankProbe>& ranks, const std::vector<SlowProbe>& slow,
                       MPI_Comm comm) {
  std::vector<int> flags;
  for (const RankProbe& r : ranks)
    flags.push_back(std::any_of(slow.begin(), slow.end(),
                                [&](const SlowProbe& s) { return s.rank.host == r.host; }));
  int mine = 0;
  HPLX_MPI_CHECK(MPI_Scatter(flags.data(), 1, MPI_INT, &mine, 1, MPI_INT, 0, comm));
  return mine != 0;
}

// The summary line: the medians, and that no rank was slow when none was.
void print_summary(const std::vector<RankProbe>& ranks, const std::vector<SlowProbe>& slow,
                   const Shape& shape, double threshold, double seconds, int suspects) {
  std::vector<double> gemm, memory, link;
  for (const RankProbe& r : ranks) {
    gemm.push_back(r.probe.gemm_gflops);
    memory.push_back(r.probe.memory_gbs);
    link.push_back(r.probe.link_gbs);
  }
  const std::string links = median_of_measured(link) > 0
                                ? fmt::format(", links {:.2f} GB/s", median_of_measured(link))
                                : std::string(", no links");
  std::string verdict =
      slow.empty()
          ? fmt::format("no rank more than {:.0f}% below the others' median", 100 * threshold)
          : fmt::format("{} slow", slow.size());
  if (suspects > 0)
    verdict += fmt::format(
        " (measured twice: the first round named {}; each figure the better of two rounds, the "
        "second in turns, the named ranks' hosts and the others)",
        suspects);
  const auto sharing = std::count_if(ranks.begin(), ranks.end(),
                                     [](const RankProbe& r) { return r.probe.shares_cpus; });
  if (sharing > 0)
    verdict += fmt::format(
        "; {} of the ranks not judged: their host's ranks run more threads than it has CPUs, "
        "and measured taking turns",
        sharing);
  std::fprintf(stderr,
               "hplx: preflight: %zu ranks on %d host%s in %.1f s, medians: DGEMM %.1f Gflop/s "
               "(%ldx%ldx%d), memory %.1f GB/s%s; %s\n",
               ranks.size(), count_hosts(ranks), count_hosts(ranks) == 1 ? "" : "s", seconds,
               median_of_measured(gemm), shape.gemm_m, shape.gemm_n, shape.nb,
               median_of_measured(memory), links.c_str(), verdict.c_str());
  for (std::size_t i = 0; i < std::min<std::size_t>(slow.size(), kShown); ++i)
    std::fprintf(stderr, "hplx: preflight: slow %s\n", slow_probe_sentence(slow[i]).c_str());
  if (slow.size() > kShown)
    std::fprintf(stderr, "hplx: preflight: %zu more slow in the record\n", slow.size() - kShown);
}

}  // namespace

PreflightMode parse_preflight_mode(const std::string& text) {
  if (text == "off") return PreflightMode::Off;
  if (text == "on") return PreflightMode::On;
  if (text == "strict") return PreflightMode::Strict;
  throw UsageError(
      fmt::format("--preflight {}: not a mode; allowed: off, on, strict (default: on with more "
                  "than one host)",
                  text));
}

PreflightOutcome run_node_preflight(const Context& ctx, const HplDat& dat,
                                    const NodePreflight& preflight, bool quiet) {
  const PreflightProblem problem{*std::max_element(dat.ns.begin(), dat.ns.end()), dat.nbs.front(),
                                 dat.grids.front(), dat.pmap};
  return run_node_preflight(ctx, problem, preflight, quiet);
}

PreflightOutcome run_node_preflight(const Context& ctx, const PreflightProblem& problem,
                                    const NodePreflight& preflight, bool quiet) {
  PreflightOutcome out;
  PreflightMode mode = preflight.mode;
  if (mode == PreflightMode::Auto)
    mode = hosts_in(ctx.world()) > 1 ? PreflightMode::On : PreflightMode::Off;
  if (mode == PreflightMode::Off) return out;
  int rank = 0;
  HPLX_MPI_CHECK(MPI_Comm_rank(ctx.world(), &rank));
  const double t0 = wall_time();
  const Shape shape = run_shape(problem, ctx.device());
  const ProcessGrid grid(ctx.world(), shape.grid.p, shape.grid.q, problem.pmap);
  NodeProbe mine = measure(ctx, shape, grid);
  const ThreadPlan& plan = ctx.threads();
  mine.shares_cpus = plan.local_ranks * plan.threads_per_rank > plan.node_cpus;
  mine.memory_of_host = ctx.device().compute().executes_on_host();
  const std::string state = ctx.device().backend().state();
  std::vector<RankProbe> ranks = gather_rank_probes(mine, state, ctx.world());
  // Where the first round names a rank, every rank measures again (the
  // named ranks' hosts and the others in turns, measure_in_turns), and
  // each figure is the better of the two: a slow node is slow in both, a
  // rank that a burst on its host slowed once is not (a healthy node's
  // noise: 11-15% below in issue 65's runs without a slowed host, and
  // once 43%). Only where the first round left room for a second in the
  // preflight's 10 s (a node held to a fifth of a CPU: 80% below, and
  // 8.8 s with 4 ranks): a rank is then named from the first round.
  const double first_round = wall_time() - t0;
  std::vector<SlowProbe> first;
  if (rank == 0 && first_round <= kSecondRoundBefore)
    first = find_slow_probes(ranks, preflight.threshold);
  int suspects = static_cast<int>(first.size());
  HPLX_MPI_CHECK(MPI_Bcast(&suspects, 1, MPI_INT, 0, ctx.world()));
  if (suspects > 0) {
    const bool suspect_host = on_a_suspect_host(ranks, first, ctx.world());
    mine = best_of(mine, measure_in_turns(ctx, shape, grid, suspect_host));
    ranks = gather_rank_probes(mine, state, ctx.world());
  }
  const double seconds = wall_time() - t0;
  int stop = 0;
  if (rank == 0) {
    const std::vector<SlowProbe> slow = find_slow_probes(ranks, preflight.threshold);
    out.record = probes_json(ranks, slow, preflight.threshold, seconds);
    out.record["mode"] = mode == PreflightMode::Strict ? "strict" : "on";
    out.record["gemm_shape"] = {shape.gemm_m, shape.gemm_n, shape.nb};
    out.record["rounds"] = suspects > 0 ? 2 : 1;
    out.record["first_round_suspects"] = suspects;
    out.record["first_round_seconds"] = first_round;
    stop = mode == PreflightMode::Strict && !slow.empty();
    if (!quiet || stop) print_summary(ranks, slow, shape, preflight.threshold, seconds, suspects);
    if (stop)
      std::fprintf(stderr,
                   "hplx: preflight strict: stopping before the run (exit status %d): take the "
                   "slow ranks' nodes out of the job, or run with --preflight on\n",
                   kPreflightStopStatus);
  }
  HPLX_MPI_CHECK(MPI_Bcast(&stop, 1, MPI_INT, 0, ctx.world()));
  out.stop = stop != 0;
  return out;
}

}  // namespace hplx::lu
