#include "model/calibration_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::model {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double robust_spread(std::vector<double> v) {
  if (v.size() < 2) return 0;
  std::sort(v.begin(), v.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  const double mid = median(v);
  return mid > 0 ? (quantile(0.75) - quantile(0.25)) / mid : 0;
}

CalibrationRounds::CalibrationRounds(int rounds) : rounds_(rounds) {
  if (rounds < 1) throw Error(fmt::format("CalibrationRounds: {} rounds; needs >= 1", rounds));
}

void CalibrationRounds::add(const std::string& key, const std::string& label,
                            std::function<double()> measure, std::vector<std::string> needs) {
  if (index_.count(key)) throw Error(fmt::format("CalibrationRounds: term '{}' added twice", key));
  for (const auto& n : needs)
    if (!index_.count(n))
      throw Error(fmt::format("CalibrationRounds: '{}' needs '{}', not added before it", key, n));
  index_[key] = terms_.size();
  terms_.push_back({key, label, std::move(measure), std::move(needs), {}, 0});
}

void CalibrationRounds::run_set(const std::vector<bool>& which) {
  for (size_t i = 0; i < terms_.size(); ++i)
    if (which[i]) {
      terms_[i].values.clear();
      ++terms_[i].sets;
    }
  for (int r = 0; r < rounds_; ++r)
    for (size_t i = 0; i < terms_.size(); ++i)
      if (which[i]) terms_[i].values.push_back(terms_[i].measure());
}

void CalibrationRounds::run() {
  run_set(std::vector<bool>(terms_.size(), true));
}

void CalibrationRounds::run_again(const std::vector<std::string>& keys) {
  std::vector<bool> which(terms_.size(), false);
  // A term's needs were added before it, so one pass from the back marks
  // the needs of needs too.
  for (const auto& k : keys) which[index_.at(k)] = true;
  for (size_t i = terms_.size(); i-- > 0;)
    if (which[i])
      for (const auto& n : terms_[i].needs) which[index_.at(n)] = true;
  run_set(which);
}

void CalibrationRounds::keep_set(const std::string& key, std::vector<double> values) {
  terms_[index_.at(key)].values = std::move(values);
}

const CalibrationRounds::Term& CalibrationRounds::term(const std::string& key) const {
  auto it = index_.find(key);
  if (it == index_.end()) throw Error(fmt::format("CalibrationRounds: no term '{}'", key));
  return terms_[it->second];
}

double CalibrationRounds::median_of(const std::string& key) const {
  return median(term(key).values);
}
double CalibrationRounds::spread_of(const std::string& key) const {
  return robust_spread(term(key).values);
}
const std::vector<double>& CalibrationRounds::values(const std::string& key) const {
  return term(key).values;
}
int CalibrationRounds::sets_of(const std::string& key) const {
  return term(key).sets;
}
const std::string& CalibrationRounds::label(const std::string& key) const {
  return term(key).label;
}
std::vector<std::string> CalibrationRounds::keys() const {
  std::vector<std::string> k;
  for (const auto& t : terms_) k.push_back(t.key);
  return k;
}
std::map<std::string, double> CalibrationRounds::medians() const {
  std::map<std::string, double> m;
  for (const auto& t : terms_) m[t.key] = median(t.values);
  return m;
}

std::vector<size_t> failing_checks(const std::vector<TermCheck>& checks,
                                   const std::map<std::string, double>& medians) {
  std::vector<size_t> out;
  for (size_t i = 0; i < checks.size(); ++i)
    if (!checks[i].verdict(medians).empty()) out.push_back(i);
  return out;
}

RoundsOutcome measure_and_check(CalibrationRounds& rounds, const std::vector<TermCheck>& checks,
                                int max_extra_sets, double spread_limit,
                                const std::set<std::string>& no_spread_warning,
                                int max_noisy_sets) {
  rounds.run();
  RoundsOutcome out;
  std::set<std::string> again;
  for (int extra = 0; extra < max_extra_sets; ++extra) {
    const std::vector<size_t> failing = failing_checks(checks, rounds.medians());
    if (failing.empty()) break;
    std::vector<std::string> keys;
    for (size_t i : failing)
      for (const auto& k : checks[i].terms)
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    rounds.run_again(keys);
    again.insert(keys.begin(), keys.end());
  }
  // Terms whose rounds wander too far to trust their median: measured
  // again (with what they need), the quietest set kept.
  auto noisy_now = [&] {
    std::vector<std::string> keys;
    for (const auto& k : rounds.keys())
      if (!no_spread_warning.count(k) && rounds.spread_of(k) > spread_limit) keys.push_back(k);
    return keys;
  };
  std::map<std::string, std::vector<double>> quietest;
  std::set<std::string> noisy;
  for (int extra = 0; extra < max_noisy_sets; ++extra) {
    const std::vector<std::string> keys = noisy_now();
    if (keys.empty()) break;
    for (const auto& k : keys) {
      noisy.insert(k);
      auto q = quietest.find(k);
      if (q == quietest.end() || robust_spread(q->second) > rounds.spread_of(k))
        quietest[k] = rounds.values(k);
    }
    rounds.run_again(keys);
  }
  for (const auto& [k, values] : quietest)
    if (robust_spread(values) < rounds.spread_of(k)) rounds.keep_set(k, values);
  const auto medians = rounds.medians();
  for (size_t i : failing_checks(checks, medians))
    out.warnings.push_back(checks[i].verdict(medians));
  for (const auto& k : noisy_now())
    out.warnings.push_back(fmt::format(
        "{}: its {} rounds spread {:.1f}% (interquartile range over median), above {:.0f}%{}",
        rounds.label(k), rounds.values(k).size(), 100 * rounds.spread_of(k), 100 * spread_limit,
        rounds.sets_of(k) > 1
            ? fmt::format(" in each of its {} sets: not to be trusted on this machine now "
                          "(the quietest set kept)",
                          rounds.sets_of(k))
            : ""));
  for (const auto& k : rounds.keys()) {
    if (again.count(k)) out.remeasured.push_back(k);
    if (noisy.count(k)) out.noisy.push_back(k);
  }
  return out;
}

std::string check_one_call_against_chunks(double update_gflops, double dgemm_gflops, double pack_ns,
                                          long m, int k, long chunk_columns, double tolerance) {
  if (update_gflops <= 0 || dgemm_gflops <= 0) return "";
  // The same m x m x k product: the plain DGEMM in 256-column calls packs A
  // (m x k) once per call, the update's one call packs it once. Its time
  // less the packing of the extra calls is what the one call should take.
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(m) * k;
  const long calls = (m + chunk_columns - 1) / chunk_columns;
  const double repacked = static_cast<double>(calls - 1) * static_cast<double>(m) * k;
  const double t_one = flops / (dgemm_gflops * 1e9) - std::max(0.0, pack_ns) * 1e-9 * repacked;
  const double expected = t_one > 0 ? flops / t_one / 1e9 : dgemm_gflops;
  const double ratio = update_gflops / expected;
  if (ratio <= 1 + tolerance && ratio >= 1 / (1 + tolerance)) return "";
  return fmt::format(
      "update 1 thread (one call) {:.2f} GFLOPS and DGEMM 1 thread {:.2f} GFLOPS disagree: the "
      "same product, which with DGEMM packing {:.3f} ns per word gives {:.2f} GFLOPS for the one "
      "call, {:+.1f}% off; tolerance {:.0f}%",
      update_gflops, dgemm_gflops, pack_ns, expected, 100 * (ratio - 1), 100 * tolerance);
}

// Why these bounds. The row swap's figure (row_copy swap, 1 thread) is ns per
// element of b rows exchanged in place, rows a column-major matrix's leading
// dimension apart and flushed from the caches: each element is its own cache
// line, read and written twice (the two rows), about 4 lines = 256 bytes of
// memory traffic. DGEMM's packing of A reads A's columns contiguously and
// writes them into the packed buffer: 16 bytes per element. At the swap's
// byte rate that is swap / 16 per element. Below swap / 32: packing would run
// at more than twice the memory rate the swap sees, more than A served from
// the last-level cache explains. Above swap / 4: packing one element would
// cost as much as a quarter of a cache-cold strided exchange, 4x the byte
// traffic estimate, beyond what OpenBLAS's reordering into micro-panels and
// the extra calls' fixed costs (charged to packing here) add. Twenty-one
// calibrations of a 2-core EPYC VM gave pack / swap 0.05 to 0.21 (swap 7.7 to
// 9.6 ns), and one 0.016 beside a 1-thread DGEMM 12% below the others; a
// calibration whose prediction came out 34% slow had packing at 3.62 ns.
std::string check_pack_against_swap(double pack_ns, double swap_ns) {
  if (pack_ns <= 0 || swap_ns <= 0) return "";
  const double lo = swap_ns / kPackBelowSwap, hi = swap_ns / kPackAboveSwap;
  if (pack_ns >= lo && pack_ns <= hi) return "";
  return fmt::format(
      "DGEMM packing {:.3f} ns per word and row swap 1 thread {:.3f} ns per word disagree: "
      "packing should cost swap / {:.0f} to swap / {:.0f} = {:.3f} to {:.3f} ns per word",
      pack_ns, swap_ns, kPackBelowSwap, kPackAboveSwap, lo, hi);
}

std::string check_thread_scaling(const std::string& label, double gflops, int threads,
                                 double one_thread_gflops, double tolerance) {
  if (gflops <= 0 || one_thread_gflops <= 0 || threads <= 1) return "";
  const double bound = threads * one_thread_gflops;
  if (gflops <= bound * (1 + tolerance)) return "";
  return fmt::format(
      "{} {:.2f} GFLOPS and DGEMM 1 thread {:.2f} GFLOPS disagree: {} threads cannot beat {} "
      "times the 1-thread rate ({:.2f}) by {:+.1f}%; tolerance {:.0f}%",
      label, gflops, one_thread_gflops, threads, threads, bound, 100 * (gflops / bound - 1),
      100 * tolerance);
}

}  // namespace hplx::model
