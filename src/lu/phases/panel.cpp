#include "lu/phases/panel.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "device/host_pass.hpp"
#include "lu/phases/device_timeline.hpp"
#include "lu/phases/fact_model.hpp"
#include "lu/phases/recursion_split.hpp"
#include "lu/phases/update.hpp"

namespace hplx::lu {

void PanelStore::reserve(const LocalMatrix& a, int count) {
  if (!a.backend().holds_data()) return;
  // W's largest size: ld = NB + all local rows, NB columns, the tail.
  const long most = (a.nb() + a.mp()) * static_cast<long>(a.nb()) + a.nb() + 1;
  for (int i = 0; i < count; ++i) {
    device::Mirror<double> w(a.backend());
    w.assign(most, 0.0);
    give(std::move(w));
  }
}

bool PanelStore::Kept::done() const {
  return std::all_of(ready.begin(), ready.end(), [](const auto& e) { return e->done(); });
}

device::Mirror<double> PanelStore::take(std::vector<device::EventPtr>* pending) {
  if (free_.empty()) return {};
  auto it = std::find_if(free_.rbegin(), free_.rend(), [](const Kept& k) { return k.done(); });
  Kept kept = std::move(it != free_.rend() ? *it : free_.front());
  free_.erase(it != free_.rend() ? std::next(it).base() : free_.begin());
  for (device::EventPtr& e : kept.ready) {
    if (e->done()) continue;
    if (pending)
      pending->push_back(std::move(e));
    else
      e->synchronize();
  }
  return std::move(kept.w);
}

Panel make_panel(const LocalMatrix& a, long k, const ProcessGrid& grid, PanelStore* store,
                 bool fact_on_device) {
  Panel p;
  p.owner_row = owner_of(k, a.nb(), grid.nprow());
  p.owner_col = owner_of(k, a.nb(), grid.npcol());
  const bool queue_writes_first = fact_on_device && grid.mycol() == p.owner_col;
  if (store) p.w = store->take(queue_writes_first ? &p.reuse_after : nullptr);
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

FactParams fact_params(const TestCase& t) {
  return {t.rfact,
          t.pfact,
          t.nbmin,
          t.ndiv,
          t.l1_transposed,
          t.schedule.fact_device_gemm,
          t.schedule.fact_on == FactOn::Device,
          t.schedule.fact_leaf,
          t.schedule.fact_blocks};
}

void factor_panel(device::Queue& q, LocalMatrix& a, Panel& p, const FactParams& algo,
                  const ProcessGrid& grid, int threads, const SubpanelDone& done,
                  DeviceTimeline* timeline) {
  const long jb = p.jb, ld = p.ld();
  const long lc0 = a.col_start(p.k);
  const long lr0 = a.row_start(p.k);
  const bool top = grid.myrow() == p.owner_row;
  {
    DeviceTimeline::Span down(timeline, q, DeviceTimeline::kTransfer);
    if (top) device::copy_matrix(q, jb, jb, a.at(lr0, lc0), a.lda(), p.a1(), ld);
    device::copy_matrix(q, p.m2, jb, a.at(p.a2_first, lc0), a.lda(), p.a2(), ld);
  }
  q.synchronize();
  // The host's passes over A1 (done, or charged where the backend's
  // buffers hold no data).
  const device::HostPass a1_pass = device::HostPass::strided(static_cast<double>(jb) * jb);
  auto host_pass = [&](auto&& pass) { device::on_host(a.backend(), a1_pass, pass); };
  if (grid.nprow() > 1) {
    // A1 is replicated down the column; send it as a jb x jb block.
    // Host memory of a's backend (the sim backend shares it between ranks).
    device::Buffer<double> block(a.backend(), jb * jb, device::MemorySpace::Host);
    if (top)
      host_pass([&] {
        for (long j = 0; j < jb; ++j) std::copy_n(p.a1() + j * ld, jb, block.data() + j * jb);
      });
    HPLX_MPI_CHECK(
        MPI_Bcast(block.data(), static_cast<int>(jb * jb), MPI_DOUBLE, p.owner_row, grid.col()));
    if (!top)
      host_pass([&] {
        for (long j = 0; j < jb; ++j) std::copy_n(block.data() + j * jb, jb, p.a1() + j * ld);
      });
  }

  const PanelRows rows{a.nb(), grid.nprow(), grid.myrow(), p.a2_first};
  if (!q.backend().holds_data())  // FACT's arithmetic charged, its pivots modelled
    model_stacked_panel(q.backend(), p, algo.nbmin, algo.ndiv, grid.col(), a.n(), done);
  else
    factor_stacked_panel(p, rows, algo.rfact, algo.pfact, algo.nbmin, algo.ndiv, grid.col(),
                         threads, done, FactDeviceGemm{&q, algo.device_gemm_cols});

  {
    DeviceTimeline::Span up(timeline, q, DeviceTimeline::kTransfer);
    if (top) device::copy_matrix(q, jb, jb, p.a1(), ld, a.at(lr0, lc0), a.lda());
    device::copy_matrix(q, p.m2, jb, p.a2(), ld, a.at(p.a2_first, lc0), a.lda());
  }
  q.synchronize();  // the panel's buffer changes next (L1 transposed, then LBCAST)
  if (algo.l1_transposed) host_pass([&] { transpose_l1(p); });
}

std::vector<long> subpanel_starts(int jb, int nbmin, int ndiv) {
  nbmin = std::max(1, nbmin);
  ndiv = std::max(2, ndiv);
  if (jb <= nbmin) return {0};
  // The recursion's split (panel_factor.cpp): NDIV parts, each a multiple of NBMIN.
  const long s = recursion_part(jb, nbmin, ndiv);
  std::vector<long> starts;
  for (long a = 0; a < jb; a += s) starts.push_back(a);
  return starts;
}

}  // namespace hplx::lu
