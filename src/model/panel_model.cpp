#include "model/panel_model.hpp"

#include <algorithm>
#include <cmath>

namespace hplx::model {

double log2p(int p) {
  return p > 1 ? std::log2(static_cast<double>(p)) : 0.0;
}

namespace {

// The layers' times, each with its costs and ranges and nothing charged yet.
PanelSum empty_sum(const std::vector<LayerParams>& layers) {
  PanelSum out;
  for (const auto& l : layers) {
    LayerTimes t;
    t.name = l.name;
    t.alpha_s = l.alpha_s;
    t.beta_s = l.beta_s;
    t.rows_end = l.rows_end;
    t.cols_end = l.cols_end;
    out.layers.push_back(t);
  }
  return out;
}

// Panel k's shape: its first global column, the trailing order n, its width
// b, the order u updated after it, and the flops of FACT, DTRSM and DGEMM.
struct PanelShape {
  double col, n, b, u;
  double fact_flops, trsm_flops, gemm_flops;
};

PanelShape panel_shape(const Problem& pb, long k) {
  const double P = pb.p, Q = pb.q;
  const double col = static_cast<double>(k) * pb.nb;
  const double n = static_cast<double>(pb.n) - col;
  const double b = std::min<double>(pb.nb, n);
  const double u = n - b;
  const double fact_flops = std::max(0.0, n / P - b / 3.0) * b * b;
  const double trsm_flops = u * b * b / Q;
  const double gemm_flops = 2.0 * u * u * b / (P * Q);
  return {col, n, b, u, fact_flops, trsm_flops, gemm_flops};
}

// One panel's compute as charged: `comp` (exposed FACT, tail, DTRSM,
// DGEMM), `copy` (the local row swap / U copy) and `work` (its update, which
// the next panel's FACT hides behind with look-ahead).
struct PanelCompute {
  double comp = 0, copy = 0, work = 0;
};

// Look-ahead's state: whether FACT hides behind the previous panel's update
// (`shifted`), and that update's t_upd and local columns.
struct PreviousUpdate {
  bool shifted = false;
  double work = 0, cols = 0;
};

// netlib's compute term: every flop at gamma.
PanelCompute gamma_compute(const Problem& pb, const PanelShape& s, PanelSum& out) {
  PanelCompute pc;
  pc.comp = pb.gamma_s * (s.fact_flops + s.trsm_flops + s.gemm_flops);
  out.fact_s += pb.gamma_s * s.fact_flops;
  out.fact_total_s += pb.gamma_s * s.fact_flops;
  out.trsm_s += pb.gamma_s * s.trsm_flops;
  out.dgemm_s += pb.gamma_s * s.gemm_flops;
  return pc;
}

// The compute of a calibrated CPU rank (or a device) from the CpuTerms:
// FACT's exposed share beside the update it hides behind, DTRSM, DGEMM and
// the local copy, each added to its sum in `out`.
PanelCompute cpu_compute(const Problem& pb, const PanelShape& s, long k, const PreviousUpdate& prev,
                         PanelSum& out) {
  const CpuTerms& cpu = pb.cpu;
  const double P = pb.p, Q = pb.q;
  const double n = s.n, b = s.b, u = s.u;
  PanelCompute pc;
  const auto [dev_alone, dev_beside] =
      cpu.device_fact ? cpu.device_fact(n / P, b) : std::pair<double, double>{0, 0};
  const double t_fact =
      cpu.device_fact
          ? dev_beside
          : b * cpu.fact_column_s +
                s.fact_flops * (cpu.fact_s_per_flop > 0 ? cpu.fact_s_per_flop : pb.gamma_s) +
                2.0 * (cpu.panel_copy_alpha_s + cpu.panel_copy_s_per_word * b * n / P);
  const double t_trsm = s.trsm_flops * (cpu.trsm_s_per_flop > 0 ? cpu.trsm_s_per_flop : pb.gamma_s);
  const double t_gemm =
      cpu.device_gemm ? cpu.device_gemm(u / P, u / Q, b, s.gemm_flops)
                      : s.gemm_flops * (cpu.gemm_s_per_flop > 0 ? cpu.gemm_s_per_flop : pb.gamma_s);
  pc.copy = cpu.swap_s_per_word * b * u / Q;
  const double t_upd = t_trsm + t_gemm + pc.copy;
  // What FACT hides behind: this panel's update, or with look-ahead the
  // previous panel's (none for panel 0).
  const double beside = prev.shifted ? prev.work : t_upd;
  const double beside_cols = prev.shifted ? prev.cols : u / Q;
  Overlap o{t_fact, 0};
  const bool overlaps = cpu.overlap_ratio >= 0 && !(prev.shifted && k == 0);
  if (cpu.device_fact)
    o.exposed = !overlaps              ? dev_alone
                : dev_beside <= beside ? 0.0
                                       : (1.0 - beside / dev_beside) * dev_alone;
  else if (overlaps)
    o = fact_beside_update(t_fact, beside, beside_cols, cpu.overlap_ratio, cpu.chunk_columns,
                           cpu.threads);
  if (cpu.look_ahead && pb.q > 1 && k > 0) o.exposed /= Q;
  pc.comp = o.exposed + o.tail + t_trsm + t_gemm;
  pc.work = t_upd;
  out.fact_s += o.exposed;
  out.fact_total_s += t_fact;
  out.trsm_s += t_trsm;
  out.dgemm_s += t_gemm;
  out.swap_copy_s += pc.copy;
  out.tail_s += o.tail;
  return pc;
}

// Charges the panel's pivoting and broadcast to layer r and its update to
// layer c; returns the three together.
double charge_communication(const Problem& pb, const PanelShape& s,
                            const std::vector<LayerParams>& layers, size_t r, size_t c,
                            PanelSum& out) {
  const double P = pb.p, Q = pb.q, lp = log2p(pb.p);
  const double n = s.n, b = s.b, u = s.u;
  const LayerParams& lr = layers[r];
  const LayerParams& lc = layers[c];
  const double piv = b * lp * (lr.alpha_s + lr.beta_s * (2.0 * b + 4.0));
  const double bc = lr.alpha_s + lr.beta_s * n * b / P;
  const double up = lc.alpha_s * (lp + P - 1.0) + 3.0 * lc.beta_s * u * b / Q;
  out.layers[r].pivot_s += piv;
  out.layers[r].bcast_s += bc;
  out.layers[r].row_panels += 1;
  out.layers[c].update_s += up;
  out.layers[c].col_panels += 1;
  return piv + bc + up;
}

}  // namespace

PanelSum per_panel_sum(const Problem& pb, const std::vector<LayerParams>& layers) {
  PanelSum out = empty_sum(layers);
  const long panels = pb.nb > 0 ? (pb.n + pb.nb - 1) / pb.nb : 0;
  out.iter_s.resize(panels);
  const double Q = pb.q;
  const CpuTerms& cpu = pb.cpu;
  const size_t last = layers.size() - 1;
  size_t r = 0, c = 0;  // ranges grow with the column, so the layer index only advances
  // With look-ahead, panel k's FACT runs beside the update of panel k - 1
  // (hplx lu's iteration k), so that update is what it hides behind, and
  // iter_s[k] holds it; panel 0's FACT has nothing beside it.
  PreviousUpdate prev;  // panel k - 1's t_upd and its local columns
  prev.shifted = cpu.any() && cpu.look_ahead;
  for (long k = 0; k < panels; ++k) {
    const PanelShape s = panel_shape(pb, k);
    while (r < last && s.col >= layers[r].rows_end) ++r;
    while (c < last && s.col >= layers[c].cols_end) ++c;
    const PanelCompute pc =
        !cpu.any() ? gamma_compute(pb, s, out) : cpu_compute(pb, s, k, prev, out);
    const double comm = charge_communication(pb, s, layers, r, c, out);
    out.compute_s += pc.comp;
    if (prev.shifted) {
      // Iteration k: panel k's exposed FACT and communication, panel k - 1's
      // update; the last iteration also finishes its own panel's update.
      out.iter_s[k] = (pc.comp - pc.work + pc.copy) + prev.work + comm;
      if (k == panels - 1) out.iter_s[k] += pc.work;
      prev.work = pc.work;
      prev.cols = s.u / Q;
    } else {
      out.iter_s[k] = pc.comp + pc.copy + comm;
    }
    out.total_s += pc.comp + pc.copy + comm;
  }
  return out;
}

Overlap fact_beside_update(double t_fact, double t_upd, double columns, double r,
                           long chunk_columns, int threads) {
  // The fluid part: FACT and the update on T - 1 threads at the fraction r
  // of the update's rate, then the update on all T.
  Overlap o;
  const double fluid = std::max(t_fact, t_upd + t_fact * (1.0 - r));
  o.exposed = fluid - t_upd;
  if (threads < 2 || chunk_columns <= 0 || columns <= 0 || t_upd <= 0 || r <= 0) return o;
  const double T = threads;
  const double chunks = std::ceil(columns / static_cast<double>(chunk_columns));
  const double c = t_upd * std::min<double>(chunk_columns, columns) / columns * T;
  const double c_beside = c * (T - 1.0) / (r * T);  // one chunk on a thread beside FACT
  // The T - 1 threads have started (T - 1) ceil(t_fact / c_beside) chunks
  // when FACT ends; if that is all of them, the FACT thread finds none and
  // the wall is theirs (whole chunks at the beside rate), else it joins
  // and the last chunks' imbalance follows.
  const double started = (T - 1.0) * std::ceil(t_fact / c_beside);
  if (t_fact > 0 && chunks <= started) {
    const double wall = std::max(t_fact, std::ceil(chunks / (T - 1.0)) * c_beside);
    o.tail = std::max(0.0, wall - fluid);
  } else {
    o.tail = chunk_tail_s(t_upd, columns, chunk_columns, threads);
  }
  return o;
}

double chunk_tail_s(double t_upd, double columns, long chunk_columns, int threads) {
  if (threads < 2 || chunk_columns <= 0 || columns <= 0 || t_upd <= 0) return 0;
  const double chunks = std::ceil(columns / static_cast<double>(chunk_columns));
  // One chunk on one thread: T times the update's time per column at T threads.
  const double chunk_s = t_upd * std::min<double>(chunk_columns, columns) / columns * threads;
  const double T = threads;
  return chunk_s * std::max((T - 1.0) / (2.0 * T), 1.0 - chunks / T);
}

ClosedForm closed_form(const Problem& pb, double alpha_s, double beta_s) {
  const double N = static_cast<double>(pb.n), P = pb.p, Q = pb.q, NB = pb.nb;
  ClosedForm f;
  f.compute_s = 2.0 * N * N * N * pb.gamma_s / (3.0 * P * Q);
  f.beta_s = beta_s * N * N * (3.0 * P + Q) / (2.0 * P * Q);
  f.alpha_s = alpha_s * N * ((NB + 1.0) * log2p(pb.p) + P) / NB;
  return f;
}

}  // namespace hplx::model
