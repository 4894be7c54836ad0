// The live progress line: the plain lines at every 10% of the work (or 10 s),
// the refreshing terminal line and its rate limit, the ETA, and silence when
// disabled. A fake clock drives time; the output goes to a memory stream.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "core/progress.hpp"

namespace hplx {
namespace {

// An in-memory FILE* whose text can be read back.
class Capture {
 public:
  Capture() : file_(open_memstream(&buf_, &len_)) {}
  ~Capture() {
    if (file_) std::fclose(file_);
    std::free(buf_);
  }
  FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buf_, len_);
  }

 private:
  char* buf_ = nullptr;
  size_t len_ = 0;
  FILE* file_;
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t p; (p = text.find('\n', start)) != std::string::npos; start = p + 1)
    out.push_back(text.substr(start, p - start));
  return out;
}

struct FakeClock {
  double t = 100.0;
  ProgressMeter::Clock fn() {
    return [this] { return t; };
  }
};

ProgressMeter::Options plain(Capture& out, FakeClock& clock) {
  ProgressMeter::Options o;
  o.out = out.file();
  o.terminal = false;
  o.clock = clock.fn();
  return o;
}

TEST(Progress, PlainLinesExactlyAtEachTenPercentOfTheWork) {
  Capture out;
  FakeClock clock;
  ProgressMeter meter("hplx lu N=1000", 1000.0, plain(out, clock));
  std::vector<int> printed_after;  // percent done when a line appeared
  size_t seen = 0;
  for (int i = 1; i <= 100; ++i) {
    clock.t += 0.04;  // 4 s in all: the 10 s rule never fires
    meter.update(10.0 * i, i, 100, 12.5);
    const size_t now = lines(out.text()).size();
    if (now != seen) printed_after.push_back(i);
    seen = now;
  }
  meter.finish();
  EXPECT_EQ(printed_after, (std::vector<int>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
  const auto ls = lines(out.text());
  ASSERT_EQ(ls.size(), 10u);  // finish() adds nothing after the 100% line
  EXPECT_EQ(ls[2],
            "hplx lu N=1000:  30.0% of flops, iteration 30/100, 12.50 Gflops, "
            "elapsed 1s, ETA 3s");
  EXPECT_NE(ls[9].find("100.0% of flops, iteration 100/100"), std::string::npos);
  EXPECT_EQ(out.text().find('\r'), std::string::npos);
}

TEST(Progress, OneLineWhenAnUpdateJumpsSeveralSteps) {
  Capture out;
  FakeClock clock;
  ProgressMeter meter("x", 100.0, plain(out, clock));
  meter.update(35, 1, 4, 1);  // crosses 10, 20, 30: one line
  meter.update(39, 2, 4, 1);  // below 40: nothing
  meter.update(41, 3, 4, 1);  // crosses 40
  EXPECT_EQ(lines(out.text()).size(), 2u);
}

TEST(Progress, PlainLineEveryTenSecondsWhenWorkIsSlow) {
  Capture out;
  FakeClock clock;
  ProgressMeter meter("x", 1000.0, plain(out, clock));
  // 1% of the work every 3 s: the 10% threshold takes 30 s, the clock rule fires first.
  for (int i = 1; i <= 9; ++i) {
    clock.t += 3.0;
    meter.update(10.0 * i, i, 100, 1.0);
  }
  // Lines at 12 s (4 updates), 24 s (8 updates).
  EXPECT_EQ(lines(out.text()).size(), 2u);
  EXPECT_NE(out.text().find("elapsed 12s"), std::string::npos);
  EXPECT_NE(out.text().find("elapsed 24s"), std::string::npos);
}

TEST(Progress, EtaIsTheRemainingWorkAtTheRateSoFar) {
  Capture out;
  FakeClock clock;
  ProgressMeter meter("x", 400.0, plain(out, clock));
  clock.t += 30.0;
  meter.update(100.0, 5, 20, 3.0);  // 25% in 30 s: 90 s to go
  EXPECT_NE(out.text().find(" 25.0% of flops, iteration 5/20, 3.00 Gflops, elapsed 30s, ETA 1m30s"),
            std::string::npos)
      << out.text();
}

TEST(Progress, FormatDuration) {
  EXPECT_EQ(ProgressMeter::format_duration(0.4), "0s");
  EXPECT_EQ(ProgressMeter::format_duration(59.4), "59s");
  EXPECT_EQ(ProgressMeter::format_duration(185), "3m05s");
  EXPECT_EQ(ProgressMeter::format_duration(7620), "2h07m");
  EXPECT_EQ(ProgressMeter::format_duration(-1), "?");
}

TEST(Progress, TerminalRedrawsOneLineAtMostFiveTimesASecond) {
  Capture out;
  FakeClock clock;
  ProgressMeter::Options o;
  o.out = out.file();
  o.terminal = true;
  o.clock = clock.fn();
  ProgressMeter meter("x", 1000.0, o);
  for (int i = 1; i <= 100; ++i) {  // 100 updates over 1 s
    clock.t += 0.01;
    meter.update(10.0 * i, i, 100, 2.0);
  }
  const std::string before = out.text();
  EXPECT_EQ(before.find('\n'), std::string::npos);  // one line, redrawn
  size_t draws = 0;
  for (char c : before) draws += c == '\r';
  EXPECT_GE(draws, 5u);
  EXPECT_LE(draws, 6u);
  EXPECT_NE(before.find("\x1b[K"), std::string::npos);  // clears what a longer line left
  meter.finish();
  const std::string after = out.text();
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.back(), '\n');
  // The last state is drawn before the newline.
  EXPECT_NE(after.rfind("100.0% of flops  iteration 100/100"), std::string::npos);
  meter.finish();  // idempotent
  EXPECT_EQ(out.text(), after);
}

TEST(Progress, DisabledPrintsNothing) {
  Capture out;
  FakeClock clock;
  for (bool terminal : {false, true}) {
    ProgressMeter::Options o = plain(out, clock);
    o.terminal = terminal;
    o.enabled = false;
    ProgressMeter meter("x", 10.0, o);
    for (int i = 1; i <= 10; ++i) {
      clock.t += 20;
      meter.update(i, i, 10, 1);
    }
    meter.finish();
  }
  EXPECT_EQ(out.text(), "");
}

TEST(Progress, NotATerminalByDefaultForAFile) {
  Capture out;
  ProgressMeter::Options o;
  o.out = out.file();
  ProgressMeter meter("x", 1.0, o);
  EXPECT_FALSE(meter.terminal());
}

}  // namespace
}  // namespace hplx
