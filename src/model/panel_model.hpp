// The per-panel HPL cost model of netlib's scalability analysis
// (www/scalability.html of HPL 2.3), charged to communication layers.
//
// Panel k (0-based) factors the NB columns starting at global column
// c = k NB of a trailing matrix of order n = N - c; b = min(NB, n) and
// u = n - b is the order updated after it. With gamma seconds per flop and
// a layer's alpha (s per message) and beta (s per 8-byte word):
//   compute  = gamma [ max(0, n/P - b/3) b^2 + u b^2/Q + 2 u^2 b/(PQ) ]
//   pivot    = b log2(P) (alpha_r + beta_r (2b + 4))
//   bcast    = alpha_r + beta_r n b / P
//   update   = alpha_c (log2(P) + P - 1) + 3 beta_c u b / Q
// where layer r is the first whose row range contains c and layer c the
// first whose column range contains c (the MCL reading, docs/MODEL.md).
// With one layer covering everything this is netlib's
// Sum_k [Tpfact(N - kNB, NB) + Tupdate(N - kNB - NB, NB)].
//
// CpuTerms refine the compute of a calibrated CPU rank (docs/MODEL.md, "CPU
// terms"): FACT at its own rate plus a time per column, DTRSM at its own
// rate, the local row swap / U copy per word, and FACT hidden beside the
// update (threads) or behind the other process columns (look-ahead). With
// none of them set, the sum is exactly the one above.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/flops.hpp"

namespace hplx::model {

// One communication layer: its cost and the global-column range it covers,
// [previous layer's end, rows_end) for pivoting and broadcast and
// [previous layer's end, cols_end) for the update.
struct LayerParams {
  std::string name;
  double alpha_s = 0;
  double beta_s = 0;  // seconds per 8-byte word
  double rows_end = 0;
  double cols_end = 0;
};

// Per panel, with f = max(0, n/P - b/3) b^2 FACT flops:
//   t_fact = b lambda_f + f / R_f                  (R_f unset: f gamma)
//            + 2 (alpha_h + beta_h b n/P)          (FACT on the host: the
//              panel's local rows to it and back over the device-host link)
//   t_trsm = u b^2 / Q / R_trsm                    (unset: gamma)
//   t_gemm = 2 u^2 b / (PQ) / R_upd                (unset: gamma)
//   t_copy = t_sw b u / Q                          (local row swap, U copy)
//   t_upd  = t_trsm + t_gemm + t_copy
//   t_tail = the last chunks' imbalance beside FACT (fact_beside_update;
//            chunk_columns unset: 0), charged with FACT's exposed share
// FACT's exposed share e: with overlap (FACT on one of T threads, the
// update on the other T - 1 at the fraction r = R(T-1)/R(T) of its rate
// meanwhile) e = max(t_fact (1 - r), t_fact - t_upd'), so that
// t_upd' + e = max(t_fact, t_upd' + t_fact (1 - r)); without, e = t_fact.
// t_upd' is the update FACT runs beside: with look-ahead the previous
// panel's (hplx lu's iteration k factors panel k while panel k - 1's update
// runs; panel 0 has none, e = t_fact), else the panel's own. With
// look-ahead iter_s[k] follows the run's iterations: e_k, panel k - 1's
// update and panel k's communication. With look-ahead and Q > 1 each
// process column factors one panel in Q while the others update: e / Q
// (panel 0 excepted).
struct CpuTerms {
  double fact_s_per_flop = 0;  // 1 / R_f; 0: gamma
  double fact_column_s = 0;    // lambda_f
  double trsm_s_per_flop = 0;  // 1 / R_trsm; 0: gamma
  double gemm_s_per_flop = 0;  // 1 / R_upd, the update's DGEMM as dealt; 0: gamma
  double swap_s_per_word = 0;  // t_sw
  // FACT on the host of a device: the panel's copy each way (alpha_h, beta_h).
  double panel_copy_alpha_s = 0, panel_copy_s_per_word = 0;
  // FACT on a GPU's own queue, replacing the terms above (empty: FACT from
  // them): one panel's seconds at (local rows, width) with the device to
  // itself (first) and beside the update (second). As hplx sim charges it,
  // FACT runs at the beside pace while the update it hides behind lasts
  // and at the alone pace after: exposed = (1 - t_upd' / beside) alone
  // where beside > t_upd', else 0; alone without overlap or an update.
  std::function<std::pair<double, double>(double rows, double b)> device_fact;
  // The update's DGEMM on a GPU at its local shape (rows x columns x b):
  // seconds for its flops, as hplx sim charges it (empty: gemm_s_per_flop).
  std::function<double(double rows, double cols, double b, double flops)> device_gemm;
  double overlap_ratio = -1;  // r >= 0: FACT beside the update; < 0: no overlap
  bool look_ahead = false;
  long chunk_columns = 0;  // the update's chunk beside FACT; 0: no tail term
  int threads = 1;         // T, threads per rank
  bool any() const {
    return fact_s_per_flop > 0 || fact_column_s > 0 || trsm_s_per_flop > 0 || gemm_s_per_flop > 0 ||
           swap_s_per_word > 0 || panel_copy_alpha_s > 0 || panel_copy_s_per_word > 0 ||
           overlap_ratio >= 0 || look_ahead || bool(device_fact) || bool(device_gemm);
  }
};

// The wall time the update loses to its last chunk when T threads take
// `chunk_columns`-wide chunks of `columns` columns dynamically and the
// update alone would take t_upd on T threads: one chunk on one thread is
// c = T t_upd min(chunk, columns) / columns; with many chunks the threads
// finish at a uniformly spread phase, so the others idle (T - 1) c / 2 on
// average and the wall grows by (T - 1) c / (2T); with fewer chunks than
// threads the wall is one chunk, c (1 - chunks / T) more than t_upd.
// 0 for T < 2 or no chunks.
double chunk_tail_s(double t_upd, double columns, long chunk_columns, int threads);

// FACT (t_fact, one thread) beside an update (t_upd on all T threads, over
// `columns` local columns): its exposed share e, from the fluid picture
// t_upd + e = max(t_fact, t_upd + t_fact (1 - r)), and the chunks' tail
// (chunk_columns > 0, T >= 2): when the other T - 1 threads have started
// every chunk by the time FACT ends (one chunk on such a thread takes
// c (T - 1) / (r T)), the wall is theirs, max(t_fact, ceil(chunks / (T - 1))
// whole chunks), and the tail what that adds to the fluid time; else the
// FACT thread joins and the tail is chunk_tail_s.
struct Overlap {
  double exposed = 0;
  double tail = 0;
};
Overlap fact_beside_update(double t_fact, double t_upd, double columns, double r,
                           long chunk_columns, int threads);

struct Problem {
  long n = 0;
  int nb = 0;
  int p = 1;  // netlib's P (the process column that pivots)
  int q = 1;
  double gamma_s = 0;  // seconds per flop on one device
  CpuTerms cpu;        // none: netlib's compute term
};

struct LayerTimes {
  std::string name;
  double alpha_s = 0, beta_s = 0, rows_end = 0, cols_end = 0;
  double pivot_s = 0, bcast_s = 0, update_s = 0;
  long row_panels = 0, col_panels = 0;  // panels charged to this layer
  double comm_s() const { return pivot_s + bcast_s + update_s; }
};

struct PanelSum {
  double total_s = 0;
  double compute_s = 0;  // fact_s + trsm_s + dgemm_s + tail_s
  // The compute split: FACT as charged (its exposed share), FACT's whole
  // time, DTRSM, DGEMM; and the local row swap / U copy (not in compute_s).
  double fact_s = 0, fact_total_s = 0, trsm_s = 0, dgemm_s = 0, swap_copy_s = 0;
  double tail_s = 0;  // the last chunks' imbalance beside FACT (in compute_s)
  std::vector<LayerTimes> layers;
  std::vector<double> iter_s;  // per panel: compute + copy + communication
};

// Sums the per-panel costs. Layers must be ordered with growing ranges and
// the last must cover the whole matrix.
PanelSum per_panel_sum(const Problem& pb, const std::vector<LayerParams>& layers);

// netlib's closed form (dominant terms only):
//   T = 2 N^3 gamma/(3PQ) + beta N^2 (3P+Q)/(2PQ) + alpha N ((NB+1) log2 P + P)/NB
struct ClosedForm {
  double compute_s = 0, beta_s = 0, alpha_s = 0;
  double total_s() const { return compute_s + beta_s + alpha_s; }
};
ClosedForm closed_form(const Problem& pb, double alpha_s, double beta_s);

// log2(P), 0 for P = 1.
double log2p(int p);

// HPL's operation count, 2/3 N^3 + 3/2 N^2 (core/flops.hpp).
using hplx::hpl_flops;

}  // namespace hplx::model
