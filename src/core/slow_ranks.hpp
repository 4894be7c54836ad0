// The slow node named at the end of a run: every rank's own totals of the
// factorization's phases and its host, gathered on the root, and the ranks
// whose update took longer than the other ranks' median by more than a
// threshold. In a bulk-synchronous LU every other rank waits for the
// slowest one's update at the next panel's broadcast and row swap, so one
// throttled GPU or short DIMM sets the whole run's pace; the line names it.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

namespace hplx {

// The run in parts of about as many iterations each: a rank is named only
// where it was slow in the parts that hold most of its work too. A burst
// of a few iterations on a healthy node (a neighbour's job, the
// hypervisor) adds to its total, not to most of its work; a throttled
// node is slow in every part long enough to be throttled.
inline constexpr int kRunParts = 8;

// A rank's own totals over one factorization (seconds).
struct RankTotals {
  double update = 0;  // the trailing update (DTRSM and DGEMM, or the queue's)
  double fact = 0;    // the panel factorization
  double wait = 0;    // blocked in communication (LBCAST, RS)
  // The flops of its updates (lu/update_work.hpp): the block-cyclic layout
  // gives some ranks more of the matrix. 0: not known.
  double update_flops = 0;
  // Its update's seconds and flops in each part of the run (0: not known).
  std::array<double, kRunParts> part_update{}, part_flops{};
};

struct RankFigures {
  int rank = 0;
  std::string host;
  RankTotals totals;
};

// Every rank's totals and host name, in rank order, on rank 0 of `comm`;
// empty on the others. Collective: two gathers of a few numbers a rank.
std::vector<RankFigures> gather_rank_figures(const RankTotals& mine, MPI_Comm comm);

struct SlowRank {
  RankFigures figures;
  // The other ranks' median update time for its work: their median seconds
  // per flop times its flops where the flops are known, else their median
  // update time.
  double others_update = 0;
  double slower = 0;  // update / others_update - 1
  // Where the parts are known: its seconds per flop against the others'
  // median in each part, minus 1, at the median of its work (each part
  // weighing the seconds the others' pace gives its flops there): it was
  // at least this much slower in half of its work; else `slower`.
  double typical = 0;
  // What it cost the run: how much longer the other ranks waited than it
  // did (the median of theirs minus its own; 0 where they waited less).
  double others_waited = 0;
};

// The ranks whose update took more than `threshold` (0.10: 10%) longer
// than the median of the other ranks' (with two ranks, than the other's)
// for the same work (seconds per flop, where update_flops are known; a
// rank with none had no update and is not judged), and, where the parts
// are known, so in half of its work by part too, slowest first. None with
// fewer than two ranks, nor where the others' median is 0. (A threshold
// below 0 lists every rank.)
std::vector<SlowRank> find_slow_ranks(const std::vector<RankFigures>& ranks, double threshold);

// "rank R on HOST: update U s, P% slower than the others' median M s; the
// others waited W s longer than it did".
std::string slow_rank_sentence(const SlowRank& s);

// The threshold both benchmarks' closing lines use.
inline constexpr double kSlowRankThreshold = 0.10;

// The closing lines of a factorization with more than one rank (none with
// one): "slow " and a sentence for each slow rank (at most 5, then how many
// more), or that none was and which came closest.
std::vector<std::string> slow_rank_lines(const std::vector<RankFigures>& ranks,
                                         const std::vector<SlowRank>& slow, double threshold);

// {"ranks": [{"rank", "host", "update_s", "fact_s", "wait_s", "update_gflop",
//              "part_update_s", "part_gflop"}, ...],
//  "slow_threshold", "slow": [{"rank", "host", "slower", "slower_typical",
//                              "others_waited_s"}, ...]}
nlohmann::json rank_figures_json(const std::vector<RankFigures>& ranks,
                                 const std::vector<SlowRank>& slow, double threshold);

}  // namespace hplx
