#include "lu/phases/comm/panel_broadcast.hpp"

#include <algorithm>

#include "lu/block_cyclic.hpp"
#include "lu/phases/fact/panel_factor.hpp"

namespace hplx::lu {
namespace {

// Piece i of a panel's broadcast travels with tag kFirstTag + i.
constexpr int kFirstTag = 1000;

}  // namespace

BcastParams bcast_params(const TestCase& t) {
  const bool device_memory =
      t.schedule.device_mpi && t.schedule.fact_on == FactOn::Device && !t.schedule.bcast_pipeline;
  return {t.bcast, t.nb, t.schedule.bcast_pipeline, t.nbmin, t.ndiv, device_memory};
}

PanelBroadcast::PanelBroadcast(Panel& panel, const BcastParams& params, const ProcessGrid& grid)
    : p_(panel), params_(params), grid_(grid), sender_(grid.mycol() == panel.owner_col) {
  if (grid.npcol() == 1 || panel.jb == 0) return;
  if (params.pipeline) {
    std::vector<long> starts = subpanel_starts(panel.jb, params.nbmin, params.ndiv);
    if (starts.size() > 1) {
      starts_ = std::move(starts);
      last_ = starts_.back();
      copies_.resize(starts_.size() - 1);
    }
  }
  if (sender_) return;
  const long ld = p_.ld(), jb = p_.jb;
  if (!pipelined()) {
    start(buffer(), static_cast<long>(p_.w.size()), 0);
    return;
  }
  const int pieces = static_cast<int>(starts_.size());
  for (int i = 0; i + 1 < pieces; ++i)
    start(p_.w.data() + starts_[i] * ld, (starts_[i + 1] - starts_[i]) * ld, i);
  start(p_.w.data() + last_ * ld, (jb - last_) * ld + jb + 1, pieces - 1);
  fixup_.assign(static_cast<std::size_t>(jb + (jb - starts_[1])) * last_, 0.0);
  start(fixup_.data(), static_cast<long>(fixup_.size()), pieces);
}

PanelBroadcast::~PanelBroadcast() = default;

void PanelBroadcast::start(double* data, long count, int piece) {
  pieces_.push_back(std::make_unique<RowBroadcast>(data, count, params_.topology, p_.owner_col,
                                                   grid_.row(), kFirstTag + piece));
}

void PanelBroadcast::subpanel_done(long first, long end) {
  if (!pipelined() || !sender_) return;
  const auto i = std::find(starts_.begin(), starts_.end(), first) - starts_.begin();
  const long ld = p_.ld();
  std::vector<double>& copy = copies_.at(i);
  copy.assign(p_.w.begin() + first * ld, p_.w.begin() + end * ld);
  start(copy.data(), static_cast<long>(copy.size()), static_cast<int>(i));
}

void PanelBroadcast::send_rest() {
  if (grid_.npcol() == 1 || p_.jb == 0 || !sender_) return;
  if (!params_.device_memory) pack_panel_tail(p_);
  if (!pipelined()) {
    start(buffer(), static_cast<long>(p_.w.size()), 0);
    return;
  }
  const long ld = p_.ld(), jb = p_.jb;
  const int pieces = static_cast<int>(starts_.size());
  start(p_.w.data() + last_ * ld, (jb - last_) * ld + jb + 1, pieces - 1);
  pack_fixup();
  start(fixup_.data(), static_cast<long>(fixup_.size()), pieces);
}

// The stacked rows of this process row's L2 that a pivot after the first
// sub-panel names: rows the first sub-panels had when they were sent and
// that have changed since.
std::vector<long> PanelBroadcast::changed_rows() const {
  std::vector<long> rows;
  const long k = p_.k, jb = p_.jb;
  for (long c = starts_[1]; c < jb; ++c) {
    const long g = p_.ipiv[c];
    if (g < k + jb || owner_of(g, params_.nb, grid_.nprow()) != grid_.myrow()) continue;
    const long stacked = jb + (global_to_local(g, params_.nb, grid_.nprow()) - p_.a2_first);
    if (std::find(rows.begin(), rows.end(), stacked) == rows.end()) rows.push_back(stacked);
  }
  return rows;
}

// fixup = [L1 rows, columns [0, last): jb x last | changed rows: (jb - b0) x last]
void PanelBroadcast::pack_fixup() {
  const long ld = p_.ld(), jb = p_.jb, spare = jb - starts_[1];
  fixup_.assign(static_cast<std::size_t>(jb + spare) * last_, 0.0);
  const std::vector<long> rows = changed_rows();
  for (long c = 0; c < last_; ++c) {
    std::copy_n(p_.w.data() + c * ld, jb, fixup_.data() + c * jb);
    double* out = fixup_.data() + jb * last_ + c * spare;
    for (std::size_t i = 0; i < rows.size(); ++i) out[i] = p_.w[rows[i] + c * ld];
  }
}

void PanelBroadcast::apply_fixup() {
  const long ld = p_.ld(), jb = p_.jb, spare = jb - starts_[1];
  const std::vector<long> rows = changed_rows();
  for (long c = 0; c < last_; ++c) {
    std::copy_n(fixup_.data() + c * jb, jb, p_.w.data() + c * ld);
    const double* in = fixup_.data() + jb * last_ + c * spare;
    for (std::size_t i = 0; i < rows.size(); ++i) p_.w[rows[i] + c * ld] = in[i];
  }
}

bool PanelBroadcast::progress() {
  bool done = true;
  for (auto& piece : pieces_) done = piece->progress() && done;
  return done;
}

void PanelBroadcast::finish() {
  if (finished_) return;
  for (auto& piece : pieces_) piece->finish();
  finished_ = true;
  if (sender_ || grid_.npcol() == 1 || p_.jb == 0 || params_.device_memory) return;
  unpack_panel_tail(p_);
  if (pipelined()) apply_fixup();
}

CommTiming PanelBroadcast::timing() const {
  CommTiming all;
  for (const auto& piece : pieces_) {
    const CommTiming& t = piece->timing();
    if (all.started == 0 || t.started < all.started) all.started = t.started;
    all.completed = std::max(all.completed, t.completed);
    all.waited += t.waited;
  }
  return all;
}

}  // namespace hplx::lu
