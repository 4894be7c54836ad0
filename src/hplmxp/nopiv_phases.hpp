// HPL-MxP's phase set for the LU's bsp look-ahead steps
// (lu/schedules/bsp_steps.hpp), beside `hplx lu`'s PivotingPhases
// (lu/schedules/pivoting_phases.hpp): the FP32 LU without pivoting, whose
// FACT, LBCAST, RS (U's solve and broadcast) and UPDATE (FP32 or 16-bit
// operands) lu_nopiv.hpp describes. The buffers a factorization keeps
// (NopivBuffers) are NopivWorkspace's.
#pragma once

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "core/flops.hpp"
#include "core/grid.hpp"
#include "device/buffer.hpp"
#include "device/mirror.hpp"
#include "device/precision.hpp"
#include "device/queue.hpp"
#include "hplmxp/lu_nopiv.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/config.hpp"
#include "lu/phases/comm/row_broadcast.hpp"

namespace hplx::lu {
class DeviceTimeline;
}

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
  bool finish_queues(device::Queue& fq) { return bad_so_far(fq); }
  // Whether a pivot was bad here so far (a checkpoint's state carries it):
  // the queues' work so far waited for.
  bool bad_so_far(device::Queue& fq) {
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

}  // namespace hplx::hplmxp
