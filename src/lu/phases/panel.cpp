#include "lu/phases/panel.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace hplx::lu {

Panel make_panel(const LocalMatrix& a, long k, const ProcessGrid& grid, const PanelBuffers& buffers,
                 bool fact_on_device) {
  Panel p;
  p.owner_row = owner_of(k, a.nb(), grid.nprow());
  p.owner_col = owner_of(k, a.nb(), grid.npcol());
  const bool queue_writes_first = fact_on_device && grid.mycol() == p.owner_col;
  if (buffers) p.w = buffers(queue_writes_first ? &p.reuse_after : nullptr);
  p.k = k;
  p.jb = static_cast<int>(std::min<long>(a.nb(), a.n() - k));
  p.a2_first = a.row_start(k) + (grid.myrow() == p.owner_row ? p.jb : 0);
  p.m2 = std::max(0L, a.mp() - p.a2_first);
  p.w.bind(a.backend());
  p.w.resize(p.ld() * p.jb + p.jb + 1);
  p.ipiv.assign(p.jb, 0);
  return p;
}

void pack_panel_tail(Panel& p) {
  double* tail = p.tail();
  for (int c = 0; c < p.jb; ++c) tail[c] = static_cast<double>(p.ipiv[c]);
  tail[p.jb] = static_cast<double>(p.info);
}

void unpack_panel_tail(Panel& p) {
  const double* tail = p.tail();
  for (int c = 0; c < p.jb; ++c) p.ipiv[c] = static_cast<long>(tail[c]);
  p.info = static_cast<long>(tail[p.jb]);
}

void panel_to_device(device::Queue& q, Panel& p) {
  if (p.on_device) {
    if (p.factored) q.wait(p.factored);
    return;
  }
  pack_panel_tail(p);
  p.w.to_device(q);
}

void transpose_l1(Panel& p) {
  double* a1 = p.a1();
  const long ld = p.ld();
  for (long j = 0; j < p.jb; ++j)
    for (long i = j + 1; i < p.jb; ++i) std::swap(a1[i + j * ld], a1[j + i * ld]);
}

}  // namespace hplx::lu
