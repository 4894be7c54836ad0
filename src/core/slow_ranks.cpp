#include "core/slow_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "core/error.hpp"
#include "core/host_name.hpp"
#include "core/median.hpp"

namespace hplx {

std::vector<RankFigures> gather_rank_figures(const RankTotals& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  HPLX_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  HPLX_MPI_CHECK(MPI_Comm_size(comm, &size));
  constexpr int kNumbers = 4 + 2 * kRunParts;
  double numbers[kNumbers] = {mine.update, mine.fact, mine.wait, mine.update_flops};
  std::copy(mine.part_update.begin(), mine.part_update.end(), numbers + 4);
  std::copy(mine.part_flops.begin(), mine.part_flops.end(), numbers + 4 + kRunParts);
  const std::array<char, kHostChars> host = my_host_name();
  const bool root = rank == 0;
  std::vector<double> all_numbers(root ? kNumbers * static_cast<std::size_t>(size) : 0);
  std::vector<char> all_hosts(root ? kHostChars * static_cast<std::size_t>(size) : 0);
  HPLX_MPI_CHECK(
      MPI_Gather(numbers, kNumbers, MPI_DOUBLE, all_numbers.data(), kNumbers, MPI_DOUBLE, 0, comm));
  HPLX_MPI_CHECK(MPI_Gather(host.data(), kHostChars, MPI_CHAR, all_hosts.data(), kHostChars,
                            MPI_CHAR, 0, comm));
  std::vector<RankFigures> out;
  if (!root) return out;
  out.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    RankFigures& f = out[static_cast<std::size_t>(r)];
    f.rank = r;
    f.host = std::string(all_hosts.data() + static_cast<std::size_t>(r) * kHostChars);
    const double* x = all_numbers.data() + kNumbers * static_cast<std::size_t>(r);
    f.totals = {x[0], x[1], x[2], x[3]};
    std::copy(x + 4, x + 4 + kRunParts, f.totals.part_update.begin());
    std::copy(x + 4 + kRunParts, x + 4 + 2 * kRunParts, f.totals.part_flops.begin());
  }
  return out;
}

namespace {

// A rank's seconds per flop in part g; 0 where it did no work there.
double part_pace(const RankTotals& t, int g) {
  const auto i = static_cast<std::size_t>(g);
  return t.part_flops[i] > 0 ? t.part_update[i] / t.part_flops[i] : 0;
}

// The judged ranks' paces in each part, sorted (those with work there).
using PartPaces = std::array<std::vector<double>, kRunParts>;
PartPaces part_paces(const std::vector<const RankFigures*>& judged) {
  PartPaces paces;
  for (int g = 0; g < kRunParts; ++g) {
    std::vector<double>& v = paces[static_cast<std::size_t>(g)];
    for (const RankFigures* f : judged)
      if (part_pace(f->totals, g) > 0) v.push_back(part_pace(f->totals, g));
    std::sort(v.begin(), v.end());
  }
  return paces;
}

// t's pace against the others' median pace in each part, minus 1, at the
// median of its work: each part weighs the seconds it would have taken at
// the others' pace, so that parts of a few milliseconds (the run's last
// iterations), where a throttle of 10 ms periods may not land at all, do
// not outvote the parts that hold the work. At least half of the work
// was done at this pace or slower, and half at it or faster. `otherwise`
// where no part has both.
double typical_slower(const RankTotals& t, const PartPaces& paces, double otherwise) {
  std::vector<std::pair<double, double>> ratios;  // (mine / others, weight)
  double total = 0;
  for (int g = 0; g < kRunParts; ++g) {
    const double mine = part_pace(t, g);
    if (mine <= 0) continue;
    const double others = median_without(paces[static_cast<std::size_t>(g)], mine);
    if (others <= 0) continue;
    const double weight = others * t.part_flops[static_cast<std::size_t>(g)];
    ratios.emplace_back(mine / others, weight);
    total += weight;
  }
  if (ratios.empty()) return otherwise;
  std::sort(ratios.begin(), ratios.end());
  double below = 0;
  for (const auto& [ratio, weight] : ratios) {
    below += weight;
    if (below >= total / 2) return ratio - 1;
  }
  return ratios.back().first - 1;
}

std::array<double, kRunParts> part_gflop(const RankTotals& t) {
  std::array<double, kRunParts> g{};
  std::transform(t.part_flops.begin(), t.part_flops.end(), g.begin(),
                 [](double f) { return f / 1e9; });
  return g;
}

}  // namespace

std::vector<SlowRank> find_slow_ranks(const std::vector<RankFigures>& ranks, double threshold) {
  std::vector<SlowRank> slow;
  if (ranks.size() < 2) return slow;
  // Seconds per flop where the work is known (a rank with none had no
  // update to judge), else seconds.
  const bool by_work = std::any_of(ranks.begin(), ranks.end(),
                                   [](const RankFigures& f) { return f.totals.update_flops > 0; });
  auto pace = [by_work](const RankTotals& t) {
    return by_work ? t.update / t.update_flops : t.update;
  };
  std::vector<const RankFigures*> judged;
  for (const RankFigures& f : ranks)
    if (!by_work || f.totals.update_flops > 0) judged.push_back(&f);
  if (judged.size() < 2) return slow;
  std::vector<double> paces, waits;
  for (const RankFigures* f : judged) {
    paces.push_back(pace(f->totals));
    waits.push_back(f->totals.wait);
  }
  std::sort(paces.begin(), paces.end());
  std::sort(waits.begin(), waits.end());
  const PartPaces parts = part_paces(judged);
  for (const RankFigures* f : judged) {
    const double mine = pace(f->totals);
    const double others = median_without(paces, mine);
    if (others <= 0) continue;
    const double slower = mine / others - 1;
    if (slower <= threshold) continue;
    const double typical = typical_slower(f->totals, parts, slower);
    if (threshold >= 0 && typical <= threshold) continue;  // slow in a burst only
    const double others_update = by_work ? others * f->totals.update_flops : others;
    const double others_wait = median_without(waits, f->totals.wait);
    slow.push_back(
        {*f, others_update, slower, typical, std::max(0.0, others_wait - f->totals.wait)});
  }
  std::sort(slow.begin(), slow.end(),
            [](const SlowRank& a, const SlowRank& b) { return a.slower > b.slower; });
  return slow;
}

std::string slow_rank_sentence(const SlowRank& s) {
  const RankTotals& t = s.figures.totals;
  const bool parts =
      std::any_of(t.part_flops.begin(), t.part_flops.end(), [](double f) { return f > 0; });
  return fmt::format(
      "rank {} on {}: update {:.3f} s, {:.0f}% slower than the others' median {:.3f} s{}{}; the "
      "others waited {:.3f} s longer than it did",
      s.figures.rank, s.figures.host, t.update, 100 * s.slower, s.others_update,
      t.update_flops > 0 ? " for its work" : "",
      parts ? fmt::format(" ({:.0f}% or more in half of it)", 100 * s.typical) : "",
      s.others_waited);
}

std::vector<std::string> slow_rank_lines(const std::vector<RankFigures>& ranks,
                                         const std::vector<SlowRank>& slow, double threshold) {
  std::vector<std::string> lines;
  if (ranks.size() < 2) return lines;
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < std::min(slow.size(), kShown); ++i)
    lines.push_back("slow " + slow_rank_sentence(slow[i]));
  if (slow.size() > kShown)
    lines.push_back(fmt::format("{} more slow ranks in the record", slow.size() - kShown));
  if (!slow.empty()) return lines;
  const std::vector<SlowRank> all = find_slow_ranks(ranks, -1.0);  // every rank, slowest first
  if (all.empty()) return lines;                                   // no update timed
  const SlowRank& closest = all.front();
  if (closest.slower > threshold) {  // over the threshold in a burst only
    lines.push_back(fmt::format(
        "no slow rank: the slowest, rank {} on {}, was {:+.1f}% over the run but {:+.1f}% or "
        "less in half of its work (a burst, not a slow node)",
        closest.figures.rank, closest.figures.host, 100 * closest.slower, 100 * closest.typical));
    return lines;
  }
  lines.push_back(fmt::format(
      "no slow rank: every rank's update within {:.0f}% of the others' median (the slowest, "
      "rank {} on {}, {:+.1f}%)",
      100 * threshold, closest.figures.rank, closest.figures.host, 100 * closest.slower));
  return lines;
}

nlohmann::json rank_figures_json(const std::vector<RankFigures>& ranks,
                                 const std::vector<SlowRank>& slow, double threshold) {
  nlohmann::json j;
  nlohmann::json& all = j["ranks"] = nlohmann::json::array();
  for (const RankFigures& f : ranks)
    all.push_back({{"rank", f.rank},
                   {"host", f.host},
                   {"update_s", f.totals.update},
                   {"fact_s", f.totals.fact},
                   {"wait_s", f.totals.wait},
                   {"update_gflop", f.totals.update_flops / 1e9},
                   {"part_update_s", f.totals.part_update},
                   {"part_gflop", part_gflop(f.totals)}});
  j["slow_threshold"] = threshold;
  nlohmann::json& named = j["slow"] = nlohmann::json::array();
  for (const SlowRank& s : slow)
    named.push_back({{"rank", s.figures.rank},
                     {"host", s.figures.host},
                     {"slower", s.slower},
                     {"slower_typical", s.typical},
                     {"others_waited_s", s.others_waited}});
  return j;
}

}  // namespace hplx
