#include "lu/run/phase_timing.hpp"

#include <mpi.h>

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/grid.hpp"
#include "device/device.hpp"
#include "device/launch.hpp"
#include "lu/config.hpp"
#include "lu/kernels/row_kernels.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/fact/fact_model.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/update/apply_panel.hpp"

namespace hplx::lu {
namespace {
constexpr long kChunk = kChunkColumns;  // the update's chunk (phases/update/apply_panel.hpp)

// Writes the cache line holding *p back to memory and drops it from every
// cache level (where the processor has an instruction for it; elsewhere
// nothing). Not clflushopt: a calibration took 47 s instead of 110 with it,
// but timed the diagonal block's gather at 1.9 ns per element, against
// 2.3-4.0 with clflush (14 calibrations) and about 3.4 in a 2x1 run.
inline void evict(const double* p) {
#if defined(__x86_64__)
  _mm_clflush(p);
#elif defined(__aarch64__)
  asm volatile("dc civac, %0" : : "r"(p) : "memory");
#else
  (void)p;
#endif
}
inline void evicted() {
#if defined(__x86_64__)
  _mm_mfence();
#elif defined(__aarch64__)
  asm volatile("dsb sy" : : : "memory");
#endif
}

// The lines of rows[0 .. count) (row indices, spread: a line each) and of
// the adjacent rows [first, first + b) over columns [0, n) of a.
void evict_rows(LocalMatrix& a, const long* rows, int count, long first, int b, long n) {
  constexpr long kPerLine = 64 / sizeof(double);
  for (long c = 0; c < n; ++c) {
    for (int i = 0; i < count; ++i) evict(a.at(rows[i], c));
    for (long r = first; r < first + b; r += kPerLine) evict(a.at(r, c));
    if (b > 0) evict(a.at(first + b - 1, c));
  }
  evicted();
}
}  // namespace

struct FactTiming::State {
  std::vector<double> src, a;
  long ld = 0, m = 0;
  int b = 0;
  Panel p;
};

FactTiming::FactTiming(std::vector<double> src, long ld, long m, int b)
    : s_(std::make_unique<State>()) {
  s_->src = std::move(src);
  s_->a.resize(s_->src.size());
  s_->ld = ld;
  s_->m = m;
  s_->b = b;
  Panel& p = s_->p;
  p.jb = b;
  p.m2 = m - b;
  p.a2_first = b;
  p.w.resize(p.ld() * b + b + 1);
}

FactTiming::~FactTiming() = default;

void FactTiming::prepare() {
  s_->a = s_->src;
}

void FactTiming::run() {
  const TestCase defaults;
  State& s = *s_;
  Panel& p = s.p;
  const PanelRows rows{s.b, 1, 0, s.b};
  for (long j = 0; j < s.b; ++j) std::copy_n(s.a.data() + j * s.ld, s.m, p.w.data() + j * p.ld());
  factor_stacked_panel(p, rows, defaults.rfact, defaults.pfact, defaults.nbmin, defaults.ndiv,
                       MPI_COMM_SELF, 1);
  for (long j = 0; j < s.b; ++j) std::copy_n(p.w.data() + j * p.ld(), s.m, s.a.data() + j * s.ld);
}

struct RowCopyTiming::State {
  State(long m, int b)
      : self(MPI_COMM_SELF, 1, 1, GridOrder::ColumnMajor),
        host(device::make_device(device::BackendKind::Host)),
        a(*host, m, b, self) {}
  ProcessGrid self;
  std::shared_ptr<device::Device> host;
  LocalMatrix a;
  Panel p;                  // Swap: the interchanges
  std::vector<long> rows;   // the rows a gather or scatter copies
  std::vector<double> buf;  // the row buffer (b x n) or U (n x b)
  device::RowCopy kind = device::RowCopy::Swap;
  long m = 0, n = 0, round = 0, first = 0;  // first: the block's first row
  int b = 0, threads = 1;
};

RowCopyTiming::RowCopyTiming(device::RowCopy kind, long m, long n, int b, int threads)
    : s_(std::make_unique<State>(m, b)) {
  State& s = *s_;
  s.kind = kind;
  s.m = m;
  s.n = n;
  s.b = b;
  s.threads = threads;
  for (long j = 0; j < s.a.nq(); ++j) std::fill_n(s.a.at(0, j), s.a.mp(), 1.0);
  s.p.k = 0;
  s.p.jb = b;  // m2 = 0: W holds L1 and the tail
  s.p.w.bind(s.host->backend());
  s.p.w.resize(static_cast<long>(b) * b + b + 1);
  s.p.ipiv.resize(b);
  s.rows.resize(b);
  s.buf.assign(static_cast<std::size_t>(b) * n, 0.5);
}

RowCopyTiming::~RowCopyTiming() = default;

void RowCopyTiming::prepare() {
  State& s = *s_;
  ++s.round;
  // Rows below the panel's, uniform and in no order, as HPL's pivots are
  // (the simulation's pivots, simulated_pivot). Rows a fixed
  // stride apart timed the gathers at 4.2 ns per element where a 2x1 run's
  // took 6-8: the processor's prefetchers follow a stride.
  for (int k = 0; k < s.b; ++k) {
    const long r = simulated_pivot(static_cast<std::uint64_t>(s.round), 0, s.b + k, s.m);
    s.p.ipiv[k] = r;
    s.rows[k] = r;
  }
  s.first = (s.round * s.b) % (s.m - s.b);  // another block each time
  if (s.kind == device::RowCopy::BlockGather)
    for (int k = 0; k < s.b; ++k) s.rows[k] = s.first + k;
  if (s.kind == device::RowCopy::Swap) {
    s.first = 0;                              // the interchanges' rows k .. k + b - 1
    panel_to_device(s.host->compute(), s.p);  // the swap reads the pivots there
  }
  // A run's matrix is far larger than the caches and its update streams
  // through them between two row swaps: the rows a copy touches start in
  // memory, not in a cache that earlier repetitions warmed.
  using device::RowCopy;
  const bool spread = s.kind != RowCopy::BlockGather && s.kind != RowCopy::BlockStore;
  const bool block = s.kind != RowCopy::Gather && s.kind != RowCopy::Scatter;
  evict_rows(s.a, s.rows.data(), spread ? s.b : 0, s.first, block ? s.b : 0, s.n);
}

void RowCopyTiming::run() {
  State& s = *s_;
  const long chunks = (s.n + kChunk - 1) / kChunk;
  device::Queue& q = s.host->compute();
  const long lda = s.a.lda(), m = s.b;
#pragma omp parallel for num_threads(s.threads) schedule(dynamic)
  for (long c = 0; c < chunks; ++c) {
    const long c0 = c * kChunk, w = std::min(kChunk, s.n - c0);
    double* rowbuf = s.buf.data() + m * c0;  // this chunk's rows, row-contiguous
    switch (s.kind) {
      case device::RowCopy::Swap:
        swap_rows_in_place(q, s.a, s.p, c0, w);
        break;
      case device::RowCopy::Gather:
      case device::RowCopy::BlockGather:
        device::launch(q, kernels::row_copy_indices(m, w),
                       kernels::GatherRows{s.a.at(0, c0), lda, s.rows.data(), m, w, rowbuf});
        break;
      case device::RowCopy::Scatter:
        device::launch(q, kernels::row_copy_indices(m, w),
                       kernels::ScatterRows{s.a.at(0, c0), lda, s.rows.data(), m, w, rowbuf});
        break;
      case device::RowCopy::BlockStore:
        device::launch(
            q, w, kernels::StoreTransposedU{s.buf.data() + c0, s.n, s.b, s.a.at(s.first, c0), lda});
        break;
    }
  }
}

}  // namespace hplx::lu
