// The rounds behind `hplx model calibrate`: every term is measured in R
// rounds interleaved across the terms (round 1 of every term, then round 2,
// ...), so that a burst of other load on a shared machine lands in one round
// of several terms instead of in every repetition of one term; a term's value
// is the median of its rounds. Quantities that must agree (TermCheck) are
// compared on the medians; the terms of a failing check are measured again in
// up to two more sets of rounds, and what still disagrees becomes a warning.
// No timing here: the terms are callables, so tests inject fake measurements.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hplx::model {

// The median of `v` (the mean of the two middle values for an even count);
// 0 when empty.
double median(std::vector<double> v);

// How far a term's rounds wander: the interquartile range over the median
// ((Q3 - Q1) / median, quartiles linearly interpolated between the sorted
// rounds), 0 for fewer than two rounds. Robust like the median: with 5
// rounds one disturbed round moves neither quartile far.
double robust_spread(std::vector<double> v);

class CalibrationRounds {
 public:
  // rounds: how many rounds one set has (>= 1).
  explicit CalibrationRounds(int rounds);

  // A term: `key` names it in the spec ([calibration.spread]), `label` on
  // the terminal. `needs`: terms whose measurement in the same round this one
  // reads (a difference of two timings), measured again with it. Terms run in
  // the order added within a round.
  void add(const std::string& key, const std::string& label, std::function<double()> measure,
           std::vector<std::string> needs = {});

  // One set of rounds of every term, interleaved.
  void run();
  // One more set of rounds of `keys` (and what they need), interleaved, in
  // the order the terms were added. It replaces their earlier set: a check
  // fails when most of a term's rounds were off (one off round does not move
  // the median), i.e. a disturbance lasted through the set, and pooling
  // would keep it.
  void run_again(const std::vector<std::string>& keys);

  // Puts back an earlier set's rounds of `key` (the quietest of its sets).
  void keep_set(const std::string& key, std::vector<double> values);

  bool has(const std::string& key) const { return index_.count(key) > 0; }
  double median_of(const std::string& key) const;
  double spread_of(const std::string& key) const;
  const std::vector<double>& values(const std::string& key) const;  // the last set's
  int sets_of(const std::string& key) const;                        // sets measured
  const std::string& label(const std::string& key) const;
  std::vector<std::string> keys() const;  // in the order added
  std::map<std::string, double> medians() const;
  int rounds() const { return rounds_; }

 private:
  struct Term {
    std::string key, label;
    std::function<double()> measure;
    std::vector<std::string> needs;
    std::vector<double> values;
    int sets;
  };
  const Term& term(const std::string& key) const;
  void run_set(const std::vector<bool>& which);
  int rounds_;
  std::vector<Term> terms_;
  std::map<std::string, size_t> index_;
};

// Two or more terms that must agree. `verdict` reads the medians (by key) and
// returns the one-line warning naming the terms, their values and the
// tolerance when they disagree, "" when they agree.
struct TermCheck {
  std::vector<std::string> terms;
  std::function<std::string(const std::map<std::string, double>&)> verdict;
};

// The indices of the checks that fail on these medians.
std::vector<size_t> failing_checks(const std::vector<TermCheck>& checks,
                                   const std::map<std::string, double>& medians);

struct RoundsOutcome {
  std::vector<std::string> warnings;    // checks still failing, then spreads too wide
  std::vector<std::string> remeasured;  // keys measured in extra sets for a failing check
  std::vector<std::string> noisy;       // keys measured again because their rounds spread
};

// Runs one set of rounds of every term; while checks fail and fewer than
// `max_extra_sets` extra sets ran, measures the failing checks' terms again.
// Then a term whose rounds spread above `spread_limit` (a fraction) is not
// to be trusted: it is measured again, up to `max_noisy_sets` more sets,
// until a set's spread is within the limit; the quietest set is kept. A
// term still above it warns (the check's warnings first), except the terms
// in `no_spread_warning`, which are neither measured again nor warned of.
RoundsOutcome measure_and_check(CalibrationRounds& rounds, const std::vector<TermCheck>& checks,
                                int max_extra_sets = 2, double spread_limit = 0.10,
                                const std::set<std::string>& no_spread_warning = {},
                                int max_noisy_sets = 2);

// The checks `hplx model calibrate` applies (docs/MODEL.md), each a pure
// function of the values: "" when they agree, else the warning.
//
// The update's one DGEMM call at 1 thread against the plain DGEMM at 1 thread
// in 256-column calls, which is the same product but packs A once per call:
// the plain DGEMM's time less `pack_ns` per element of A packed again
// ((calls - 1) m k) must give the one call's rate within `tolerance`.
std::string check_one_call_against_chunks(double update_gflops, double dgemm_gflops, double pack_ns,
                                          long m, int k, long chunk_columns,
                                          double tolerance = 0.10);
// DGEMM's packing of A per element against the row swap's ns per element
// (rows in place, cache-cold): bounds in calibrate.cpp's kPack* constants.
std::string check_pack_against_swap(double pack_ns, double swap_ns);
// A rate on `threads` threads cannot beat `threads` times the 1-thread rate
// of the same calls by more than `tolerance`.
std::string check_thread_scaling(const std::string& label, double gflops, int threads,
                                 double one_thread_gflops, double tolerance = 0.10);

// Bounds of check_pack_against_swap: pack_ns within [swap / kPackBelowSwap,
// swap / kPackAboveSwap]. See calibration_rounds.cpp for why.
inline constexpr double kPackBelowSwap = 32.0;
inline constexpr double kPackAboveSwap = 4.0;

}  // namespace hplx::model
