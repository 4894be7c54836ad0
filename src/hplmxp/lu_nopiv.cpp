#include "hplmxp/lu_nopiv.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/buffer.hpp"
#include "device/mirror.hpp"
#include "hplmxp/diagonal_block.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/panel_broadcast.hpp"
#include "lu/phase_scope.hpp"

namespace hplx::hplmxp {
namespace {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

// Where panel k (global columns j0 .. j0 + jb) lies on this process.
struct Step {
  long j0 = 0, jb = 0;
  int pr = 0, pc = 0;       // the process row and column that own its diagonal block
  long i0 = 0, i1 = 0;      // my local rows at and after the panel's diagonal block
  long c0 = 0, c1 = 0;      // my local columns at and after the panel
  long mrest = 0, ldw = 1;  // my rows of the panel; its leading dimension in W

  static Step of(const Layout& l, long j0) {
    Step s;
    s.j0 = j0;
    s.jb = std::min<long>(l.nb, l.n - j0);
    s.pr = lu::owner_of(j0, l.nb, l.nprow);
    s.pc = lu::owner_of(j0, l.nb, l.npcol);
    s.i0 = lu::local_start(j0, l.nb, l.myrow, l.nprow);
    s.i1 = lu::local_start(j0 + s.jb, l.nb, l.myrow, l.nprow);
    s.c0 = lu::local_start(j0, l.nb, l.mycol, l.npcol);
    s.c1 = lu::local_start(j0 + s.jb, l.nb, l.mycol, l.npcol);
    s.mrest = l.mloc - s.i0;
    s.ldw = std::max(1L, s.mrest);
    return s;
  }
};

// The panel in FP32, stored as doubles (LBCAST moves doubles), on the host
// (MPI) and in the queue's memory (FACT's copy, UPDATE).
struct PanelBuffer {
  device::Mirror<double> store;
  device::EventPtr ready;      // on FACT's queue, after W was written (FACT's processes)
  device::EventPtr host_free;  // on the queue, after W's host side went to the device
  float* dev() { return reinterpret_cast<float*>(store.device()); }
  static long doubles(const Step& s) { return (s.mrest * s.jb + 1) / 2; }
};

// L21 and U12 rounded to 16 bits for the update (FP16/BF16 storage).
template <class Low>
struct LowOperands {
  device::Buffer<Low> l, u;
};

// `later` runs what is queued on it next only after what `earlier` has
// been given so far.
void order_after(device::Queue& later, device::Queue& earlier) {
  if (&later != &earlier) later.wait(earlier.record());
}

// Each panel's FACT and update as the queues ran them, timed by events
// (the host only queues the work); on queues that run inline, by the host's
// clock.
class PanelClock {
 public:
  PanelClock(device::Queue& q, device::Queue& fq, std::vector<PanelTimes>& panels)
      : q_(q), fq_(fq), panels_(panels), events_(q.runs_inline() ? 0 : panels.size()) {}

  enum Phase { kFact, kUpdate };
  void start(Phase p, long k) {
    if (events_.empty())
      started_[p] = wall_time();
    else
      events_[k][2 * p] = queue(p).record_timed();
  }
  void stop(Phase p, long k) {
    if (events_.empty())
      (p == kFact ? panels_[k].fact_s : panels_[k].update_s) += wall_time() - started_[p];
    else
      events_[k][2 * p + 1] = queue(p).record_timed();
  }
  // After the queues have passed every event: the seconds of each. With
  // look-ahead on one queue, a panel's update span holds the next panel's
  // FACT, which is taken out.
  void settle(bool look_ahead) {
    for (std::size_t k = 0; k < events_.size(); ++k) {
      const auto& e = events_[k];
      if (e[0]) panels_[k].fact_s = e[0]->seconds_until(*e[1]);
      if (e[2]) panels_[k].update_s = e[2]->seconds_until(*e[3]);
    }
    if (!look_ahead || &q_ != &fq_) return;
    for (std::size_t k = 0; k + 1 < events_.size(); ++k)
      panels_[k].update_s -= panels_[k + 1].fact_s;
  }

 private:
  device::Queue& queue(Phase p) { return p == kFact ? fq_ : q_; }

  device::Queue& q_;
  device::Queue& fq_;
  std::vector<PanelTimes>& panels_;
  std::vector<std::array<device::EventPtr, 4>> events_;  // FACT's start, end; update's
  double started_[2] = {0, 0};
};

class Factorization {
 public:
  Factorization(const Layout& l, const ProcessGrid& grid, device::Queue& q, device::Queue& fq,
                float* a, const FactorOptions& opt)
      : l_(l),
        grid_(grid),
        q_(q),
        fq_(fq),
        a_(a),
        opt_(opt),
        diag_(q.backend()),
        u_(q.backend()),
        bad_(q.backend()) {
    diag_.resize(static_cast<long>(l.nb) * l.nb);
    u_.resize(std::max(1L, l.nloc) * l.nb);
    bad_.assign(1, 0);
    bad_.to_device(fq_);
    for (PanelBuffer& b : w_) {
      b.store.bind(q.backend());
      b.store.resize((std::max(1L, l.mloc) * l.nb + 1) / 2);
    }
    const long lsize = std::max(1L, l.mloc) * l.nb, usize = std::max(1L, l.nloc) * l.nb;
    if (opt.precision == device::Precision::Fp16)
      half_ = {device::Buffer<device::Half>(q.backend(), lsize),
               device::Buffer<device::Half>(q.backend(), usize)};
    if (opt.precision == device::Precision::Bf16)
      bf16_ = {device::Buffer<device::BFloat16>(q.backend(), lsize),
               device::Buffer<device::BFloat16>(q.backend(), usize)};
  }

  // FACT on the panel's process column, on FACT's queue, after everything
  // the factorization's queue has been given: the diagonal block factored
  // in place by its owner (diagonal_block.hpp) and, with several process
  // rows, sent down the column through the host; L21 = A21 U11^-1 (STRSM);
  // the panel copied into W, and brought to the host for LBCAST when there
  // are several process columns. With one process the host waits for
  // nothing here. Other processes do nothing.
  void fact(const Step& s, PanelBuffer& w) {
    if (l_.mycol != s.pc) return;
    lu::PhaseScope phase(nullptr, opt_.trace, "FACT");
    order_after(fq_, q_);
    const long lda = l_.lda;
    float* akk = a_ + s.i0 + s.c0 * lda;
    const bool owner = l_.myrow == s.pr;
    if (owner) factor_diagonal_block(fq_, s.jb, akk, lda, bad_.device());
    const float* u11 = akk;
    long ldu = lda;
    if (l_.nprow > 1) {
      // The host side is written below: pending copies from it must be done.
      if (owner) {
        device::copy_matrix(fq_, s.jb, s.jb, akk, lda, diag_.device(), s.jb);
        diag_.to_host(fq_, 0, s.jb * s.jb);
      }
      fq_.synchronize();
      HPLX_MPI_CHECK(
          MPI_Bcast(diag_.data(), static_cast<int>(s.jb * s.jb), MPI_FLOAT, s.pr, grid_.col()));
      if (!owner) {
        diag_.to_device(fq_, 0, s.jb * s.jb);
        u11 = diag_.device();
        ldu = s.jb;
      }
    }
    if (l_.mloc > s.i1)
      fq_.trsm(Side::Right, Uplo::Upper, Trans::No, Diag::NonUnit, l_.mloc - s.i1, s.jb, 1.0f, u11,
               ldu, a_ + s.i1 + s.c0 * lda, lda);
    device::copy_matrix(fq_, s.mrest, s.jb, akk, lda, w.dev(), s.ldw);
    if (l_.npcol > 1) {
      w.store.to_host(fq_, 0, PanelBuffer::doubles(s));
      fq_.synchronize();
    }
    w.ready = fq_.record();
  }

  // LBCAST of W along the process row, started (non-blocking). Consecutive
  // panels' broadcasts carry different tags: a piece still being forwarded
  // can never match the next panel's receive.
  std::unique_ptr<lu::RowBroadcast> start_bcast(long k, const Step& s, PanelBuffer& w) {
    if (w.host_free) w.host_free->synchronize();  // a receiver's last copy of it is done
    w.host_free.reset();
    return std::make_unique<lu::RowBroadcast>(
        w.store.data(), PanelBuffer::doubles(s), opt_.bcast, s.pc, grid_.row(),
        lu::RowBroadcast::kDefaultTag + static_cast<int>(k % 2));
  }

  // After LBCAST: the receivers' W to the queue's memory; FACT's processes
  // order the queue after their FACT.
  void panel_arrived(const Step& s, PanelBuffer& w) {
    if (l_.mycol != s.pc) {
      w.store.to_device(q_, 0, PanelBuffer::doubles(s));
      w.host_free = q_.record();
    }
    if (w.ready && !opt_.omit_fact_wait) q_.wait(w.ready);
    w.ready.reset();
  }

  // U12 = L11^-1 A12 on the panel's process row (L11 the top of W there),
  // for all my columns after the panel, then, with several process rows, U12
  // down the process columns through the host; with 16-bit storage, L21 and
  // U12 rounded for the update.
  void solve_u(const Step& s, PanelBuffer& w) {
    lu::PhaseScope phase(nullptr, opt_.trace, "UBCAST");
    const long ntrail = l_.nloc - s.c1;
    if (l_.myrow == s.pr && ntrail > 0) {
      q_.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, s.jb, ntrail, 1.0f, w.dev(), s.ldw,
              a_ + s.i0 + s.c1 * l_.lda, l_.lda);
      device::copy_matrix(q_, s.jb, ntrail, a_ + s.i0 + s.c1 * l_.lda, l_.lda, u_.device(), s.jb);
      if (l_.nprow > 1) u_.to_host(q_, 0, s.jb * ntrail);
    }
    if (l_.nprow > 1) {
      q_.synchronize();  // U12 on the host, or its host side free to be written
      HPLX_MPI_CHECK(
          MPI_Bcast(u_.data(), static_cast<int>(s.jb * ntrail), MPI_FLOAT, s.pr, grid_.col()));
      if (l_.myrow != s.pr) u_.to_device(q_, 0, s.jb * ntrail);
    }
    const long m = l_.mloc - s.i1;
    if (opt_.precision == device::Precision::Fp16) round_operands(s, w, m, ntrail, half_);
    if (opt_.precision == device::Precision::Bf16) round_operands(s, w, m, ntrail, bf16_);
  }

  // A22 -= L21 U12 on my local columns [from, to) (from >= s.c1).
  void update(const Step& s, PanelBuffer& w, long from, long to) {
    const long m = l_.mloc - s.i1;
    if (m <= 0 || to <= from) return;
    float* c = a_ + s.i1 + from * l_.lda;
    const long ucol = (from - s.c1) * s.jb;
    if (opt_.precision == device::Precision::Fp16)
      q_.gemm_mixed(Trans::No, Trans::No, m, to - from, s.jb, -1.0f, half_.l.data(), m,
                    half_.u.data() + ucol, s.jb, 1.0f, c, l_.lda);
    else if (opt_.precision == device::Precision::Bf16)
      q_.gemm_mixed(Trans::No, Trans::No, m, to - from, s.jb, -1.0f, bf16_.l.data(), m,
                    bf16_.u.data() + ucol, s.jb, 1.0f, c, l_.lda);
    else
      q_.gemm(Trans::No, Trans::No, m, to - from, s.jb, -1.0f, w.dev() + (s.i1 - s.i0), s.ldw,
              u_.device() + ucol, s.jb, 1.0f, c, l_.lda);
  }

  PanelBuffer& buffer(long k) { return w_[k % 2]; }

  // After the last panel: the queues drained (the factorization's time
  // ends with its work), and whether a pivot was bad here.
  bool finish() {
    q_.synchronize();
    bad_.to_host(fq_);
    fq_.synchronize();
    return bad_[0] != 0;
  }

 private:
  template <class Low>
  void round_operands(const Step& s, PanelBuffer& w, long m, long ntrail, LowOperands<Low>& low) {
    if (m > 0) q_.convert(m, s.jb, w.dev() + (s.i1 - s.i0), s.ldw, low.l.data(), m);
    if (ntrail > 0) q_.convert(s.jb, ntrail, u_.device(), s.jb, low.u.data(), s.jb);
  }

  const Layout& l_;
  const ProcessGrid& grid_;
  device::Queue& q_;
  device::Queue& fq_;
  float* a_;
  FactorOptions opt_;
  device::Mirror<float> diag_, u_;
  device::Mirror<int> bad_;
  PanelBuffer w_[2];
  LowOperands<device::Half> half_;
  LowOperands<device::BFloat16> bf16_;
};

// Columns of the trailing update done between two looks at the next
// panel's broadcast (so its forwarding goes on while this process computes).
constexpr long kUpdateChunkColumns = 512;

}  // namespace

LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& q, float* a,
                           const FactorOptions& opt, const PanelDone& panel_done) {
  const int depth = opt.depth;
  if (depth != 0 && depth != 1)
    throw UsageError("--depth " + std::to_string(depth) + ": allowed: 0 or 1");
  device::Queue& fq = opt.fact_queue ? *opt.fact_queue : q;
  Factorization f(l, grid, q, fq, a, opt);
  LuNopivResult result;
  const long panels = (l.n + l.nb - 1) / l.nb;
  result.panels.resize(static_cast<std::size_t>(panels));
  PanelClock clock(q, fq, result.panels);
  auto fact = [&](long k, const Step& s) {
    clock.start(PanelClock::kFact, k);
    f.fact(s, f.buffer(k));
    clock.stop(PanelClock::kFact, k);
  };

  // With look-ahead, panel k + 1 is factored and its broadcast started
  // before the rest of panel k's update: the prologue does panel 0.
  std::unique_ptr<lu::RowBroadcast> next_bcast;
  if (depth == 1) {
    const Step s0 = Step::of(l, 0);
    fact(0, s0);
    next_bcast = f.start_bcast(0, s0, f.buffer(0));
  }
  for (long k = 0; k < panels; ++k) {
    const Step s = Step::of(l, k * l.nb);
    PanelTimes& times = result.panels[static_cast<std::size_t>(k)];
    times.j = s.j0;
    times.jb = s.jb;
    PanelBuffer& w = f.buffer(k);
    std::unique_ptr<lu::RowBroadcast> bcast_k;
    if (depth == 0) {
      fact(k, s);
      bcast_k = f.start_bcast(k, s, w);
    } else {
      bcast_k = std::move(next_bcast);
    }
    const double t = wall_time();
    {
      lu::PhaseScope phase(nullptr, opt.trace, "LBCAST");
      bcast_k->finish();
    }
    f.panel_arrived(s, w);
    times.bcast_s = wall_time() - t;

    clock.start(PanelClock::kUpdate, k);
    f.solve_u(s, w);
    const bool look_ahead = depth == 1 && k + 1 < panels;
    long from = s.c1;
    if (look_ahead) {
      // Panel k + 1's columns first (only its process column has any), then
      // its FACT (on FACT's queue, beside the rest of this update) and the
      // start of its broadcast.
      const Step n = Step::of(l, s.j0 + s.jb);
      f.update(s, w, s.c1, n.c1);
      from = n.c1;
      fact(k + 1, n);
      next_bcast = f.start_bcast(k + 1, n, f.buffer(k + 1));
    }
    // The rest of the trailing update; with several process columns in
    // chunks, the host moving the next broadcast on between them.
    const bool forward = look_ahead && l.npcol > 1;
    const long chunk = forward ? kUpdateChunkColumns : l.nloc;
    {
      lu::PhaseScope phase(nullptr, opt.trace, "UPDATE");
      for (long c = from; c < l.nloc; c += chunk) {
        f.update(s, w, c, std::min(l.nloc, c + chunk));
        if (!forward) continue;
        q.synchronize();
        next_bcast->progress();
      }
    }
    clock.stop(PanelClock::kUpdate, k);
    if (opt.trace && opt.trace->activity()) opt.trace->activity()->closed_iteration(k + 1, panels);
    if (panel_done) panel_done(s.j0 + s.jb);
  }
  int bad = f.finish() ? 1 : 0;
  clock.settle(depth == 1);
  {  // every rank learns whether a pivot was bad: the whole grid waits
    lu::PhaseScope phase(nullptr, opt.trace, "SOLVE");
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, grid.all()));
  }
  result.bad_pivot = bad != 0;
  return result;
}

}  // namespace hplx::hplmxp
