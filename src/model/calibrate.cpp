#include "model/calibrate.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/json_record.hpp"
#include "core/system_info.hpp"
#include "core/threads.hpp"
#include "core/timer.hpp"
#include "device/host/host_backend.hpp"
#include "device/host_blas.hpp"
#include "model/calibration_rounds.hpp"

namespace hplx::model {
namespace host_blas = device::host_blas;
namespace {

constexpr long kChunk = 256;  // hplx lu's update chunk (PanelApplier::kChunkColumns)
constexpr std::array<device::RowCopy, device::kRowCopyKinds> kRowCopies = {
    device::RowCopy::Swap, device::RowCopy::Gather, device::RowCopy::Scatter,
    device::RowCopy::BlockGather, device::RowCopy::BlockStore};
// Seconds the DGEMM rate is averaged over (DTRSM: a quarter), see
// undisturbed_mean; scaled down with the work for a small --size.
constexpr double kMinSeconds = 4.0;
double min_seconds(long m) {
  return kMinSeconds * std::min(1.0, std::pow(static_cast<double>(m) / 4000.0, 3));
}

double cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Two kinds of noise on a shared machine. Other processes of this machine
// taking this rank's cpus: a repetition of 20 ms or more counts only when
// this process got at least 85% of `threads` cpus over its wall time (its
// CPU time says so). And the rate itself wanders by +-10% over tens of seconds with no
// process of this machine to blame (the host's other tenants): a long run
// sees the average, so a term's rounds together span at least the term's
// seconds of undisturbed repetitions (`min_seconds` here is one round's
// share), and one round returns their mean time. Runs `prepare`
// untimed and `work` timed after one warm-up, until `reps` undisturbed
// repetitions and `min_seconds`, or 4x as many tries; the mean of all
// repetitions when none was undisturbed. `disturbed` counts those left out.
template <class Prepare, class Work>
double undisturbed_mean(int threads, int reps, double min_seconds, int& disturbed, Prepare prepare,
                        Work work) {
  prepare();
  work();  // warms the thread pools and the caches
  std::vector<double> good, all;
  double good_s = 0, all_s = 0;
  for (int tries = 0;; ++tries) {
    const bool enough = static_cast<int>(good.size()) >= reps && good_s >= min_seconds;
    const bool too_long = tries >= 4 * reps && all_s >= 4 * min_seconds;
    if (enough || too_long) break;
    prepare();
    const double c0 = cpu_time(), t0 = wall_time();
    work();
    const double t = wall_time() - t0, c = cpu_time() - c0;
    all.push_back(t);
    all_s += t;
    // Below 20 ms the CPU clock says little (threads waking up, the last
    // chunk's imbalance), and a short window is rarely disturbed.
    if (t < 0.02 || c >= 0.85 * threads * t) {
      good.push_back(t);
      good_s += t;
    } else {
      ++disturbed;
    }
  }
  const std::vector<double>& use = good.empty() ? all : good;
  double sum = 0;
  for (double t : use) sum += t;
  return sum / static_cast<double>(use.size());
}

// A term measured in rounds (CalibrationRounds): each call measures one round
// over `min_s` seconds. The buffers live as long as the term, so a round
// pays no allocation.
using Term = std::function<double()>;

// Buffers of a DGEMM C (m x m) -= A (m x k) B (k x m), on allocate_host's
// huge pages as the run's matrix and panels are. `b` is k x m, or m x k
// (U, transposed) for the update's one call.
struct GemmBuffers {
  GemmBuffers(long m_, int k_) : m(m_), k(k_) {
    a.resize(static_cast<size_t>(m) * k);
    b.resize(static_cast<size_t>(k) * m);
    c.resize(static_cast<size_t>(m) * m);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = 0.5 - static_cast<double>((i * 7919) % 1000) / 1000.0;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = 0.5 - static_cast<double>((i * 104729) % 1000) / 1000.0;
    for (size_t i = 0; i < c.size(); ++i) c[i] = 1.0;
  }
  long m;
  int k;
  device::HostVector<double> a, b, c;
};

// DGEMM C (m x m) -= A (m x k) B (k x m) in column chunks of 256
// (PanelApplier's kChunkColumns; each call packs A again), mean of the
// undisturbed reps: what a run sees, not the best case. `dealt` false: each
// chunk is one DGEMM call on `threads` BLAS threads (a threaded BLAS's own
// split, netlib HPL's way). `dealt` true: hplx lu's update, the chunks dealt
// over `threads` OpenMP threads, one-thread BLAS each (PanelApplier beside
// FACT; the narrow update splits rows the same way). GFLOPS.
Term dgemm_term(long m, int k, int threads, bool dealt, int reps, double min_s, int& disturbed) {
  auto g = std::make_shared<GemmBuffers>(m, k);
  return [g, threads, dealt, reps, min_s, &disturbed] {
    set_thread_counts(threads, dealt ? 1 : threads);
    const long m = g->m, k = g->k, chunks = (m + kChunk - 1) / kChunk;
    auto chunk = [&](long i) {
      const long j = i * kChunk, w = std::min(kChunk, m - j);
      host_blas::gemm(host_blas::Trans::No, host_blas::Trans::No, m, w, k, -1.0, g->a.data(), m,
                      g->b.data() + j * k, k, 1.0, g->c.data() + j * m, m);
    };
    // Dealt, the threads' busy time (their chunks only) over the wall time
    // of the round's repetitions: the model charges the last chunks'
    // imbalance apart (t_tail), so the rate leaves out this measurement's own
    // tail (16 chunks on 2 threads at M = 4000: about 3% of the wall) and the
    // fork/join.
    double busy = 0, wall = 0;
    const double t = undisturbed_mean(
        threads, reps, min_s, disturbed, [] {},
        [&] {
          if (dealt) {
            const double w0 = wall_time();
#pragma omp parallel num_threads(threads) reduction(+ : busy)
            {
              const double b0 = wall_time();
#pragma omp for schedule(dynamic) nowait
              for (long i = 0; i < chunks; ++i) chunk(i);
              busy += wall_time() - b0;
            }
            wall += wall_time() - w0;
          } else {
            for (long i = 0; i < chunks; ++i) chunk(i);
          }
        });
    const double busy_share = dealt && wall > 0 ? std::min(1.0, busy / threads / wall) : 1.0;
    return 2.0 * m * m * k / (t * busy_share) / 1e9;
  };
}

// Standard deviation over mean of `v` (0 for fewer than two values).
double relative_spread(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= static_cast<double>(v.size() - 1);
  return mean > 0 ? std::sqrt(var) / mean : 0;
}

// The update's DGEMM as one thread runs it once nothing needs moving on:
// one call over all the columns (PanelApplier::apply's one piece), with U
// transposed (hplx's default form): C (m x m) -= A (m x k) U^T, U m x k.
// Here it ran at about 76 Gflop/s where 256-column chunks ran at 72 (4 KiB pages, one
// thread beside another, M = N = 4000, K = 192). The same product in
// 256-column calls (as the update runs while a broadcast needs moving on)
// gives what each call's packing of A costs: the chunks' extra time over
// the one call's, per element of A packed again; the two are timed one
// after the other in the same round (the pack term needs the one-call
// term), so a slow stretch of the machine lands on both.
// And the spread of one 256-column call's time around its mean (standard
// deviation over mean), over at least 32 undisturbed calls and half the
// DGEMM's seconds: what a simulated rank's calls vary by (hplx sim).
struct OnePieceTerms {
  Term gflops, pack_ns_per_word, call_cv;
};

OnePieceTerms one_piece_terms(long m, int k, int reps, double min_s, int& disturbed) {
  auto g = std::make_shared<GemmBuffers>(m, k);
  auto one_s = std::make_shared<double>(0.0);  // this round's one call
  auto columns = [g](long j, long w) {
    host_blas::gemm(host_blas::Trans::No, host_blas::Trans::Yes, g->m, w, g->k, -1.0, g->a.data(),
                    g->m, g->b.data() + j, g->m, 1.0, g->c.data() + j * g->m, g->m);
  };
  const long chunks = (m + kChunk - 1) / kChunk;
  OnePieceTerms t;
  t.gflops = [=, &disturbed] {
    set_thread_counts(1, 1);
    *one_s = undisturbed_mean(
        1, reps, min_s, disturbed, [] {}, [&] { columns(0, m); });
    return 2.0 * m * m * k / *one_s / 1e9;
  };
  t.pack_ns_per_word = [=, &disturbed] {
    set_thread_counts(1, 1);
    const double chunked = undisturbed_mean(
        1, reps, min_s / 2, disturbed, [] {},
        [&] {
          for (long i = 0; i < chunks; ++i) columns(i * kChunk, std::min(kChunk, m - i * kChunk));
        });
    if (chunks <= 1) return 0.0;
    return std::max(0.0, (chunked - *one_s) / (static_cast<double>(chunks - 1) * m * k) * 1e9);
  };
  t.call_cv = [=, &disturbed] {
    set_thread_counts(1, 1);
    const long whole = m / kChunk;  // calls of the full width only
    if (whole < 1) return 0.0;
    // Only calls that had the core all along (their CPU time says so): a
    // call another process interrupted varies by the machine's load, not
    // by the DGEMM.
    std::vector<double> calls;
    double spent = 0;
    for (long i = 0; (calls.size() < 32 || spent < min_s / 2) && spent < 4 * min_s;
         i = (i + 1) % whole) {
      const double c0 = cpu_time(), t0 = wall_time();
      columns(i * kChunk, kChunk);
      const double t = wall_time() - t0;
      spent += t;
      if (cpu_time() - c0 >= 0.95 * t)
        calls.push_back(t);
      else
        ++disturbed;
    }
    return relative_spread(calls);
  };
  return t;
}

// DTRSM as the update runs it in hplx's default forms (L1 and U
// transposed): U^T (n x NB, leading dimension n) times the inverse of
// L11^T, an NB x NB unit upper triangle. With one thread in one call over
// all n columns, as the update in one piece runs it; with more, in
// 256-column chunks dealt over the threads, as the update beside FACT runs
// them. One call ran at 16.3 Gflop/s here where 256-column chunks of the
// untransposed form (this function's earlier shape) ran at 10.2, and the
// runs' DTRSM took 0.48 s where that rate charged 0.72 (2x1, N = 10000).
Term trsm_term(long n, int b, int threads, int reps, double min_s, int& disturbed) {
  struct Buffers {
    device::HostVector<double> l, u;
  };
  auto s = std::make_shared<Buffers>();
  s->l.assign(static_cast<size_t>(b) * b, 0.0);
  s->u.assign(static_cast<size_t>(n) * b, 0.25);
  for (int j = 0; j < b; ++j)
    for (int i = 0; i < j; ++i) s->l[static_cast<size_t>(j) * b + i] = 0.01;
  return [s, n, b, threads, reps, min_s, &disturbed] {
    set_blas_threads(1);
    const long chunk = threads > 1 ? kChunk : n;
    const long chunks = (n + chunk - 1) / chunk;
    const double t = undisturbed_mean(
        threads, reps, min_s, disturbed, [] {},
        [&] {
#pragma omp parallel for num_threads(threads) schedule(dynamic)
          for (long c = 0; c < chunks; ++c) {
            const long j = c * chunk, w = std::min(chunk, n - j);
            host_blas::trsm(host_blas::Side::Right, host_blas::Uplo::Upper, host_blas::Trans::No,
                            host_blas::Diag::Unit, w, b, 1.0, s->l.data(), b, s->u.data() + j, n);
          }
        });
    return static_cast<double>(b) * b * n / t / 1e9;
  };
}

// The rows of the square matrix the row copies are timed on: at least
// `size`, and twice the last-level cache (sysconf; 32 MiB where unknown)
// in all. A run's matrix is far larger than the cache, and its row copies
// miss in it: on a VM with 260 MiB of L3, a 4000 x 4000 matrix (122 MiB)
// timed the diagonal block's gather at 1.6 ns per element where the run's
// took about 3.4 (2x1, N = 10000). A --size below 2000 asks for a quick
// calibration (the tests'): its matrix stays size x size.
long row_copy_rows(long size) {
  if (size < 2000) return size;
  long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (cache <= 0) cache = 32L << 20;
  const long rows = static_cast<long>(std::ceil(std::sqrt(2.0 * static_cast<double>(cache) / 8.0)));
  return std::max(size, (rows + 255) / 256 * 256);
}

// One of the row swap's copies (the caller's phases.row_copy: hplx lu's own
// kernels, src/lu/run/phase_timing.hpp) of b rows of an m x m matrix over n
// columns, in 256-column chunks dealt over `threads` threads; nanoseconds
// per element moved (b n), mean of the round's undisturbed reps. Each
// round makes its matrix and frees it: kept over the rounds, the matrices
// of every kind and thread count (512 MiB each where the cache is large)
// would be held at once.
Term row_copy_term(const LuPhaseTimings& phases, device::RowCopy kind, long m, long n, int b,
                   int threads, int reps, double min_s, int& disturbed) {
  return [make = phases.row_copy, kind, m, n, b, threads, reps, min_s, &disturbed] {
    const TimedWork copy = make(kind, m, n, b, threads);
    set_blas_threads(1);
    const double t = undisturbed_mean(threads, reps, min_s, disturbed, copy.prepare, copy.run);
    return t / (static_cast<double>(b) * n) * 1e9;
  };
}

// FACT as hplx lu runs it on one thread (the caller's phases.fact): the
// M x NB panel of `src` (leading dimension m_max) copied out, factored and
// copied back, on thread 0 of this rank, with a second thread (when the
// rank may use two cpus) running 1-thread DGEMM at the update's shape
// meanwhile: in a run FACT always has a neighbour computing (the other
// threads of its rank with --fact-overlap, or the other ranks). Seconds,
// the mean of the round's undisturbed repetitions.
Term fact_term(const LuPhaseTimings& phases, std::shared_ptr<const std::vector<double>> src,
               long m_max, long m, int b, long size, int reps, bool neighbour, double min_s,
               int& disturbed) {
  auto work = std::make_shared<TimedWork>(phases.fact(*src, m_max, m, b));
  // The neighbour's DGEMM: one 256-column call of the update, again and again.
  struct Side {
    std::vector<double> a, b, c;
  };
  auto side = std::make_shared<Side>();
  side->a.assign(static_cast<size_t>(size) * b, 0.1);
  side->b.assign(static_cast<size_t>(b) * kChunk, 0.2);
  side->c.assign(static_cast<size_t>(size) * kChunk, 1.0);
  return [src, work, side, size, b, reps, neighbour, min_s, &disturbed] {
    set_blas_threads(1);
    std::atomic<bool> done{false};
    double t = 0;
#pragma omp parallel num_threads(neighbour ? 2 : 1)
    {
      if (omp_get_thread_num() == 0) {
        // The neighbour thread's CPU time counts too: 2 cpus when it runs.
        t = undisturbed_mean(neighbour ? 2 : 1, reps, min_s, disturbed, work->prepare, work->run);
        done = true;
      } else {
        while (!done)
          host_blas::gemm(host_blas::Trans::No, host_blas::Trans::No, size, kChunk, b, -1.0,
                          side->a.data(), size, side->b.data(), b, 1.0, side->c.data(), size);
      }
    }
    return t;
  };
}

// FACT's fit t = NB lambda_f + flops / R_f through the sizes' medians.
void fit_fact(Calibration& c, int nb) {
  std::vector<double> xs, ys, ws;
  const double b = nb;
  for (const auto& [m, t] : c.fact_points) {
    xs.push_back(static_cast<double>(m) * b * b - b * b * b / 3.0);
    ys.push_back(t);
    ws.push_back(1.0 / (t * t));
  }
  if (xs.size() < 2) return;
  auto [a0, slope] = fit_line(xs, ys, ws);
  if (a0 < 0 || slope <= 0) {
    // No latency to fit: the rate of all the points together.
    double fx = 0, ft = 0;
    for (size_t i = 0; i < xs.size(); ++i) fx += xs[i], ft += ys[i];
    a0 = 0;
    slope = ft / fx;
  }
  c.fact_column_s = a0 / b;
  c.fact_gflops = 1.0 / slope / 1e9;
}

// A barrier that sleeps instead of spinning, so a rank waiting for rank 0's
// DGEMM does not take a core from it.
void quiet_barrier(MPI_Comm comm) {
  MPI_Request req;
  MPI_Ibarrier(comm, &req);
  int done = 0;
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) usleep(2000);
  }
}

std::string threads_text(int t) {
  return fmt::format("{} thread{}", t, t == 1 ? "" : "s");
}

// One phase of the calibration: its terms in rounds, where each median goes
// in the Calibration, and the checks among its terms.
struct Phase {
  explicit Phase(int rounds) : rounds(rounds) {}
  CalibrationRounds rounds;
  // key -> how to print the median, where to store it
  std::map<std::string, std::function<std::string(double)>> text;
  std::map<std::string, std::function<void(Calibration&, double)>> store;
  void add(const std::string& key, const std::string& label, Term measure,
           std::function<std::string(double)> show, std::function<void(Calibration&, double)> put,
           std::vector<std::string> needs = {}) {
    rounds.add(key, label, std::move(measure), std::move(needs));
    text[key] = std::move(show);
    store[key] = std::move(put);
  }
};

std::string gflops_text(double g) {
  return fmt::format("{:.2f} GFLOPS", g);
}
std::string ns_text(double ns) {
  return fmt::format("{:.3f} ns per word", ns);
}

// The terms measured at `t` threads. `wrap` turns a measurement into the
// phase's: as it is on rank 0 alone, or on every rank at once with the
// slowest rank's value (`slow_is_low`: a rate; else a time).
void add_thread_terms(Phase& ph, const CalibrateOptions& opt, const LuPhaseTimings& phases, int t,
                      int& disturbed, const std::function<Term(Term, bool)>& wrap,
                      const std::string& where) {
  const int reps = opt.repetitions, R = opt.rounds;
  const double s = min_seconds(opt.size) / R;  // today's seconds, split over the rounds
  const long m = opt.size;
  const int k = opt.nb;
  ph.add(fmt::format("dgemm_{}", t), fmt::format("DGEMM {}{}", threads_text(t), where),
         wrap(dgemm_term(m, k, t, false, reps, s, disturbed), true), gflops_text,
         [t](Calibration& c, double v) { c.dgemm_gflops.emplace_back(t, v); });
  const std::string upd = fmt::format("update_{}", t);
  auto put_update = [t](Calibration& c, double v) { c.update_gflops.emplace_back(t, v); };
  if (t == 1) {
    // One thread deals nothing: the update in one piece.
    OnePieceTerms one = one_piece_terms(m, k, reps, s, disturbed);
    ph.add(upd, "update 1 thread (one DGEMM call)" + where, wrap(one.gflops, true), gflops_text,
           put_update);
    ph.add(
        "dgemm_pack", "DGEMM's packing of A, per call" + where, wrap(one.pack_ns_per_word, false),
        [](double ns) { return fmt::format("{:.4f} ns per word", ns); },
        [](Calibration& c, double v) { c.dgemm_pack_ns_per_word = v; }, {upd});
    ph.add(
        "dgemm_cv", "DGEMM 256-column call's time, sd / mean" + where, wrap(one.call_cv, false),
        [](double cv) { return fmt::format("{:.2f}%", 100 * cv); },
        [](Calibration& c, double v) { c.dgemm_call_cv = v; });
  } else {
    ph.add(upd,
           fmt::format("DGEMM {}, chunks dealt over the threads (hplx lu's update){}",
                       threads_text(t), where),
           wrap(dgemm_term(m, k, t, true, reps, s, disturbed), true), gflops_text, put_update);
  }
  ph.add(fmt::format("trsm_{}", t), fmt::format("DTRSM of U {}{}", threads_text(t), where),
         wrap(trsm_term(m, k, t, reps, s / 4, disturbed), true), gflops_text,
         [t](Calibration& c, double v) { c.trsm_gflops.emplace_back(t, v); });
  for (device::RowCopy kind : kRowCopies) {
    const std::string name = device::row_copy_name(kind);
    // A quarter second (at --size 4000) of 5 ms repetitions in all: five of
    // them gave 5.3 to 7.8 ns per word in one calibration against another.
    ph.add(fmt::format("{}_{}", name, t), fmt::format("row {} {}{}", name, threads_text(t), where),
           wrap(row_copy_term(phases, kind, row_copy_rows(m), m, k, t, reps, s / 16, disturbed),
                false),
           ns_text,
           [kind, t](Calibration& c, double v) { c.row_copy_ns[kind].emplace_back(t, v); });
  }
}

// The checks among a phase's terms (docs/MODEL.md, "Checks").
std::vector<TermCheck> phase_checks(const Phase& ph, const CalibrateOptions& opt) {
  std::vector<TermCheck> checks;
  const CalibrationRounds& r = ph.rounds;
  const long m = opt.size;
  const int k = opt.nb;
  if (r.has("dgemm_1") && r.has("update_1") && r.has("dgemm_pack"))
    checks.push_back({{"dgemm_1", "update_1", "dgemm_pack"}, [m, k](const auto& v) {
                        return check_one_call_against_chunks(v.at("update_1"), v.at("dgemm_1"),
                                                             v.at("dgemm_pack"), m, k, kChunk);
                      }});
  // Below 2000 rows (a quick calibration) the row copies run in the cache
  // and the bounds, made for a cache-cold swap, do not hold.
  if (r.has("dgemm_pack") && r.has("swap_1") && row_copy_rows(m) >= 2000)
    checks.push_back({{"dgemm_pack", "swap_1"}, [](const auto& v) {
                        return check_pack_against_swap(v.at("dgemm_pack"), v.at("swap_1"));
                      }});
  // The threaded DGEMM and the dealt update run the 1-thread DGEMM's own
  // 256-column calls, split over the threads.
  if (r.has("dgemm_1"))
    for (const auto& key : r.keys()) {
      int t = 0;
      if (std::sscanf(key.c_str(), "dgemm_%d", &t) == 1 && t > 1)
        checks.push_back({{"dgemm_1", key}, [key, t, label = r.label(key)](const auto& v) {
                            return check_thread_scaling(label, v.at(key), t, v.at("dgemm_1"));
                          }});
      if (std::sscanf(key.c_str(), "update_%d", &t) == 1 && t > 1)
        checks.push_back({{"dgemm_1", key}, [key, t, label = r.label(key)](const auto& v) {
                            return check_thread_scaling(label, v.at(key), t, v.at("dgemm_1"));
                          }});
    }
  return checks;
}

// Runs a phase's rounds and checks; on rank 0 (`keep`), stores the medians,
// their spreads and the printed lines in `c`.
void run_phase(Phase& ph, const CalibrateOptions& opt, Calibration& c, bool keep) {
  // The packing is a small difference of two timings (about a tenth of the
  // one call's time), so its rounds wander far more than a rate's; checks
  // (a) and (b) judge it instead. The call spread is a spread itself.
  const RoundsOutcome out =
      measure_and_check(ph.rounds, phase_checks(ph, opt), kExtraSets, kSpreadWarning,
                        {"dgemm_pack", "dgemm_cv"}, kNoisySets);
  if (!keep) return;
  for (const auto& key : ph.rounds.keys()) {
    const double v = ph.rounds.median_of(key);
    ph.store.at(key)(c, v);
    c.spread[key] = ph.rounds.spread_of(key);
    const bool noisy = std::find(out.noisy.begin(), out.noisy.end(), key) != out.noisy.end();
    c.terms.push_back({key, ph.rounds.label(key), ph.text.at(key)(v),
                       static_cast<int>(ph.rounds.values(key).size()), ph.rounds.sets_of(key),
                       noisy, c.spread[key]});
  }
  c.warnings.insert(c.warnings.end(), out.warnings.begin(), out.warnings.end());
  c.remeasured.insert(c.remeasured.end(), out.remeasured.begin(), out.remeasured.end());
  c.noisy.insert(c.noisy.end(), out.noisy.begin(), out.noisy.end());
}

// A TOML basic string.
std::string quoted(const std::string& text) {
  std::string q = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') q += '\\';
    q += ch;
  }
  return q + "\"";
}

}  // namespace

void check_rounds(int rounds) {
  if (rounds < kMinRounds || rounds > kMaxRounds)
    throw UsageError(fmt::format("--rounds {}: allowed: {}..{} rounds per term", rounds, kMinRounds,
                                 kMaxRounds));
}

std::pair<double, double> fit_line(const std::vector<double>& x, const std::vector<double>& y,
                                   const std::vector<double>& w) {
  const size_t n = x.size();
  if (n < 2 || y.size() != n || (!w.empty() && w.size() != n))
    throw Error("fit_line needs at least two points (and one weight per point)");
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double wi = w.empty() ? 1.0 : w[i];
    sw += wi;
    sx += wi * x[i];
    sy += wi * y[i];
    sxx += wi * x[i] * x[i];
    sxy += wi * x[i] * y[i];
  }
  const double d = sw * sxx - sx * sx;
  const double b = (sw * sxy - sx * sy) / d;
  const double a = (sy - b * sx) / sw;
  return {a, b};
}

namespace {

// This rank's place: its rank, the world's size and the ranks on its node.
struct RankPlace {
  int rank = 0, size = 1;
  int local = 1;
};

RankPlace rank_place(MPI_Comm world) {
  RankPlace at;
  MPI_Comm_rank(world, &at.rank);
  MPI_Comm_size(world, &at.size);
  MPI_Comm node;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &at.local);
  MPI_Comm_free(&node);
  return at;
}

// A Calibration with the run's shape and this machine's name, BLAS kernels
// and memory, nothing measured yet.
Calibration new_calibration(const CalibrateOptions& opt, const RankPlace& at) {
  Calibration c;
  c.ranks = at.size;
  c.ranks_per_node = at.local;
  c.rounds = opt.rounds;
  SystemInfo info = probe_system();
  c.hostname = info.hostname;
  c.blas_kernels = info.blas_kernels;
  c.memory_gib = static_cast<double>(info.mem_total_bytes) / (1024.0 * 1024.0 * 1024.0);
  return c;
}

// Ranks 0 and 1 ping-pong messages of 8 bytes to 8 MiB (the others join the
// barriers only); every rank keeps each size's median one-way time.
void measure_pingpong(MPI_Comm world, int rank, Calibration& c) {
  std::vector<double> buf(1 << 20);  // 8 MiB
  for (long words = 1; words <= (1 << 20); words *= 4) {
    const int reps = words < 1024 ? 200 : words < 65536 ? 50 : 10;
    std::vector<double> times;
    for (int r = 0; r < reps + 2; ++r) {
      MPI_Barrier(world);
      const double t0 = wall_time();
      if (rank == 0) {
        MPI_Send(buf.data(), static_cast<int>(words), MPI_DOUBLE, 1, 7, world);
        MPI_Recv(buf.data(), static_cast<int>(words), MPI_DOUBLE, 1, 7, world, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf.data(), static_cast<int>(words), MPI_DOUBLE, 0, 7, world, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), static_cast<int>(words), MPI_DOUBLE, 0, 7, world);
      }
      if (r >= 2) times.push_back((wall_time() - t0) / 2.0);
    }
    std::sort(times.begin(), times.end());
    const double med = times[times.size() / 2];
    c.pingpong.push_back({static_cast<double>(words) * 8.0, med});
  }
}

// The link's latency and bandwidth: a line through the ping-pong's times,
// and the fit's worst relative error.
void fit_link(Calibration& c) {
  std::vector<double> xs, ys;
  // HPL sends both small messages (pivot rows, 2 NB + 4 words) and large
  // ones (panels), so the fit weighs each size by 1/t^2: it minimises the
  // relative error, and neither end dominates. An unweighted fit would let
  // the 8 MiB message set the latency.
  std::vector<double> ws;
  for (const auto& pt : c.pingpong) {
    xs.push_back(pt.bytes);
    ys.push_back(pt.one_way_s);
    ws.push_back(1.0 / (pt.one_way_s * pt.one_way_s));
  }
  auto [a, b] = fit_line(xs, ys, ws);
  // A noisy fit can put the intercept below zero; the smallest message's
  // time is then the better latency.
  c.alpha_s = a > 0 ? a : c.pingpong.front().one_way_s;
  c.bandwidth_Bps = 1.0 / b;
  for (const auto& pt : c.pingpong) {
    const double model = c.alpha_s + pt.bytes / c.bandwidth_Bps;
    c.fit_max_rel_error = std::max(c.fit_max_rel_error, std::abs(model / pt.one_way_s - 1.0));
  }
}

// The cpus a rank could use, and the threads each rank of a full node gets.
struct ThreadShare {
  int cpus = 1, concurrent = 1;
};

ThreadShare thread_share(int local) {
  ThreadShare sh;
  sh.cpus = static_cast<int>(usable_cpus().size());
  sh.concurrent = std::max(1, sh.cpus / local);
  return sh;
}

// The thread counts rank 0 measures alone: 1 to 4, then doubling, and the
// largest allowed (--max-threads, else every cpu) last.
std::vector<int> thread_counts(const CalibrateOptions& opt, int cpus) {
  int max_t = opt.max_threads > 0 ? opt.max_threads : cpus;
  max_t = std::max(1, max_t);
  std::vector<int> counts;
  for (int t = 1; t <= max_t; t = (t < 4 ? t + 1 : t * 2)) {
    counts.push_back(t);
    if (t < max_t && (t < 4 ? t + 1 : t * 2) > max_t) {
      counts.push_back(max_t);
      break;
    }
  }
  return counts;
}

// Adds FACT's terms to rank 0's phase: one per panel height M, beside a
// DGEMM thread when the rank has two cpus.
void add_fact_terms(Phase& alone, const CalibrateOptions& opt, const LuPhaseTimings& phases,
                    int cpus, Calibration& c) {
  // FACT at several M, each size over a quarter second in all (at --size
  // 4000): five repetitions of 1.5-20 ms gave rates from 11 to 21 GFLOPS
  // in one calibration against another, while the runs' FACT kept one
  // rate within 10%.
  std::vector<long> ms;
  for (long m : {opt.size / 4, opt.size / 2, opt.size, 2 * opt.size})
    if (m > opt.nb) ms.push_back(m);
  if (ms.size() < 2) ms = {2L * opt.nb, 4L * opt.nb};
  const long m_max = ms.back();
  auto src = std::make_shared<std::vector<double>>(static_cast<size_t>(m_max) * opt.nb);
  for (size_t i = 0; i < src->size(); ++i)
    (*src)[i] = 0.5 - static_cast<double>((i * 7919 + i / 977) % 1000) / 1000.0;
  c.fact_beside_dgemm = cpus >= 2;
  for (long m : ms)
    alone.add(
        fmt::format("fact_{}", m),
        fmt::format("FACT M = {} x NB = {}{}", m, opt.nb,
                    c.fact_beside_dgemm ? " (beside a DGEMM thread)" : ""),
        fact_term(phases, src, m_max, m, opt.nb, opt.size, opt.repetitions, c.fact_beside_dgemm,
                  min_seconds(opt.size) / 16 / opt.rounds, c.disturbed_reps),
        [](double t) { return fmt::format("{:.3f} ms", t * 1e3); },
        [m](Calibration& c, double t) { c.fact_points.emplace_back(m, t); });
}

// Rank 0 alone: the terms at each thread count (but the one all ranks
// measure at once, with several ranks) and FACT, then FACT's fit.
void calibrate_alone(const CalibrateOptions& opt, const LuPhaseTimings& phases, int size,
                     const ThreadShare& share, Calibration& c) {
  const std::vector<int> counts = thread_counts(opt, share.cpus);
  Phase alone(opt.rounds);
  auto as_is = [](Term t, bool) { return t; };
  for (int t : counts)
    if (size < 2 || t != share.concurrent)
      add_thread_terms(alone, opt, phases, t, c.disturbed_reps, as_is, "");
  add_fact_terms(alone, opt, phases, share.cpus, c);
  run_phase(alone, opt, c, true);
  fit_fact(c, opt.nb);
}

// All ranks at once, at the threads each rank of a full node gets; rank 0
// keeps the slowest rank's values and every rank's left-out repetitions.
void calibrate_all_at_once(MPI_Comm world, const CalibrateOptions& opt,
                           const LuPhaseTimings& phases, const RankPlace& at,
                           const ThreadShare& share, Calibration& c) {
  // A run with every rank of the node computing shares the cores and the
  // memory bandwidth: measure that case on all ranks at once, with the
  // threads each rank would get, and let it stand for that thread count.
  // Every rank runs the same rounds and takes the slowest rank's value of
  // each, so all take the same re-measuring decisions.
  const int concurrent_t = share.concurrent;
  Phase all(opt.rounds);
  auto slowest = [world](Term t, bool slow_is_low) -> Term {
    return [world, t, slow_is_low] {
      MPI_Barrier(world);
      double v = t(), worst = v;
      MPI_Allreduce(&v, &worst, 1, MPI_DOUBLE, slow_is_low ? MPI_MIN : MPI_MAX, world);
      return worst;
    };
  };
  int d = 0;
  add_thread_terms(all, opt, phases, concurrent_t, d, slowest,
                   fmt::format(" (all {} ranks at once)", at.local));
  run_phase(all, opt, c, at.rank == 0);
  int d_all = d;
  MPI_Reduce(&d, &d_all, 1, MPI_INT, MPI_SUM, 0, world);
  if (at.rank == 0) {
    c.concurrent_threads = concurrent_t;
    for (const auto& [th, gf] : c.dgemm_gflops)
      if (th == concurrent_t) c.concurrent_gflops = gf;
    c.disturbed_reps += d_all;
  }
}

// Sorts each by-threads list by its thread count.
void sort_by_threads(Calibration& c) {
  auto by_threads = [](auto& v) { std::sort(v.begin(), v.end()); };
  by_threads(c.dgemm_gflops);
  by_threads(c.update_gflops);
  by_threads(c.trsm_gflops);
  for (auto& [kind, by] : c.row_copy_ns) by_threads(by);
}

}  // namespace

Calibration calibrate(MPI_Comm world, const CalibrateOptions& opt, const LuPhaseTimings& phases) {
  check_rounds(opt.rounds);
  const RankPlace at = rank_place(world);
  Calibration c = new_calibration(opt, at);

  // The ping-pong runs first, with one BLAS thread per rank, so no idle
  // OpenMP team spins beside it.
  set_thread_counts(1, 1);
  if (at.size >= 2) {
    c.has_network = true;
    measure_pingpong(world, at.rank, c);
    fit_link(c);
  }
  // With several ranks, the thread count each rank of a full node gets is
  // measured on all ranks at once (below); rank 0 alone skips it, since
  // that measurement would be replaced anyway.
  const ThreadShare share = thread_share(at.local);
  // Rank 0 alone, after the ping-pong (whose ranks would compete for the
  // cores it times); the other ranks sleep meanwhile.
  if (at.rank == 0) calibrate_alone(opt, phases, at.size, share, c);
  quiet_barrier(world);
  if (at.size >= 2) calibrate_all_at_once(world, opt, phases, at, share, c);
  sort_by_threads(c);
  set_thread_counts(1, 1);

  return c;
}

namespace {

// The file's header and its [system] table.
std::string system_table(const Calibration& c, const CalibrateOptions& opt,
                         const std::string& command_line) {
  std::string s;
  s += fmt::format("# Written by `{}` on {} at {}.\n", command_line, c.hostname, utc_timestamp());
  s += "# A device is one MPI rank; gamma is OpenBLAS DGEMM at the trailing-update shape.\n";
  s += "[system]\n";
  s += fmt::format("name = \"calibrated: {}\"\n", c.hostname);
  s += fmt::format("source = \"hplx model calibrate, {} rank(s), DGEMM M = N = {}, K = NB = {}\"\n",
                   c.ranks, opt.size, opt.nb);
  s += "# The grid is taken as given: this spec describes real hplx runs.\n";
  s += "grid_reading = \"as-given\"\n";
  s += "# N as given: hplx lu does not pad N to a multiple of NB.\nn_reading = \"as-given\"\n\n";
  return s;
}

// A TOML inline table of (threads, value) pairs, each value in `fmt_one`.
template <class Pairs>
std::string toml_table(const Pairs& pairs, const char* fmt_one) {
  std::string t = "{ ";
  for (size_t i = 0; i < pairs.size(); ++i)
    t += fmt::format("{}\"{}\" = ", i ? ", " : "", pairs[i].first) +
         fmt::format(fmt::runtime(fmt_one), pairs[i].second);
  return t + " }";
}

// The [device] table's start: the best DGEMM rate, the BLAS's kernels, the
// rate by threads, and the repetitions left out.
std::string device_rates(const Calibration& c) {
  std::string s;
  s += "[device]\nname = \"MPI rank\"\n";
  double best = 0;
  for (const auto& [t, g] : c.dgemm_gflops) best = std::max(best, g);
  s += fmt::format("dgemm_gflops = {:.3f}\n", best);
  s += "# The BLAS's kernels these rates were measured with, against the CPU's units.\n";
  s += "blas_kernels = " + quoted(describe(c.blas_kernels)) + "\n";
  s += "# Measured DGEMM rate by threads per rank (the run's threads pick one).\n";
  if (c.concurrent_threads > 0)
    s += fmt::format(
        "# {} thread(s): all {} ranks of the node computing at once (slowest rank), as in a\n"
        "# run with one rank per {} cpu(s); the other counts: rank 0 alone.\n",
        c.concurrent_threads, c.ranks_per_node, c.concurrent_threads);
  s += "dgemm_gflops_by_threads = { ";
  for (size_t i = 0; i < c.dgemm_gflops.size(); ++i)
    s += fmt::format("{}\"{}\" = {:.3f}", i ? ", " : "", c.dgemm_gflops[i].first,
                     c.dgemm_gflops[i].second);
  s += " }\n";
  if (c.disturbed_reps > 0)
    s += fmt::format(
        "# {} timed repetition(s) left out: other processes took this rank's cpus meanwhile.\n",
        c.disturbed_reps);
  return s;
}

// FACT's terms (its fit through the sizes' medians), when measured.
std::string fact_lines(const Calibration& c, const CalibrateOptions& opt) {
  std::string s;
  if (c.fact_gflops > 0) {
    s += fmt::format(
        "# CPU terms (docs/MODEL.md). FACT: hplx's panel factorization, 1 thread, M x {}{},\n"
        "# median seconds:",
        opt.nb, c.fact_beside_dgemm ? " beside a 1-thread DGEMM" : "");
    for (const auto& [m, t] : c.fact_points) s += fmt::format(" M = {}: {:.3f} ms;", m, t * 1e3);
    s += fmt::format("\n# fit t = NB lambda_f + flops / R_f.\nfact_gflops = {:.3f}\n",
                     c.fact_gflops);
    s += fmt::format("fact_column_us = {:.3f}\n", c.fact_column_s * 1e6);
  }
  return s;
}

// The update's kernels by threads: its DGEMM, DTRSM and the row swap's
// copies, those measured.
std::string update_lines(const Calibration& c, const CalibrateOptions& opt) {
  std::string s;
  if (!c.update_gflops.empty()) {
    s += "# The update's DGEMM as hplx lu runs it: with 1 thread one call (U transposed), with\n"
         "# T > 1 256-column chunks over T OpenMP threads, 1-thread BLAS each\n"
         "# (dgemm_gflops_by_threads: one BLAS call on T threads per chunk).\n";
    s += "update_gflops_by_threads = " + toml_table(c.update_gflops, "{:.3f}") + "\n";
  }
  if (!c.trsm_gflops.empty()) {
    s += fmt::format(
        "# DTRSM of U (transposed U, {} columns, against the NB x NB unit upper L11^T: one call\n"
        "# with 1 thread) and the local row swap (hplx lu's swap of NB rows), 256-column chunks\n"
        "# over T threads{}.\n",
        opt.size,
        c.concurrent_threads > 0
            ? fmt::format("; {} thread(s): all ranks at once", c.concurrent_threads)
            : "");
    s += "trsm_gflops_by_threads = " + toml_table(c.trsm_gflops, "{:.3f}") + "\n";
  }
  if (c.row_copy_ns.count(device::RowCopy::Swap)) {
    s += "# The row swap's copies of NB rows, ns per element moved, each by its own kernel (hplx\n"
         "# lu's): swap = rows exchanged in place (one process row), gather / scatter = pivot\n"
         "# rows spread over the matrix into / from a buffer, block_gather = the diagonal\n"
         "# block's adjacent rows into a buffer, block_store = U stored back into them.\n";
    for (const auto& [kind, by] : c.row_copy_ns)
      s += fmt::format("{}_ns_per_word_by_threads = ", device::row_copy_name(kind)) +
           toml_table(by, "{:.3f}") + "\n";
  }
  return s;
}

// A DGEMM call's packing of A and its time's spread, when measured.
std::string dgemm_call_lines(const Calibration& c) {
  std::string s;
  if (c.dgemm_pack_ns_per_word > 0)
    s += fmt::format(
        "# Each DGEMM call packs its A (M x NB) again: the update in {}-column calls against\n"
        "# one call, per element of A packed (1 thread).\ndgemm_pack_ns_per_word = {:.4f}\n",
        kChunk, c.dgemm_pack_ns_per_word);
  if (c.dgemm_call_cv > 0)
    s += fmt::format(
        "# One {}-column DGEMM call's time varies around its mean by this fraction (standard\n"
        "# deviation over mean, 1 thread): hplx sim varies each call by it.\ndgemm_cv = {:.4f}\n",
        kChunk, c.dgemm_call_cv);
  return s;
}

// The [schedule] table (with FACT measured) and the [memory] table (with a
// swap rate measured but no row copies).
std::string schedule_and_memory_tables(const Calibration& c, const CalibrateOptions& opt) {
  std::string s;
  if (c.fact_gflops > 0)
    s += fmt::format(
        "[schedule]\n# hplx lu's defaults: --depth 1, --fact-overlap on; beside FACT the update\n"
        "# runs in {}-column chunks taken by the threads as they come.\nlook_ahead = 1\n"
        "fact_overlap = true\nchunk_columns = {}\n\n",
        kChunk, kChunk);
  if (c.swap_s_per_word > 0 && c.row_copy_ns.empty()) {
    s += "[memory]\n";
    s += fmt::format(
        "# Row swap on one rank (NB = {} rows over {} columns, OpenBLAS dlaswp, 1 thread):\n"
        "# {:.3f} ns per word; beta = a third of it, so that netlib's 3 beta u NB is the swap.\n",
        opt.nb, opt.size, c.swap_s_per_word * 1e9);
    s += fmt::format("alpha_us = 0\nbandwidth_gbs = {:.4f}\n\n",
                     8.0 / (c.swap_s_per_word / 3.0) / 1e9);
  }
  return s;
}

// The [node] table: its cpus, and its link where one was measured.
std::string node_table(const Calibration& c) {
  const int cpus = c.dgemm_gflops.empty() ? 1 : c.dgemm_gflops.back().first;
  std::string s;
  s += "[node]\n";
  s += fmt::format(
      "# The cpus a rank could use here: hplx tune shares them out among the ranks of a "
      "node.\ncores = {}\n",
      cpus);
  if (c.has_network) {
    s += fmt::format("# Ranks a node can run with one thread each.\ndevices = {}\n",
                     std::max(2, cpus));
    s += fmt::format("memory_gib = {:.2f}\n\n", c.memory_gib);
    s += "[node.link]\nname = \"MPI on this node\"\n";
    s += "# Ping-pong fit, one-way time = alpha + bytes / bandwidth:\n";
    for (const auto& pt : c.pingpong)
      s += fmt::format("#   {:>9.0f} bytes  {:10.3f} us\n", pt.bytes, pt.one_way_s * 1e6);
    s += fmt::format("# worst relative error of the fit: {:.1f}%\n", c.fit_max_rel_error * 100);
    s += fmt::format("alpha_us = {:.4f}\n", c.alpha_s * 1e6);
    s += fmt::format("bandwidth_gbs = {:.4f}\n\n", c.bandwidth_Bps / 1e9);
  } else {
    s += "# Calibrated with 1 rank: no link measured (`mpirun -n 2 hplx model calibrate`),\n";
    s += "# so this spec predicts 1-rank runs only.\ndevices = 1\n";
    s += fmt::format("memory_gib = {:.2f}\n\n", c.memory_gib);
  }
  return s;
}

// A TOML array of strings.
// One string a line when `lines`, else all on one line.
std::string toml_list(const std::vector<std::string>& v, bool lines) {
  std::string l = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) l += ",";
    l += lines ? "\n  " : " ";
    l += quoted(v[i]);
  }
  return l + (lines ? "\n]" : " ]");
}

// The [calibration] table: the rounds, the terms measured again, the
// warnings, and each term's spread.
std::string calibration_table(const Calibration& c) {
  std::string s;
  s += fmt::format(
      "\n[calibration]\n# Each term measured in {} rounds interleaved across the terms (round 1 "
      "of every\n# term, then round 2, ...); each value above is the median of its term's "
      "rounds.\nrounds = {}\n",
      c.rounds, c.rounds);
  if (!c.remeasured.empty())
    s += "# Measured again in extra rounds: a check among them failed at first.\nremeasured = " +
         toml_list(c.remeasured, false) + "\n";
  if (!c.noisy.empty())
    s += "# Measured again in extra rounds, the quietest set kept: their rounds spread above " +
         fmt::format("{:.0f}%", 100 * kSpreadWarning) +
         " at first.\nnoisy = " + toml_list(c.noisy, false) + "\n";
  if (!c.warnings.empty())
    s += "# Checks still failing after re-measuring, and spreads above " +
         fmt::format("{:.0f}%", 100 * kSpreadWarning) +
         ".\nwarnings = " + toml_list(c.warnings, true) + "\n";
  s += "\n[calibration.spread]\n# Each term's rounds: (Q3 - Q1) / median, in percent.\n";
  for (const auto& t : c.terms) s += fmt::format("{} = {:.2f}\n", t.key, 100 * t.spread);
  return s;
}

}  // namespace

std::string calibration_toml(const Calibration& c, const CalibrateOptions& opt,
                             const std::string& command_line) {
  std::string s;
  s += system_table(c, opt, command_line);
  s += device_rates(c);
  s += fact_lines(c, opt);
  s += update_lines(c, opt);
  s += dgemm_call_lines(c);
  s += "\n";
  s += schedule_and_memory_tables(c, opt);
  s += node_table(c);
  s += fmt::format("[run]\nnb = {}\nmemory_fraction = 0.5\n", opt.nb);
  if (c.rounds > 0) s += calibration_table(c);
  return s;
}

}  // namespace hplx::model
