#include "core/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/timer.hpp"

namespace hplx {

ProgressMeter::ProgressMeter(std::string label, double total_work, Options options)
    : label_(std::move(label)),
      total_(total_work > 0 ? total_work : 1.0),
      out_(options.out),
      enabled_(options.enabled && options.out != nullptr),
      terminal_(options.terminal ? *options.terminal
                                 : (options.out && ::isatty(::fileno(options.out)) == 1)),
      clock_(options.clock ? options.clock : Clock(wall_time)),
      min_redraw_s_(options.min_redraw_s),
      plain_every_s_(options.plain_every_s),
      plain_step_(options.plain_step > 0 ? options.plain_step : 0.1),
      silent_first_s_(options.silent_first_s),
      start_(clock_()),
      next_fraction_(plain_step_) {
  now_ = start_;
  last_print_ = start_;
}

std::string ProgressMeter::format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string ProgressMeter::describe(const char* sep) const {
  const double fraction = std::clamp(done_ / total_, 0.0, 1.0);
  const double elapsed = now_ - start_;
  const std::string eta =
      fraction > 0 ? format_duration(elapsed * (1.0 - fraction) / fraction) : std::string("?");
  return fmt::format("{}: {:5.1f}% of flops{}iteration {}/{}{}{:.2f} Gflops{}elapsed {}{}ETA {}",
                     label_, 100.0 * fraction, sep, iteration_, n_iterations_, sep, gflops_, sep,
                     format_duration(elapsed), sep, eta);
}

void ProgressMeter::print_line() {
  if (terminal_) {
    // \r back to column 0, the line, then erase whatever a longer line left.
    std::fprintf(out_, "\r%s\x1b[K", describe("  ").c_str());
    drew_ = true;
  } else {
    std::fprintf(out_, "%s\n", describe(", ").c_str());
  }
  std::fflush(out_);
  last_print_ = now_;
  pending_ = false;
}

void ProgressMeter::update(double work_done, long iteration, long n_iterations, double gflops) {
  if (!enabled_ || finished_) return;
  done_ = work_done;
  iteration_ = iteration;
  n_iterations_ = n_iterations;
  gflops_ = gflops;
  now_ = clock_();
  pending_ = true;
  // A short run shows no progress at all: its result follows at once.
  const bool silent = now_ - start_ < silent_first_s_;
  if (terminal_) {
    if (silent) return;
    if (!drew_ || now_ - last_print_ >= min_redraw_s_) print_line();
    return;
  }
  const double fraction = work_done / total_;
  const bool crossed = fraction >= next_fraction_ - 1e-12;
  if (crossed) {
    // One line even when a single update crosses several steps.
    while (next_fraction_ <= fraction + 1e-12) next_fraction_ += plain_step_;
  }
  if (!silent && (crossed || now_ - last_print_ >= plain_every_s_)) print_line();
}

void ProgressMeter::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  if (clock_() - start_ < silent_first_s_) return;
  if (terminal_) {
    if (pending_ || !drew_) print_line();
    std::fputc('\n', out_);
    std::fflush(out_);
  } else if (pending_) {
    print_line();
  }
}

}  // namespace hplx
