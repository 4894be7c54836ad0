#include "hplmxp/lu_nopiv.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/buffer.hpp"
#include "device/mirror.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/panel_broadcast.hpp"
#include "lu/phase_scope.hpp"

namespace hplx::hplmxp {
namespace {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

// Unblocked LU without pivoting of the jb x jb diagonal block: at most NB
// columns, a small share of the flops. Returns false on a zero or
// non-finite pivot (and goes on, so every process takes the same path).
bool factor_diagonal_block(long jb, float* a, long lda) {
  bool ok = true;
  for (long k = 0; k < jb; ++k) {
    const float pivot = a[k + k * lda];
    if (pivot == 0.0f || !std::isfinite(pivot)) ok = false;
    for (long i = k + 1; i < jb; ++i) a[i + k * lda] /= pivot;
    for (long j = k + 1; j < jb; ++j) {
      const float ukj = a[k + j * lda];
      for (long i = k + 1; i < jb; ++i) a[i + j * lda] -= a[i + k * lda] * ukj;
    }
  }
  return ok;
}

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
  float* dev() { return reinterpret_cast<float*>(store.device()); }
  static long doubles(const Step& s) { return (s.mrest * s.jb + 1) / 2; }
};

// L21 and U12 rounded to 16 bits for the update (FP16/BF16 storage).
template <class Low>
struct LowOperands {
  device::Buffer<Low> l, u;
};

class Factorization {
 public:
  Factorization(const Layout& l, const ProcessGrid& grid, device::Queue& q, float* a,
                const FactorOptions& opt)
      : l_(l), grid_(grid), q_(q), a_(a), opt_(opt), diag_(q.backend()), u_(q.backend()) {
    diag_.resize(static_cast<long>(l.nb) * l.nb);
    u_.resize(std::max(1L, l.nloc) * l.nb);
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

  // FACT on the panel's process column: the diagonal block factored on the
  // host of its owner and sent down the column, L21 = A21 U11^-1 (STRSM on
  // the queue), the panel copied into W and brought to the host for
  // LBCAST. Other processes do nothing.
  void fact(const Step& s, PanelBuffer& w) {
    if (l_.mycol != s.pc) return;
    lu::PhaseScope phase(nullptr, opt_.trace, "FACT");
    const long lda = l_.lda;
    float* akk = a_ + s.i0 + s.c0 * lda;
    if (l_.myrow == s.pr) {
      device::copy_matrix(q_, s.jb, s.jb, akk, lda, diag_.device(), s.jb);
      diag_.to_host(q_, 0, s.jb * s.jb);
      q_.synchronize();
      if (!factor_diagonal_block(s.jb, diag_.data(), s.jb)) bad_ = 1;
    }
    HPLX_MPI_CHECK(
        MPI_Bcast(diag_.data(), static_cast<int>(s.jb * s.jb), MPI_FLOAT, s.pr, grid_.col()));
    diag_.to_device(q_, 0, s.jb * s.jb);
    if (l_.myrow == s.pr) device::copy_matrix(q_, s.jb, s.jb, diag_.device(), s.jb, akk, lda);
    if (l_.mloc > s.i1)
      q_.trsm(Side::Right, Uplo::Upper, Trans::No, Diag::NonUnit, l_.mloc - s.i1, s.jb, 1.0f,
              diag_.device(), s.jb, a_ + s.i1 + s.c0 * lda, lda);
    device::copy_matrix(q_, s.mrest, s.jb, akk, lda, w.dev(), s.ldw);
    w.store.to_host(q_, 0, PanelBuffer::doubles(s));
    q_.synchronize();
  }

  // LBCAST of W along the process row, started (non-blocking). Consecutive
  // panels' broadcasts carry different tags: a piece still being forwarded
  // can never match the next panel's receive.
  std::unique_ptr<lu::RowBroadcast> start_bcast(long k, const Step& s, PanelBuffer& w) {
    return std::make_unique<lu::RowBroadcast>(
        w.store.data(), PanelBuffer::doubles(s), opt_.bcast, s.pc, grid_.row(),
        lu::RowBroadcast::kDefaultTag + static_cast<int>(k % 2));
  }

  // After LBCAST: the receivers' W to the queue's memory.
  void panel_arrived(const Step& s, PanelBuffer& w) {
    if (l_.mycol != s.pc) w.store.to_device(q_, 0, PanelBuffer::doubles(s));
  }

  // U12 = L11^-1 A12 on the panel's process row (L11 the top of W there),
  // for all my columns after the panel, then U12 down the process columns;
  // with 16-bit storage, L21 and U12 rounded for the update.
  void solve_u(const Step& s, PanelBuffer& w) {
    lu::PhaseScope phase(nullptr, opt_.trace, "UBCAST");
    const long ntrail = l_.nloc - s.c1;
    if (l_.myrow == s.pr) {
      if (ntrail > 0) {
        q_.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, s.jb, ntrail, 1.0f, w.dev(), s.ldw,
                a_ + s.i0 + s.c1 * l_.lda, l_.lda);
        device::copy_matrix(q_, s.jb, ntrail, a_ + s.i0 + s.c1 * l_.lda, l_.lda, u_.device(), s.jb);
        u_.to_host(q_, 0, s.jb * ntrail);
      }
      q_.synchronize();
    }
    HPLX_MPI_CHECK(
        MPI_Bcast(u_.data(), static_cast<int>(s.jb * ntrail), MPI_FLOAT, s.pr, grid_.col()));
    if (l_.myrow != s.pr) u_.to_device(q_, 0, s.jb * ntrail);
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
  int bad() const { return bad_; }

 private:
  template <class Low>
  void round_operands(const Step& s, PanelBuffer& w, long m, long ntrail, LowOperands<Low>& low) {
    if (m > 0) q_.convert(m, s.jb, w.dev() + (s.i1 - s.i0), s.ldw, low.l.data(), m);
    if (ntrail > 0) q_.convert(s.jb, ntrail, u_.device(), s.jb, low.u.data(), s.jb);
  }

  const Layout& l_;
  const ProcessGrid& grid_;
  device::Queue& q_;
  float* a_;
  FactorOptions opt_;
  device::Mirror<float> diag_, u_;
  PanelBuffer w_[2];
  LowOperands<device::Half> half_;
  LowOperands<device::BFloat16> bf16_;
  int bad_ = 0;
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
  Factorization f(l, grid, q, a, opt);
  LuNopivResult result;
  const long panels = (l.n + l.nb - 1) / l.nb;
  result.panels.resize(static_cast<std::size_t>(panels));

  // With look-ahead, panel k + 1 is factored and its broadcast started
  // before the rest of panel k's update: the prologue does panel 0.
  std::unique_ptr<lu::RowBroadcast> next_bcast;
  if (depth == 1) {
    const Step s0 = Step::of(l, 0);
    double t = wall_time();
    f.fact(s0, f.buffer(0));
    result.panels[0].fact_s = wall_time() - t;
    next_bcast = f.start_bcast(0, s0, f.buffer(0));
  }
  for (long k = 0; k < panels; ++k) {
    const Step s = Step::of(l, k * l.nb);
    PanelTimes& times = result.panels[static_cast<std::size_t>(k)];
    times.j = s.j0;
    times.jb = s.jb;
    PanelBuffer& w = f.buffer(k);
    double t = wall_time();
    std::unique_ptr<lu::RowBroadcast> bcast_k;
    if (depth == 0) {
      f.fact(s, w);
      times.fact_s = wall_time() - t;
      t = wall_time();
      bcast_k = f.start_bcast(k, s, w);
    } else {
      bcast_k = std::move(next_bcast);
    }
    {
      lu::PhaseScope phase(nullptr, opt.trace, "LBCAST");
      bcast_k->finish();
    }
    f.panel_arrived(s, w);
    times.bcast_s = wall_time() - t;

    t = wall_time();
    f.solve_u(s, w);
    const bool look_ahead = depth == 1 && k + 1 < panels;
    long from = s.c1;
    double next_fact_s = 0;
    if (look_ahead) {
      // Panel k + 1's columns first (only its process column has any), then
      // its FACT and the start of its broadcast.
      const Step n = Step::of(l, s.j0 + s.jb);
      f.update(s, w, s.c1, n.c1);
      q.synchronize();
      from = n.c1;
      const double tf = wall_time();
      f.fact(n, f.buffer(k + 1));
      next_fact_s = wall_time() - tf;
      result.panels[static_cast<std::size_t>(k + 1)].fact_s = next_fact_s;
      next_bcast = f.start_bcast(k + 1, n, f.buffer(k + 1));
    }
    // The rest of the trailing update, in chunks with a look at the next
    // broadcast between them.
    const long chunk = look_ahead && l.npcol > 1 ? kUpdateChunkColumns : l.nloc;
    {
      lu::PhaseScope phase(nullptr, opt.trace, "UPDATE");
      for (long c = from; c < l.nloc; c += chunk) {
        f.update(s, w, c, std::min(l.nloc, c + chunk));
        q.synchronize();
        if (next_bcast) next_bcast->progress();
      }
    }
    if (opt.trace && opt.trace->activity()) opt.trace->activity()->closed_iteration(k + 1, panels);
    times.update_s = wall_time() - t - next_fact_s;
    if (panel_done) panel_done(s.j0 + s.jb);
  }
  int bad = f.bad();
  {  // every rank learns whether a pivot was bad: the whole grid waits
    lu::PhaseScope phase(nullptr, opt.trace, "SOLVE");
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, grid.all()));
  }
  result.bad_pivot = bad != 0;
  return result;
}

}  // namespace hplx::hplmxp
