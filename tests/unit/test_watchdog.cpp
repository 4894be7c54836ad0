// The watchdog's view of a rank (Activity) and its verdicts: when it fires,
// what it says (where the rank stopped, whom it waited for), and that it
// neither fires on a rank that keeps making progress nor on an idle one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/activity.hpp"
#include "core/watchdog.hpp"

namespace hplx {
namespace {

struct FakeClock {
  double t = 100;
  Activity::Clock clock() {
    return [this] { return t; };
  }
};

Activity::Peers two_by_two_rank_3() {
  // A 2x2 grid in row-major order: rank 3 is row 1, column 1.
  return {3, {2, 3}, {1, 3}, {0, 1, 2, 3}};
}

TEST(Activity, LongestStepIsTheLongestGapBetweenMarks) {
  FakeClock c;
  Activity a(c.clock());
  c.t += 2;
  a.mark();
  c.t += 5;
  a.begin(Activity::kUpdate);
  a.end(Activity::kUpdate);
  c.t += 1;
  a.closed_iteration(1, 4);
  const auto s = a.snapshot();
  EXPECT_DOUBLE_EQ(s.longest_step, 5);
  EXPECT_DOUBLE_EQ(s.last_progress, 108);
  EXPECT_EQ(s.iterations_done, 1);
  EXPECT_EQ(s.iterations, 4);
}

TEST(Activity, IdleTimeIsNotAStep) {
  FakeClock c;
  Activity a(c.clock());
  a.set_idle(true);
  c.t += 500;  // other ranks' tests
  a.mark();    // ignored while idle
  a.set_idle(false);
  c.t += 1;
  a.mark();
  EXPECT_DOUBLE_EQ(a.snapshot().longest_step, 1);
}

TEST(Activity, PhasesNameThePeersTheyWaitFor) {
  FakeClock c;
  Activity a(c.clock());
  a.begin_test(2, 8, "WR11C2R4 N=3000 NB=192 P=2 Q=2", two_by_two_rank_3());
  a.begin(Activity::kLbcast);  // the panel comes along my row: rank 2
  auto s = a.snapshot();
  EXPECT_EQ(s.phases, std::vector<std::string>{"LBCAST"});
  EXPECT_EQ(s.waiting_for, std::vector<int>{2});
  a.begin(Activity::kRs);  // and the row swap along my column: rank 1
  s = a.snapshot();
  EXPECT_EQ(s.phases, (std::vector<std::string>{"LBCAST", "RS"}));
  EXPECT_EQ(s.waiting_for, (std::vector<int>{1, 2}));
  a.end(Activity::kRs);
  a.end(Activity::kLbcast);
  a.begin(Activity::kUpdate);  // local work: nobody
  EXPECT_TRUE(a.snapshot().waiting_for.empty());
  a.end(Activity::kUpdate);
  // Between phases: at one of the grid's collectives.
  EXPECT_EQ(a.snapshot().waiting_for, (std::vector<int>{0, 1, 2}));
}

TEST(Activity, PhaseNamesRoundTrip) {
  for (int p = 0; p < Activity::kPhases; ++p) {
    const auto phase = static_cast<Activity::Phase>(p);
    EXPECT_EQ(Activity::phase_of(Activity::phase_name(phase)), phase);
  }
  EXPECT_EQ(Activity::phase_of("TRANSFER"), Activity::kOther);
}

TEST(WatchdogLimit, AutomaticIsTwentyLongestStepsAtLeastSixtySeconds) {
  WatchdogOptions o;
  EXPECT_DOUBLE_EQ(watchdog_limit(o, 0), 60);
  EXPECT_DOUBLE_EQ(watchdog_limit(o, 2.5), 60);
  EXPECT_DOUBLE_EQ(watchdog_limit(o, 10), 200);
  o.limit_s = 7;
  EXPECT_DOUBLE_EQ(watchdog_limit(o, 10), 7);
  o.limit_s = 0;
  EXPECT_DOUBLE_EQ(watchdog_limit(o, 10), 0);
}

TEST(WatchdogVerdict, SaysWhereTheRankStoppedAndWhomItWaitedFor) {
  FakeClock c;
  Activity a(c.clock());
  a.begin_test(2, 8, "WR11C2R4 N=3000 NB=192 P=2 Q=2", two_by_two_rank_3());
  a.closed_iteration(6, 16);
  a.begin(Activity::kLbcast);
  WatchdogOptions o;
  o.rank = 3;
  o.limit_s = 3;
  c.t += 2.9;
  EXPECT_FALSE(watchdog_verdict(o, a.snapshot(), c.t, 3));
  c.t += 0.2;
  const auto v = watchdog_verdict(o, a.snapshot(), c.t, 3);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v,
            "rank 3 has made no progress for 3.1 s (limit 3 s, --watchdog): test 2 of 8 "
            "(WR11C2R4 N=3000 NB=192 P=2 Q=2), iteration 7 of 16, in LBCAST; waiting for rank 2");
}

TEST(WatchdogVerdict, NeverFiresWhenOffOrIdle) {
  FakeClock c;
  Activity a(c.clock());
  WatchdogOptions o;
  c.t += 1e6;
  EXPECT_FALSE(watchdog_verdict(o, a.snapshot(), c.t, 0));  // off
  a.set_idle(true);
  EXPECT_FALSE(watchdog_verdict(o, a.snapshot(), c.t, 10));
  a.set_idle(false);
  EXPECT_FALSE(watchdog_verdict(o, a.snapshot(), c.t, 10));  // the clock restarted
}

TEST(WatchdogVerdict, BeforeTheFirstTest) {
  FakeClock c;
  Activity a(c.clock());
  c.t += 61;
  const auto v = watchdog_verdict({}, a.snapshot(), c.t, 60);
  ASSERT_TRUE(v);
  EXPECT_NE(v->find("20x its longest step, at least 60 s): before the first test"),
            std::string::npos)
      << *v;
}

// The thread: fires once on a rank that stops marking, within about a tenth
// of the limit after it; never on one that keeps marking.
TEST(Watchdog, FiresOnAStoppedRankOnly) {
  Activity a;
  WatchdogOptions o;
  o.limit_s = 1.0;
  std::atomic<int> fired{0};
  std::string said;
  {
    Watchdog w(a, o, [&](const std::string& v, double limit) {
      said = v;
      EXPECT_DOUBLE_EQ(limit, 1.0);
      ++fired;
    });
    ASSERT_TRUE(w.enabled());
    for (int i = 0; i < 20; ++i) {  // 1 s of progress every 50 ms
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      a.mark();
    }
    EXPECT_EQ(fired, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));  // stopped
  }
  EXPECT_EQ(fired, 1);
  EXPECT_NE(said.find("has made no progress for 1."), std::string::npos) << said;
}

TEST(Watchdog, OffStartsNoThread) {
  Activity a;
  WatchdogOptions o;
  o.limit_s = 0;
  Watchdog w(a, o, [](const std::string&, double) { FAIL() << "fired while off"; });
  EXPECT_FALSE(w.enabled());
}

}  // namespace
}  // namespace hplx
