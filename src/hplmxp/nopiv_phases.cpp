#include "hplmxp/nopiv_phases.hpp"

#include "core/error.hpp"
#include "device/launch.hpp"
#include "hplmxp/diagonal_block.hpp"
#include "hplmxp/triangle_inverse.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/phases/timing/phase_scope.hpp"

namespace hplx::hplmxp {

namespace {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

// Columns of the trailing update done between two looks at the next
// panel's broadcast (so its forwarding goes on while this process computes).
constexpr long kUpdateChunkColumns = 512;

}  // namespace

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
// update of my local columns there. With several process columns the
// update goes in chunks, the host moving the broadcast `in_flight` (if
// any) on between them. On the host the chunks are there with no
// broadcast too: SGEMM rounds by how the columns are cut, and a
// checkpoint's drain (no broadcast in flight) must cut them as the
// iterations beside a broadcast do.
void NopivPhases::apply(Factored& p, long g0, long g1, lu::PhaseTimes& tm,
                        NopivBroadcast* in_flight) {
  const Step& s = p;
  const auto [from, to] = local_columns(g0, g1);
  if (to <= from) return;  // the same on every process of this process column
  lu::DeviceTimeline::Span on_device(timeline_, q_, lu::DeviceTimeline::kUpdate);
  solve_u(s, *p.w, from, to, tm);
  lu::PhaseScope phase(&tm.update, opt_.trace, "UPDATE");
  const bool forward = in_flight && l_.npcol > 1;
  const bool chunked = l_.npcol > 1 && (in_flight || q_.runs_inline());
  const long chunk = chunked ? kUpdateChunkColumns : to - from;
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

}  // namespace hplx::hplmxp
