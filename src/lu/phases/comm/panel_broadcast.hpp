// LBCAST of one panel, plain or pipelined (seed 003 5.1.3.2).
//
// Plain: the whole factored panel (its buffer W with the pivots and info in
// the tail) goes along the process row in one broadcast after FACT.
//
// Pipelined (--bcast-pipeline on): the recursive factorization finishes its
// top-level sub-panels (netlib's NDIV parts) one after the other, and a
// finished sub-panel changes afterwards only where later pivots interchange
// rows. So each finished sub-panel goes out at once, while the rest is
// factored, and after FACT only the last sub-panel (with the tail) and a
// fix-up go: the earlier sub-panels' rows that later pivots changed, that is
// L1's rows and this process row's rows of L2 that a later pivot names.
// Receivers post every receive when the broadcast starts and apply the
// fix-up in finish(). A finished sub-panel is copied before it is sent: the
// factorization keeps interchanging its rows, and MPI forbids writing a
// buffer that is being sent.
//
// Every piece is a RowBroadcast with its own tag, in the test's topology.
#pragma once

#include <memory>
#include <vector>

#include "core/grid.hpp"
#include "core/timer.hpp"
#include "lu/config.hpp"
#include "lu/phases/comm/row_broadcast.hpp"
#include "lu/phases/panel.hpp"

namespace hplx::lu {

// What LBCAST needs of a test: the topology (HPL.dat line 23), NB (the
// rows' distribution), and with broadcast pipelining (--bcast-pipeline)
// FACT's top-level split (NBMIN, NDIV).
struct BcastParams {
  Broadcast topology = Broadcast::OneRingM;
  int nb = 1;
  bool pipeline = false;
  int nbmin = 4, ndiv = 2;
  // The plain broadcast of a panel factored on the device, from and into
  // W's device side (Schedule::device_mpi): the pivots and info travel in
  // the device tail, and receivers unpack nothing (panel_received_on_device).
  bool device_memory = false;
};
BcastParams bcast_params(const TestCase& t);

class PanelBroadcast {
 public:
  // Collective over grid.row(): every process of the row constructs it for
  // the same panel. Receivers post their receives now; the panel's process
  // column sends as FACT goes (subpanel_done) and at the end (send_rest).
  PanelBroadcast(Panel& panel, const BcastParams& params, const ProcessGrid& grid);
  ~PanelBroadcast();
  PanelBroadcast(const PanelBroadcast&) = delete;
  PanelBroadcast& operator=(const PanelBroadcast&) = delete;

  bool pipelined() const { return !starts_.empty(); }
  // The panel's process column, during FACT: sub-panel [first, end) is done.
  void subpanel_done(long first, long end);
  // The panel's process column, after FACT: the rest goes out.
  void send_rest();
  // Tests the messages in flight and posts the next ones; true when done.
  bool progress();
  // Completes everything; on receivers, the panel is whole afterwards
  // (pivots and info unpacked, fix-up applied).
  void finish();
  // From the first message posted to the last seen done; waits summed.
  CommTiming timing() const;

 private:
  void start(double* data, long count, int piece);
  double* buffer() { return params_.device_memory ? p_.w.device() : p_.w.data(); }
  std::vector<long> changed_rows() const;  // stacked rows of L2 the fix-up carries
  void pack_fixup();
  void apply_fixup();

  Panel& p_;
  const BcastParams params_;
  const ProcessGrid& grid_;
  bool sender_ = false;
  std::vector<long> starts_;  // top-level sub-panel starts; empty: plain
  long last_ = 0;             // first column of the last sub-panel
  std::vector<std::vector<double>> copies_;
  std::vector<double> fixup_;
  std::vector<std::unique_ptr<RowBroadcast>> pieces_;
  bool finished_ = false;
};

}  // namespace hplx::lu
