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
#pragma once

#include <string>
#include <vector>

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

struct Problem {
  long n = 0;
  int nb = 0;
  int p = 1;  // netlib's P (the process column that pivots)
  int q = 1;
  double gamma_s = 0;  // seconds per flop on one device
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
  double compute_s = 0;
  std::vector<LayerTimes> layers;
  std::vector<double> iter_s;  // per panel: compute + communication
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

// HPL's operation count, 2/3 N^3 + 3/2 N^2.
double hpl_flops(long n);

}  // namespace hplx::model
