// `hplx model calibrate`'s rounds, medians, spreads and checks
// (src/model/calibration_rounds.hpp) with fake measurements: no timing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/calibrate.hpp"
#include "model/calibration_rounds.hpp"
#include "model/system_spec.hpp"

using namespace hplx::model;

namespace {

// A measurement returning `values` one after the other (the last one again
// when they run out), counting its calls.
struct Fake {
  std::vector<double> values;
  int calls = 0;
  double operator()() {
    const size_t i = std::min(static_cast<size_t>(calls), values.size() - 1);
    ++calls;
    return values[i];
  }
};

// |a / b - 1| <= 10%, the verdict naming both.
TermCheck agree(const std::string& a, const std::string& b) {
  return {{a, b}, [a, b](const std::map<std::string, double>& v) -> std::string {
            const double r = v.at(a) / v.at(b);
            if (r <= 1.1 && r >= 1 / 1.1) return "";
            return a + " " + std::to_string(v.at(a)) + " and " + b + " " + std::to_string(v.at(b)) +
                   " disagree; tolerance 10%";
          }};
}

}  // namespace

TEST(CalibrationRounds, OneDisturbedRoundDoesNotMoveTheMedian) {
  // Round 3 caught a burst of other load: 20 where the others read 50..52.
  CalibrationRounds rounds(5);
  Fake dgemm{{50, 51, 20, 52, 50.5}};
  rounds.add("dgemm_1", "DGEMM 1 thread", std::ref(dgemm));
  rounds.run();
  EXPECT_EQ(dgemm.calls, 5);
  EXPECT_DOUBLE_EQ(rounds.median_of("dgemm_1"), 50.5);
  // The spread leaves the burst out too: quartiles 50 and 51.
  EXPECT_NEAR(rounds.spread_of("dgemm_1"), 1.0 / 50.5, 1e-12);
}

TEST(CalibrationRounds, RoundsAreInterleavedAcrossTheTerms) {
  CalibrationRounds rounds(3);
  std::string order;
  for (const char* key : {"a", "b", "c"})
    rounds.add(key, key, [&order, key] {
      order += key;
      return 1.0;
    });
  rounds.run();
  EXPECT_EQ(order, "abcabcabc");
  // Measured again, only the asked terms, still interleaved.
  order.clear();
  rounds.run_again({"c", "a"});
  EXPECT_EQ(order, "acacac");
}

TEST(CalibrationRounds, ATermIsMeasuredAgainWithWhatItNeeds) {
  // The packing cost is the chunked time less the one call's of the same
  // round: measuring it again measures the one call again, first.
  CalibrationRounds rounds(2);
  std::string order;
  auto log = [&order](const char* what) {
    return [&order, what] {
      order += what;
      return 1.0;
    };
  };
  rounds.add("update_1", "update", log("u"));
  rounds.add("swap_1", "swap", log("s"));
  rounds.add("dgemm_pack", "pack", log("p"), {"update_1"});
  rounds.run();
  order.clear();
  rounds.run_again({"dgemm_pack"});
  EXPECT_EQ(order, "upup");
}

TEST(CalibrationRounds, ADisagreeingPairIsMeasuredAgainAndAgreementGivesNoWarning) {
  // The first set of `update` ran through a long burst; the second did not.
  CalibrationRounds rounds(5);
  Fake update{{30, 31, 29, 33, 30, 50, 50.5, 49, 50, 51}}, dgemm{{50}}, trsm{{10}};
  rounds.add("update_1", "update 1 thread", std::ref(update));
  rounds.add("dgemm_1", "DGEMM 1 thread", std::ref(dgemm));
  rounds.add("trsm_1", "DTRSM 1 thread", std::ref(trsm));
  const RoundsOutcome out = measure_and_check(rounds, {agree("update_1", "dgemm_1")});
  EXPECT_EQ(update.calls, 10);
  EXPECT_EQ(dgemm.calls, 10);
  EXPECT_EQ(trsm.calls, 5);  // not in the check: not measured again
  EXPECT_DOUBLE_EQ(rounds.median_of("update_1"), 50);
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.front();
  EXPECT_EQ(out.remeasured, (std::vector<std::string>{"update_1", "dgemm_1"}));
  EXPECT_EQ(rounds.sets_of("update_1"), 2);
}

TEST(CalibrationRounds, APairThatStillDisagreesWarnsNamingBothTerms) {
  CalibrationRounds rounds(5);
  Fake update{{33.7}}, dgemm{{50.3}};
  rounds.add("update_1", "update 1 thread", std::ref(update));
  rounds.add("dgemm_1", "DGEMM 1 thread", std::ref(dgemm));
  const RoundsOutcome out = measure_and_check(rounds, {agree("update_1", "dgemm_1")});
  EXPECT_EQ(update.calls, 15);  // the set and two more
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("update_1 33.7"), std::string::npos) << out.warnings[0];
  EXPECT_NE(out.warnings[0].find("dgemm_1 50.3"), std::string::npos) << out.warnings[0];
  EXPECT_NE(out.warnings[0].find("tolerance 10%"), std::string::npos) << out.warnings[0];
}

// A term whose rounds spread above the limit is not trusted: it is
// measured again (alone: the steady term is not), and a quiet set replaces
// the noisy one without a warning.
TEST(CalibrationRounds, ANoisyTermIsMeasuredAgainAndAQuietSetKept) {
  CalibrationRounds rounds(5);
  Fake swap{{6.0, 7.0, 8.0, 9.0, 10.0, 8.0, 8.1, 8.0, 7.9, 8.0}}, steady{{5.0, 5.1, 5.0, 4.9, 5.0}};
  rounds.add("swap_1", "row swap 1 thread", std::ref(swap));
  rounds.add("gather_1", "row gather 1 thread", std::ref(steady));
  const RoundsOutcome out = measure_and_check(rounds, {});
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.front();
  EXPECT_EQ(out.noisy, std::vector<std::string>{"swap_1"});
  EXPECT_TRUE(out.remeasured.empty());
  EXPECT_EQ(swap.calls, 10);
  EXPECT_EQ(steady.calls, 5);
  EXPECT_EQ(rounds.sets_of("swap_1"), 2);
  EXPECT_DOUBLE_EQ(rounds.median_of("swap_1"), 8.0);
  EXPECT_DOUBLE_EQ(rounds.spread_of("swap_1"), 0.0);  // quartiles 8 and 8
}

// Noisy in every set: the quietest set is kept and one line says the term
// is not to be trusted, with its spread and the limit.
TEST(CalibrationRounds, ATermNoisyInEverySetWarnsAndKeepsTheQuietest) {
  CalibrationRounds rounds(5);
  Fake swap{{6.0, 7.0, 8.0, 9.0, 10.0,     // spread (9 - 7) / 8 = 25%
             5.0, 7.0, 9.0, 11.0, 13.0,    // (11 - 7) / 9 = 44%
             7.0, 8.0, 9.0, 10.0, 11.0}};  // (10 - 8) / 9 = 22.2%, the quietest
  rounds.add("swap_1", "row swap 1 thread", std::ref(swap));
  const RoundsOutcome out = measure_and_check(rounds, {});
  EXPECT_EQ(swap.calls, 15);
  EXPECT_EQ(out.noisy, std::vector<std::string>{"swap_1"});
  EXPECT_DOUBLE_EQ(rounds.median_of("swap_1"), 9.0);
  ASSERT_EQ(out.warnings.size(), 1u);
  const std::string& w = out.warnings[0];
  EXPECT_NE(w.find("row swap 1 thread: its 5 rounds spread 22.2%"), std::string::npos) << w;
  EXPECT_NE(w.find("above 10% in each of its 3 sets: not to be trusted"), std::string::npos) << w;
  // Without extra sets it warns at once, the first set kept.
  CalibrationRounds once(5);
  Fake swap2{{6.0, 7.0, 8.0, 9.0, 10.0}};
  once.add("swap_1", "row swap 1 thread", std::ref(swap2));
  const RoundsOutcome first = measure_and_check(once, {}, 2, 0.10, {}, 0);
  ASSERT_EQ(first.warnings.size(), 1u);
  EXPECT_NE(first.warnings[0].find("25.0%"), std::string::npos) << first.warnings[0];
  EXPECT_EQ(swap2.calls, 5);
  // A term exempted (a difference of two timings, judged by the checks) is
  // neither measured again nor warned of.
  CalibrationRounds again(5);
  Fake pack{{0.6, 0.7, 0.8, 0.9, 1.0}};
  again.add("dgemm_pack", "DGEMM packing", std::ref(pack));
  const RoundsOutcome exempt = measure_and_check(again, {}, 2, 0.10, {"dgemm_pack"});
  EXPECT_TRUE(exempt.warnings.empty());
  EXPECT_TRUE(exempt.noisy.empty());
  EXPECT_EQ(pack.calls, 5);
}

TEST(CalibrateChecks, TheUpdatesOneCallAgreesWithTheChunkedDgemmLessItsPacking) {
  // A healthy calibration of a 2-core VM: one call 78.3 GFLOPS, 256-column
  // calls 71.1, packing 0.73 ns per word (M = 4000, NB = 192).
  EXPECT_EQ(check_one_call_against_chunks(78.278, 71.0545, 0.733, 4000, 192, 256), "");
  // The calibration whose prediction was 34% off: 33.7 against 50.3.
  const std::string w = check_one_call_against_chunks(33.7, 50.3, 3.62, 4000, 192, 256);
  EXPECT_NE(w.find("update 1 thread (one call) 33.70 GFLOPS"), std::string::npos) << w;
  EXPECT_NE(w.find("DGEMM 1 thread 50.30 GFLOPS"), std::string::npos) << w;
  EXPECT_NE(w.find("tolerance 10%"), std::string::npos) << w;
}

TEST(CalibrateChecks, PackingIsBoundedByTheRowSwapsMemoryRate) {
  EXPECT_EQ(check_pack_against_swap(0.73, 8.25), "");
  EXPECT_EQ(check_pack_against_swap(1.8, 8.56), "");
  const std::string slow = check_pack_against_swap(3.62, 8.25);
  EXPECT_NE(slow.find("DGEMM packing 3.620"), std::string::npos) << slow;
  EXPECT_NE(slow.find("row swap 1 thread 8.250"), std::string::npos) << slow;
  EXPECT_NE(check_pack_against_swap(0.1, 8.25), "");
}

TEST(CalibrateChecks, MoreThreadsCannotBeatTheOneThreadRateTimesTheThreads) {
  EXPECT_EQ(check_thread_scaling("DGEMM 2 threads", 131.3, 2, 71.05), "");
  const std::string w = check_thread_scaling("DGEMM 2 threads", 131.3, 2, 50.3);
  EXPECT_NE(w.find("DGEMM 2 threads 131.30"), std::string::npos) << w;
  EXPECT_NE(w.find("DGEMM 1 thread 50.30"), std::string::npos) << w;
}

TEST(CalibrateRounds, BadRoundCountsAreRefusedNamingTheValueAndTheRange) {
  for (int bad : {-1, 0, 2, 51, 1000}) {
    try {
      check_rounds(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const hplx::UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--rounds " + std::to_string(bad) + ":"), std::string::npos) << what;
      EXPECT_NE(what.find("3..50"), std::string::npos) << what;
    }
  }
  for (int good : {3, 5, 50}) EXPECT_NO_THROW(check_rounds(good));
}

TEST(CalibrateRounds, TheWrittenSpecRecordsTheRoundsAndLoadsBack) {
  Calibration c;
  c.dgemm_gflops = {{1, 50.3}, {2, 98.0}};
  c.hostname = "h";
  c.memory_gib = 4;
  c.rounds = 5;
  c.terms = {{"dgemm_1", "DGEMM 1 thread", "50.30 GFLOPS", 5, 2, false, 0.031},
             {"fact_4000", "FACT M = 4000", "12.0 ms", 5, 3, true, 0.002},
             {"dgemm_pack", "DGEMM's packing", "0.9 ns", 5, 1, false, 0.125}};
  c.remeasured = {"dgemm_1", "update_1"};
  c.noisy = {"fact_4000"};
  c.warnings = {"update 1 thread (one call) 33.70 GFLOPS and \"DGEMM\" 1 thread 50.30 disagree",
                "row swap 1 thread: its 5 rounds spread 12.5%"};
  const std::string text = calibration_toml(c, {}, "hplx model calibrate -o m.toml");
  const SystemSpec spec = parse_system_spec(text, "m.toml");
  const CalibrationNotes& n = spec.calibration;
  EXPECT_TRUE(n.present);
  EXPECT_EQ(n.rounds, 5);
  ASSERT_EQ(n.spread_pct.size(), 3u);
  EXPECT_NEAR(n.spread_pct.at("dgemm_1"), 3.1, 1e-9);
  EXPECT_NEAR(n.spread_pct.at("fact_4000"), 0.2, 1e-9);
  EXPECT_NEAR(n.spread_pct.at("dgemm_pack"), 12.5, 1e-9);
  EXPECT_EQ(n.remeasured, c.remeasured);
  EXPECT_EQ(n.noisy, c.noisy);
  EXPECT_EQ(n.warnings, c.warnings);
}

TEST(CalibrateRounds, TheSpecReaderChecksTheCalibrationTable) {
  const std::string base = "[system]\nname = \"x\"\n[device]\nrpeak_gflops = 1\n";
  auto refused = [&](const std::string& table, const std::string& says) {
    try {
      parse_system_spec(base + table, "m.toml");
      ADD_FAILURE() << table << " accepted";
    } catch (const hplx::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("[calibration.spread]\ndgemm_1 = -3\n", "'calibration.spread.dgemm_1': -3 is negative");
  refused("[calibration.spread]\ndgemm_1 = \"3\"\n", "'calibration.spread.dgemm_1'");
  refused("[calibration.spread]\ndgemmm_1 = 3\n", "'calibration.spread.dgemmm_1': unknown key");
  refused("[calibration]\nround = 5\n", "'calibration.round': unknown key");
  refused("[calibration]\nrounds = 0\n", "'calibration.rounds'");
  refused("[calibration]\nwarnings = [1]\n", "'calibration.warnings'");
  refused("[calibration]\nnoisy = [\"dgemm_9x\"]\n", "'dgemm_9x' is not a term");
  EXPECT_NO_THROW(parse_system_spec(base + "[calibration]\nrounds = 7\n[calibration.spread]\n"
                                           "update_2 = 0\nblock_gather_1 = 4.5\ndgemm_cv = 1\n",
                                    "m.toml"));
}
