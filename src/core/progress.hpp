// Live progress of a long run on stderr, never on stdout (stdout carries the
// netlib-format output that parsers read).
//
// On a terminal: one line redrawn in place ("\r" ... "\x1b[K"), at most
// every `min_redraw_s` (0.2 s) so a fast loop does not flood the terminal:
//   hplx lu N=12000:  42.1% of flops  iteration 20/94  10.31 Gflops  elapsed 47s  ETA 1m05s
// Elsewhere (a log file, CI): a plain line each time the work done crosses
// another 10% of the total, or when 10 s passed since the last line,
// whichever comes first:
//   hplx lu N=12000: 42.1% of flops, iteration 20/94, 10.31 Gflops, elapsed 47s, ETA 1m05s
// "Work" is the caller's unit; the LU passes flops, so the percentage is of
// the flops (LU front-loads them: 50% of the flops are done after about 20%
// of the iterations). ETA = elapsed * (total - done) / done, the remaining
// work at the rate so far.
//
// Only the caller decides who prints: the LU driver gives rank 0 an enabled
// meter and the other ranks a disabled one (or none).
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>

namespace hplx {

class ProgressMeter {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic

  struct Options {
    FILE* out = stderr;
    bool enabled = true;           // false (--quiet): print nothing at all
    std::optional<bool> terminal;  // unset: isatty(fileno(out))
    Clock clock;                   // unset: hplx::wall_time
    double min_redraw_s = 0.2;     // terminal: at most 5 redraws per second
    double plain_every_s = 10.0;   // not a terminal: a line at least this often...
    double plain_step = 0.1;       // ...and each time another 10% of the work is done
    double silent_first_s = 0.0;   // nothing at all before this much time has passed
  };

  // Starts the clock. `total_work` > 0 (e.g. the LU's flops).
  ProgressMeter(std::string label, double total_work, Options options);
  ProgressMeter(std::string label, double total_work) : ProgressMeter(label, total_work, {}) {}

  // The state after an iteration: `work_done` of the total so far,
  // `iteration` of `n_iterations` done, the running rate in Gflops.
  void update(double work_done, long iteration, long n_iterations, double gflops);

  // Ends the progress output: on a terminal, redraws the last state and ends
  // the line; elsewhere, prints the last state unless it was just printed.
  // Idempotent; update() after finish() prints nothing.
  void finish();

  bool enabled() const { return enabled_; }
  bool terminal() const { return terminal_; }

  // "45s", "3m05s", "2h07m" (what the progress line prints).
  static std::string format_duration(double seconds);

 private:
  std::string describe(const char* sep) const;
  void print_line();

  std::string label_;
  double total_;
  FILE* out_;
  bool enabled_;
  bool terminal_;
  Clock clock_;
  double min_redraw_s_, plain_every_s_, plain_step_, silent_first_s_;
  double start_;
  double last_print_;     // clock time of the last line/redraw (or the start)
  double next_fraction_;  // plain mode: print when done/total reaches this
  bool pending_ = false;  // an update not yet printed
  bool finished_ = false;
  bool drew_ = false;  // terminal: a line is open
  // The last update's state.
  double done_ = 0, gflops_ = 0, now_ = 0;
  long iteration_ = 0, n_iterations_ = 0;
};

}  // namespace hplx
