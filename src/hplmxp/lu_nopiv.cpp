#include "hplmxp/lu_nopiv.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/flops.hpp"
#include "device/buffer.hpp"
#include "device/launch.hpp"
#include "device/mirror.hpp"
#include "hplmxp/diagonal_block.hpp"
#include "hplmxp/triangle_inverse.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/phases/comm/row_broadcast.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/phases/timing/phase_scope.hpp"
#include "lu/schedules/bsp_steps.hpp"
#include "lu/schedules/iteration_log.hpp"
#include "lu/schedules/look_ahead.hpp"

namespace hplx::hplmxp {

// The panel in FP32 on the host (MPI) and in the queue's memory (FACT's
// copy, UPDATE).
struct PanelBuffer {
  device::Mirror<float> store;
  device::EventPtr ready;      // on FACT's queue, after W was written (FACT's processes)
  device::EventPtr host_free;  // on the queue, after W's host side went to the device
  // L11's inverse (the panel solves by inverted triangles), made by FACT
  // where the diagonal block is factored, by U's first solve elsewhere; a
  // buffer per panel, as W, so that FACT of the next panel never writes the
  // one an update still reads.
  device::Buffer<float> l11_inverse;
  long l11_inverse_of = -1;  // the panel (its first column) l11_inverse holds
  float* dev() { return store.device(); }
};

// L21 and U12 rounded to 16 bits for the update (FP16/BF16 storage).
template <class Low>
struct LowOperands {
  device::Buffer<Low> l, u;
};

struct NopivBuffers {
  NopivBuffers(const Layout& l, device::Backend& backend, int depth, device::Precision p,
               bool inverses)
      : mloc(l.mloc),
        nloc(l.nloc),
        nb(l.nb),
        precision(p),
        diag(backend),
        u(backend),
        bad(backend),
        u11_inverse(backend, inverses ? static_cast<long>(l.nb) * l.nb : 0),
        w(static_cast<std::size_t>(depth) + 1) {
    diag.resize(static_cast<long>(l.nb) * l.nb);
    u.resize(std::max(1L, l.nloc) * l.nb);
    bad.resize(1);
    for (PanelBuffer& b : w) {
      b.store.bind(backend);
      b.store.resize(std::max(1L, l.mloc) * l.nb);
      if (inverses) b.l11_inverse = device::Buffer<float>(backend, static_cast<long>(l.nb) * l.nb);
    }
    const long lsize = std::max(1L, l.mloc) * l.nb, usize = std::max(1L, l.nloc) * l.nb;
    if (p == device::Precision::Fp16)
      half = {device::Buffer<device::Half>(backend, lsize),
              device::Buffer<device::Half>(backend, usize)};
    if (p == device::Precision::Bf16)
      bf16 = {device::Buffer<device::BFloat16>(backend, lsize),
              device::Buffer<device::BFloat16>(backend, usize)};
  }
  long mloc, nloc;
  int nb;
  device::Precision precision;
  device::Mirror<float> diag, u;  // the diagonal block; U's rows of a column range
  device::Mirror<int> bad;        // whether a pivot was bad here
  // U11's inverse (the panel solves by inverted triangles), on FACT's queue.
  device::Buffer<float> u11_inverse;
  std::vector<PanelBuffer> w;  // DEPTH + 1 panels, used in turn
  LowOperands<device::Half> half;
  LowOperands<device::BFloat16> bf16;
};

const char* name_of(PanelSolve s) {
  return s == PanelSolve::Trsm ? "trsm" : s == PanelSolve::Inverse ? "inverse" : "inverse-tf32";
}

PanelSolve parse_panel_solve(const std::string& text) {
  for (PanelSolve s : {PanelSolve::Trsm, PanelSolve::Inverse, PanelSolve::InverseTf32})
    if (text == name_of(s)) return s;
  throw UsageError("--panel-solve '" + text + "': allowed: trsm, inverse, inverse-tf32");
}

NopivWorkspace::NopivWorkspace(const Layout& l, device::Backend& backend, int depth,
                               device::Precision precision, PanelSolve solve) {
  if (depth < 0) throw UsageError("--depth " + std::to_string(depth) + ": allowed: 0 or more");
  b_ = std::make_unique<NopivBuffers>(l, backend, depth, precision, solve != PanelSolve::Trsm);
}
NopivWorkspace::~NopivWorkspace() = default;

bool NopivWorkspace::fits(const Layout& l, int depth, device::Precision precision,
                          PanelSolve solve) const {
  return b_->mloc == l.mloc && b_->nloc == l.nloc && b_->nb == l.nb &&
         b_->w.size() == static_cast<std::size_t>(depth) + 1 && b_->precision == precision &&
         (b_->u11_inverse.size() == 0) == (solve == PanelSolve::Trsm);
}

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

// Columns of the trailing update done between two looks at the next
// panel's broadcast (so its forwarding goes on while this process computes).
constexpr long kUpdateChunkColumns = 512;

// LBCAST of a panel's W along the process row (lu::RowBroadcast): the
// receivers post theirs when it is made, the panel's process column sends
// after FACT. Consecutive panels' broadcasts carry different tags: a piece
// still being forwarded can never match the next panel's receive.
class NopivBroadcast {
 public:
  NopivBroadcast(float* w, long count, lu::Broadcast topology, int root, MPI_Comm row, int tag,
                 bool sender)
      : w_(w), count_(count), topology_(topology), root_(root), row_(row), tag_(tag) {
    if (!sender) start();
  }
  void send_rest() {
    if (!bcast_) start();
  }
  bool progress() { return bcast_->progress(); }
  void finish() { bcast_->finish(); }
  const CommTiming& timing() const { return bcast_->timing(); }

 private:
  void start() {
    bcast_ =
        std::make_unique<lu::BasicRowBroadcast<float>>(w_, count_, topology_, root_, row_, tag_);
  }
  float* w_;
  long count_;
  lu::Broadcast topology_;
  int root_;
  MPI_Comm row_;
  int tag_;
  std::unique_ptr<lu::BasicRowBroadcast<float>> bcast_;
};

// HPL-MxP's phase set for the LU's bsp look-ahead steps
// (lu/schedules/bsp_steps.hpp): FACT without pivoting, LBCAST of the FP32
// panel, RS as U's solve and broadcast down the process columns, UPDATE in
// FP32 or with 16-bit operands. Panels use DEPTH + 1 buffers in turn: a
// panel's buffer is written again by the FACT DEPTH + 1 panels later, which
// its queue orders after every update queued so far, the retired panel's
// included.
class NopivPhases {
 public:
  // A panel's place on this process (Step: its width jb, which the loop
  // reads) and its buffer.
  struct Panel : Step {
    PanelBuffer* w = nullptr;
  };
  struct Factored : Panel {
    long done = 0;
  };
  using Broadcast = NopivBroadcast;
  static constexpr bool kThreadsBesideFact = true;
  static constexpr bool kSplitUpdate = false;

  NopivPhases(const Layout& l, const ProcessGrid& grid, device::Queue& q, float* a,
              const FactorOptions& opt, lu::DeviceTimeline* timeline, NopivBuffers& b)
      : l_(l),
        grid_(grid),
        q_(q),
        a_(a),
        opt_(opt),
        timeline_(timeline),
        diag_(b.diag),
        u_(b.u),
        bad_(b.bad),
        u11_inverse_(b.u11_inverse),
        w_(b.w),
        half_(b.half),
        bf16_(b.bf16) {
    // Zeroed on the update's queue, which every FACT's queue waits for.
    bad_.assign(1, 0);
    bad_.to_device(q_);
    for (PanelBuffer& w : w_) {
      w.ready.reset();
      w.host_free.reset();
      w.l11_inverse_of = -1;
    }
  }

  // The phase set (lu/schedules/bsp_steps.hpp).
  int nb() const { return l_.nb; }
  Panel make_panel(long k) {
    const Step s = Step::of(l_, k);
    return {s, &w_[static_cast<std::size_t>(k / l_.nb) % w_.size()]};
  }
  std::unique_ptr<NopivBroadcast> post_broadcast(const Panel& p) {
    PanelBuffer& w = *p.w;
    if (w.host_free) w.host_free->synchronize();  // a receiver's last copy of it is done
    w.host_free.reset();
    return std::make_unique<NopivBroadcast>(
        w.store.data(), p.mrest * p.jb, opt_.bcast, p.pc, grid_.row(),
        lu::RowBroadcast::kDefaultTag + static_cast<int>((p.j0 / l_.nb) % 2), factors(p));
  }
  bool factors(const Panel& p) const { return l_.mycol == p.pc; }
  void fact(const Panel& p, NopivBroadcast&, device::Queue& fq);
  // LBCAST is done: the receivers' W goes to the queue's memory, and FACT's
  // processes order the queue after their FACT.
  Factored received(const Panel& p) {
    PanelBuffer& w = *p.w;
    if (l_.mycol != p.pc) {
      w.store.to_device(q_, 0, p.mrest * p.jb);
      w.host_free = q_.record();
    }
    if (w.ready) q_.wait(w.ready);
    w.ready.reset();
    return {p, p.j0 + p.jb};
  }
  void apply(Factored& p, long g0, long g1, lu::PhaseTimes& tm, NopivBroadcast* in_flight);
  // Threads beside FACT (queue work on the calling thread): begin() solves
  // U over [g0, g1) and sends it down the process columns, on the calling
  // thread, and returns how many column chunks the update has; run_chunk(i)
  // updates chunk i, with no MPI, on any thread.
  long begin(Factored& p, long g0, long g1, lu::PhaseTimes* tm);
  void run_chunk(long i, lu::PhaseTimes* tm);
  void progress_sections() {}
  double flops(const Factored& p) const { return panel_flops(l_.n, p.j0, p.jb); }
  void retire(Factored&) {}

  // After the last panel: the queues drained (the factorization's time
  // ends with its work), and whether a pivot was bad here.
  // (The flag was written on either queue: the host waits for the
  // update's, then FACT's brings it back after its own work.)
  bool finish_queues(device::Queue& fq) {
    q_.synchronize();
    bad_.to_host(fq);
    fq.synchronize();
    return bad_[0] != 0;
  }

 private:
  // My local columns [from, to) of the global columns [g0, g1).
  std::pair<long, long> local_columns(long g0, long g1) const {
    return {lu::local_start(g0, l_.nb, l_.mycol, l_.npcol),
            lu::local_start(g1, l_.nb, l_.mycol, l_.npcol)};
  }
  void solve_u(const Step& s, PanelBuffer& w, long from, long to, lu::PhaseTimes& tm);
  // C = A B (m x n, inner dimension k) on q: a panel's solve by an inverted
  // triangle, in FP32 or TF32 by the panel solve.
  void solve_gemm(device::Queue& q, long m, long n, long k, const float* a, long lda,
                  const float* b, long ldb, float* c, long ldc) const;
  // L11's inverse in W's buffer, made on q unless this panel's is there.
  void invert_l11(device::Queue& q, const Step& s, PanelBuffer& w);
  void update(const Step& s, PanelBuffer& w, long from, long c0, long c1);
  template <class Low>
  void round_operands(const Step& s, PanelBuffer& w, long m, long width, LowOperands<Low>& low);

  const Layout& l_;
  const ProcessGrid& grid_;
  device::Queue& q_;
  float* a_;
  const FactorOptions& opt_;
  lu::DeviceTimeline* timeline_;
  // The workspace's buffers (NopivBuffers).
  device::Mirror<float>& diag_;
  device::Mirror<float>& u_;
  device::Mirror<int>& bad_;
  device::Buffer<float>& u11_inverse_;
  std::vector<PanelBuffer>& w_;
  LowOperands<device::Half>& half_;
  LowOperands<device::BFloat16>& bf16_;
  struct Chunks {  // the update begin() set up
    const Factored* p = nullptr;
    long from = 0, to = 0;
  } chunks_;
};

// FACT on the panel's process column, on `fq` (the update's queue, or
// beside it the device's panel queue, waiting for the update of the
// panel's own columns): the diagonal block factored in place by its owner
// (diagonal_block.hpp) and, with several process rows, sent down the
// column through the host; L21 = A21 U11^-1 (STRSM, or by the panel
// solve's GEMM by U11's inverse into W, copied back into A); the panel
// copied into W, and brought to the host for LBCAST when there are several
// process columns; with inverses, L11's too where the block was factored.
// With one process the host waits for nothing here.
void NopivPhases::fact(const Panel& p, NopivBroadcast&, device::Queue& fq) {
  const Step& s = p;
  PanelBuffer& w = *p.w;
  lu::DeviceTimeline::Span on_device(timeline_, fq, lu::DeviceTimeline::kFact);
  const long lda = l_.lda;
  float* akk = a_ + s.i0 + s.c0 * lda;
  const bool owner = l_.myrow == s.pr;
  if (owner) factor_diagonal_block(fq, s.jb, akk, lda, bad_.device());
  const float* u11 = akk;
  long ldu = lda;
  if (l_.nprow > 1) {
    // The host side is written below: pending copies from it must be done.
    if (owner) {
      device::copy_matrix(fq, s.jb, s.jb, akk, lda, diag_.device(), s.jb);
      diag_.to_host(fq, 0, s.jb * s.jb);
    }
    fq.synchronize();
    HPLX_MPI_CHECK(
        MPI_Bcast(diag_.data(), static_cast<int>(s.jb * s.jb), MPI_FLOAT, s.pr, grid_.col()));
    if (!owner) {
      diag_.to_device(fq, 0, s.jb * s.jb);
      u11 = diag_.device();
      ldu = s.jb;
    }
  }
  const long m = l_.mloc - s.i1;
  float* a21 = a_ + s.i1 + s.c0 * lda;
  const bool inverses = opt_.panel_solve != PanelSolve::Trsm;
  if (m > 0 && inverses) {
    float* inverse = u11_inverse_.data();
    invert_triangle(fq, Uplo::Upper, s.jb, u11, ldu, inverse);
    float* w21 = w.dev() + (s.i1 - s.i0);
    solve_gemm(fq, m, s.jb, s.jb, a21, lda, inverse, s.jb, w21, s.ldw);
    device::copy_matrix(fq, m, s.jb, static_cast<const float*>(w21), s.ldw, a21, lda);
    if (s.i1 > s.i0) device::copy_matrix(fq, s.i1 - s.i0, s.jb, akk, lda, w.dev(), s.ldw);
  } else {
    if (m > 0)
      fq.trsm(Side::Right, Uplo::Upper, Trans::No, Diag::NonUnit, m, s.jb, 1.0f, u11, ldu, a21,
              lda);
    device::copy_matrix(fq, s.mrest, s.jb, akk, lda, w.dev(), s.ldw);
  }
  // U's solves on this process row read L11's inverse: made here, beside
  // the update, rather than on the update's queue.
  if (owner && inverses) invert_l11(fq, s, w);
  if (l_.npcol > 1) {
    w.store.to_host(fq, 0, s.mrest * s.jb);
    fq.synchronize();
  }
  w.ready = fq.record();
}

void NopivPhases::solve_gemm(device::Queue& q, long m, long n, long k, const float* a, long lda,
                             const float* b, long ldb, float* c, long ldc) const {
  if (opt_.panel_solve == PanelSolve::InverseTf32)
    q.gemm_tf32(Trans::No, Trans::No, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  else
    q.gemm(Trans::No, Trans::No, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}

void NopivPhases::invert_l11(device::Queue& q, const Step& s, PanelBuffer& w) {
  if (w.l11_inverse_of == s.j0) return;
  invert_triangle(q, Uplo::Lower, s.jb, w.dev(), s.ldw, w.l11_inverse.data());
  w.l11_inverse_of = s.j0;
}

// RS + UPDATE of the panel over the global columns [g0, g1): U12 and the
// update of my local columns there. With `in_flight` and several process
// columns, the update goes in chunks, the host moving that broadcast on
// between them.
void NopivPhases::apply(Factored& p, long g0, long g1, lu::PhaseTimes& tm,
                        NopivBroadcast* in_flight) {
  const Step& s = p;
  const auto [from, to] = local_columns(g0, g1);
  if (to <= from) return;  // the same on every process of this process column
  lu::DeviceTimeline::Span on_device(timeline_, q_, lu::DeviceTimeline::kUpdate);
  solve_u(s, *p.w, from, to, tm);
  lu::PhaseScope phase(&tm.update, opt_.trace, "UPDATE");
  const bool forward = in_flight && l_.npcol > 1;
  const long chunk = forward ? kUpdateChunkColumns : to - from;
  for (long c = from; c < to; c += chunk) {
    update(s, *p.w, from, c, std::min(to, c + chunk));
    if (!forward) continue;
    q_.synchronize();
    in_flight->progress();
  }
}

long NopivPhases::begin(Factored& p, long g0, long g1, lu::PhaseTimes* tm) {
  const auto [from, to] = local_columns(g0, g1);
  chunks_ = {&p, from, to};
  if (to <= from) return 0;
  lu::PhaseTimes own;
  solve_u(p, *p.w, from, to, tm ? *tm : own);
  return (to - from + kUpdateChunkColumns - 1) / kUpdateChunkColumns;
}

void NopivPhases::run_chunk(long i, lu::PhaseTimes* tm) {
  const long c0 = chunks_.from + i * kUpdateChunkColumns;
  const long c1 = std::min(chunks_.to, c0 + kUpdateChunkColumns);
  lu::PhaseScope phase(tm ? &tm->update : nullptr, opt_.trace, "UPDATE");
  update(*chunks_.p, *chunks_.p->w, chunks_.from, c0, c1);
}

// U12 = L11^-1 A12 over my local columns [from, to) on the panel's process
// row (L11 the top of W there; STRSM in A, or the panel solve's GEMM by
// L11's inverse, made once per panel, into U's buffer, copied back into
// A), then, with several process rows, down the process columns through
// the host; with 16-bit storage, L21 and U12 rounded for the update.
void NopivPhases::solve_u(const Step& s, PanelBuffer& w, long from, long to, lu::PhaseTimes& tm) {
  lu::PhaseScope phase(&tm.swap, opt_.trace, "UBCAST");
  const long width = to - from;
  if (l_.myrow == s.pr) {
    float* a12 = a_ + s.i0 + from * l_.lda;
    if (opt_.panel_solve != PanelSolve::Trsm) {
      invert_l11(q_, s, w);  // where FACT ran on another process column
      solve_gemm(q_, s.jb, width, s.jb, w.l11_inverse.data(), s.jb, a12, l_.lda, u_.device(), s.jb);
      device::copy_matrix(q_, s.jb, width, static_cast<const float*>(u_.device()), s.jb, a12,
                          l_.lda);
    } else {
      q_.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, s.jb, width, 1.0f, w.dev(), s.ldw,
              a12, l_.lda);
      device::copy_matrix(q_, s.jb, width, static_cast<const float*>(a12), l_.lda, u_.device(),
                          s.jb);
    }
    if (l_.nprow > 1) u_.to_host(q_, 0, s.jb * width);
  }
  if (l_.nprow > 1) {
    q_.synchronize();  // U12 on the host, or its host side free to be written
    HPLX_MPI_CHECK(
        MPI_Bcast(u_.data(), static_cast<int>(s.jb * width), MPI_FLOAT, s.pr, grid_.col()));
    if (l_.myrow != s.pr) u_.to_device(q_, 0, s.jb * width);
  }
  const long m = l_.mloc - s.i1;
  if (opt_.precision == device::Precision::Fp16) round_operands(s, w, m, width, half_);
  if (opt_.precision == device::Precision::Bf16) round_operands(s, w, m, width, bf16_);
}

// A22 -= L21 U12 on my local columns [c0, c1) of the range starting at
// `from` (U12's first column).
void NopivPhases::update(const Step& s, PanelBuffer& w, long from, long c0, long c1) {
  const long m = l_.mloc - s.i1;
  if (m <= 0 || c1 <= c0) return;
  float* c = a_ + s.i1 + c0 * l_.lda;
  const long ucol = (c0 - from) * s.jb;
  if (opt_.precision == device::Precision::Fp16)
    q_.gemm_mixed(Trans::No, Trans::No, m, c1 - c0, s.jb, -1.0f, half_.l.data(), m,
                  half_.u.data() + ucol, s.jb, 1.0f, c, l_.lda);
  else if (opt_.precision == device::Precision::Bf16)
    q_.gemm_mixed(Trans::No, Trans::No, m, c1 - c0, s.jb, -1.0f, bf16_.l.data(), m,
                  bf16_.u.data() + ucol, s.jb, 1.0f, c, l_.lda);
  else
    q_.gemm(Trans::No, Trans::No, m, c1 - c0, s.jb, -1.0f, w.dev() + (s.i1 - s.i0), s.ldw,
            u_.device() + ucol, s.jb, 1.0f, c, l_.lda);
}

// L21 is rounded again for every range (the queue runs in order, so one
// buffer serves every panel): an m x jb pass beside the range's GEMM.
template <class Low>
void NopivPhases::round_operands(const Step& s, PanelBuffer& w, long m, long width,
                                 LowOperands<Low>& low) {
  if (m > 0) q_.convert(m, s.jb, w.dev() + (s.i1 - s.i0), s.ldw, low.l.data(), m);
  q_.convert(s.jb, width, u_.device(), s.jb, low.u.data(), s.jb);
}

}  // namespace

LuNopivResult factor_nopiv(const Layout& l, const ProcessGrid& grid, device::Queue& q, float* a,
                           const FactorOptions& opt) {
  if (opt.depth < 0)
    throw UsageError("--depth " + std::to_string(opt.depth) + ": allowed: 0 or more");
  std::unique_ptr<NopivWorkspace> own;
  NopivWorkspace* ws = opt.workspace;
  if (ws == nullptr) {
    own =
        std::make_unique<NopivWorkspace>(l, q.backend(), opt.depth, opt.precision, opt.panel_solve);
    ws = own.get();
  } else if (!ws->fits(l, opt.depth, opt.precision, opt.panel_solve)) {
    throw Error(
        "factor_nopiv: the workspace was made for another layout, depth, precision or panel "
        "solve");
  }
  device::Queue& fq = opt.fact_queue ? *opt.fact_queue : q;
  // A device's own clock times its side of each panel.
  std::unique_ptr<lu::DeviceTimeline> timeline;
  if (!q.runs_inline())
    timeline = std::make_unique<lu::DeviceTimeline>(q, opt.trace && opt.trace->enabled());
  NopivPhases phases(l, grid, q, a, opt, timeline.get(), ws->buffers());
  lu::BspOptions o;
  o.end = l.n;
  o.depth_ahead = opt.depth > 0;
  o.n = l.n;
  o.update_sms = opt.update_sms;
  o.update_sms_below = opt.update_sms_below;
  lu::BspSteps<NopivPhases> steps(phases, q, fq, o, opt.trace, timeline.get());
  lu::IterationLog log(l.n, l.nb, l.n, l.mycol, l.npcol, opt.progress,
                       opt.trace ? opt.trace->activity() : nullptr);
  log.start();
  lu::LookAhead<lu::BspSteps<NopivPhases>>(steps, l.n, l.nb, l.n,
                                           static_cast<std::size_t>(opt.depth), log)
      .run();
  LuNopivResult result;
  int bad = phases.finish_queues(fq) ? 1 : 0;
  result.phases = steps.times();
  result.iterations = log.take();
  if (timeline) timeline->resolve(result.iterations, opt.trace);
  if (opt.progress) opt.progress->finish();
  {  // every rank learns whether a pivot was bad: the whole grid waits
    lu::PhaseScope phase(nullptr, opt.trace, "SOLVE");
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, grid.all()));
  }
  result.bad_pivot = bad != 0;
  return result;
}

}  // namespace hplx::hplmxp
