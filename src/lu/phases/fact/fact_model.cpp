// FACT's model: what FACT costs where the backend's buffers hold no data
// (a simulated backend: Backend::holds_data, device/simulation.hpp), so
// that FACT's arithmetic is charged instead of done and the pivots, which
// need the data, come from the simulation's model. The real FACT is
// panel_factor.cpp (host) and panel_factor_device.cpp (device); fact_engine()
// below chooses among them and this once per solve, by whether the backend
// holds data.
#include "lu/phases/fact/fact_model.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "lu/phases/fact/pivot_candidate.hpp"
#include "lu/phases/fact/recursive_steps.hpp"

namespace hplx::lu {
namespace {

// The simulation behind a backend that holds no data.
device::Simulation& simulation_of(device::Backend& backend) {
  device::Simulation* sim = backend.simulation();
  if (sim == nullptr)
    throw Error("FACT's model: the backend holds no data but models no work either");
  return *sim;
}

}  // namespace

namespace {

// The pivot exchanges of `columns` columns over the process column, in a
// simulation: the first exchange waits for the column's slowest process,
// the second is timed on the simulated clock, and the other columns' are
// charged at that time. Two real collectives per sub-panel instead of one
// per column: the messages of a large simulation are the simulator's cost
// (N x P log2 P of them otherwise), and small exchanges of equal size on a
// synchronised column cost alike.
class SimulatedPivotExchange {
 public:
  SimulatedPivotExchange(MPI_Comm col, long jb)
      : candidates_(col, jb), mine_(jb + 2, 0.0), best_(jb + 2) {}

  void columns(device::Simulation& sim, long count) {
    if (!candidates_.several() || count == 0) return;
    candidates_.reduce(mine_.data(), best_.data());
    if (count == 1) return;
    const double start = wall_time();  // the simulated clock
    candidates_.reduce(mine_.data(), best_.data());
    sim.host_work(static_cast<double>(count - 2) * (wall_time() - start));
  }

 private:
  CandidateExchange candidates_;
  std::vector<double> mine_, best_;
};

}  // namespace

FactEngine fact_engine(bool on_device, const device::Backend& backend) {
  if (backend.holds_data()) return on_device ? FactEngine::Device : FactEngine::Host;
  return on_device ? FactEngine::ModelledDevice : FactEngine::ModelledHost;
}

void model_stacked_panel(device::Backend& backend, Panel& panel, int nbmin, int ndiv, MPI_Comm col,
                         long n, const SubpanelDone& done) {
  const long jb = panel.jb;
  panel.ipiv.assign(jb, 0);
  panel.info = 0;
  if (jb == 0) return;
  device::Simulation& sim = simulation_of(backend);
  const device::SimModel& model = sim.model();
  SimulatedPivotExchange exchange(col, jb);
  std::vector<long> bounds = subpanel_starts(panel.jb, nbmin, ndiv);
  bounds.push_back(jb);
  const double rows = static_cast<double>(jb + panel.m2);
  // One charge per top-level sub-panel, whose end the look-ahead and the
  // device's trailing update wait for (the last one's is FACT's end).
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    double seconds = 0;
    for (long c = bounds[s]; c < bounds[s + 1]; ++c) {
      // Column c's part of the recursion: the rows from c down, scaled and
      // updated over the columns right of it (rows x jb^2 flops in all).
      const double flops = 2.0 * std::max(0.0, rows - c) * static_cast<double>(jb - c);
      seconds += flops / model.fact_flops + model.fact_column_s;
      panel.ipiv[c] = simulated_pivot(model.seed, panel.k, c, n);
    }
    sim.host_work(seconds);
    exchange.columns(sim, bounds[s + 1] - bounds[s]);
    if (done && s + 2 < bounds.size()) done(bounds[s], bounds[s + 1]);
  }
}

namespace {

// The device FACT's sequence (panel_factor_device.cpp's DeviceFact),
// walked for its modelled cost: per top-level sub-panel, the seconds of the
// queue's work and the columns it factors.
class DeviceFactCost {
 public:
  DeviceFactCost(const device::SimModel& m, long rows, long jb, Factorization rfact,
                 Factorization pfact, int nbmin, int ndiv, bool several)
      : m_(m),
        ld_(rows),
        jb_(jb),
        m2_(rows - jb),
        rfact_(rfact),
        pfact_(pfact),
        nbmin_(std::max(1, nbmin)),
        ndiv_(std::max(2, ndiv)),
        several_(several) {}

  // Seconds of each top-level sub-panel (the first also fills the tail).
  std::vector<double> subpanels() {
    parts_.clear();
    parts_.push_back(launch(8.0 * (jb_ + 1)));  // FillDoubles of the tail
    walk_recursion(rfact_, nbmin_, ndiv_, jb_, 0, jb_, *this);
    return parts_;
  }

  // The recursion's steps (recursive_steps.hpp), costed.
  void solve(long, long k, Columns cols) { trsm(k, cols.count); }
  void update_below(long from, Columns cols, Columns inner, long /*level*/) {
    below(from, [&](long, long m) { gemm(m, cols.count, inner.count); });
  }
  void update_rows(Columns rows, Columns cols, Columns inner) {
    gemm(rows.count, cols.count, inner.count);
  }
  void subpanel_done(long, long) { parts_.push_back(0); }  // the next part's seconds
  void leaf(long c0, long n) {
    const long end = c0 + n;
    for (long c = c0; c < end; ++c) {
      if (c > c0 && pfact_ != Factorization::Right) {
        if (pfact_ == Factorization::Left) trsm(c - c0, 1);
        below(c, [&](long, long m) { gemv(m, c - c0); });
      }
      const double rows = static_cast<double>(ld_ - c);
      add(launch(8.0 * rows));  // the chunks' candidates: the column read once
      // The groups' candidates, then the pick (one thread) and the swap in
      // W: one launch's overhead for the two. Neither scan's chain of loads
      // is modelled; the groups' launch is about what it saves the pick.
      add(launch(0));
      if (several_) {
        // The candidate to pinned memory and the best back, then applied.
        add(2 * (m_.link_latency_s + 8.0 * (jb_ + 2) / m_.link_Bps) + launch(0));
      }
      add(launch(16.0 * (rows - 1)));  // ScaleByPivot: read and written
      if (c + 1 < end) {
        if (pfact_ == Factorization::Right)
          add(launch(16.0 * (rows - 1) * static_cast<double>(end - c - 1)));  // RankOneUpdate
        else if (pfact_ == Factorization::Crout && c > c0)
          gemv(c - c0, end - c - 1);
      }
      add(m_.device_fact_column_s);
    }
  }

 private:
  double launch(double bytes) const { return m_.kernel_overhead_s + bytes / m_.memory_Bps; }
  void add(double s) { parts_.back() += s; }
  template <class F>
  void below(long r, F&& f) {
    if (r < jb_) f(r, jb_ - r);
    if (m2_ > 0) f(jb_, m2_);
  }
  void gemm(long m, long n, long k) {
    if (m > 0 && n > 0 && k > 0) add(m_.kernel_overhead_s + m_.dgemm.seconds(m, n, k));
  }
  void trsm(long m, long n) {
    if (m > 0 && n > 0) add(m_.kernel_overhead_s + static_cast<double>(m) * m * n / m_.trsm_flops);
  }
  void gemv(long m, long n) {
    if (m > 0 && n > 0) add(m_.kernel_overhead_s + 8.0 * m * n / m_.memory_Bps);
  }

  const device::SimModel& m_;
  const long ld_, jb_, m2_;
  const Factorization rfact_, pfact_;
  const long nbmin_, ndiv_;
  const bool several_;
  std::vector<double> parts_;
};

// The seconds of each top-level sub-panel of device FACT, alone and beside
// the update: the measured panel's times (SimModel::device_fact) dealt over
// the sub-panels as the launch model deals its own, plus what several
// process rows add to that model (the pivots' exchange); without
// measurements the launch model's, the same both ways.
struct DeviceFactParts {
  std::vector<double> alone, beside;
};
DeviceFactParts device_fact_parts(const device::SimModel& model, long rows, long jb,
                                  Factorization rfact, Factorization pfact, int nbmin, int ndiv,
                                  bool several) {
  DeviceFactParts out;
  out.alone = DeviceFactCost(model, rows, jb, rfact, pfact, nbmin, ndiv, several).subpanels();
  out.beside = out.alone;
  const device::MeasuredFact& measured = model.device_fact;
  if (measured.empty()) return out;
  const std::vector<double> one =
      several ? DeviceFactCost(model, rows, jb, rfact, pfact, nbmin, ndiv, false).subpanels()
              : out.alone;
  double total = 0;
  for (double s : one) total += s;
  const double alone = measured.alone(rows, jb), beside = measured.beside(rows, jb);
  for (std::size_t i = 0; i < one.size(); ++i) {
    const double exchange = out.alone[i] - one[i], share = total > 0 ? one[i] / total : 0;
    out.alone[i] = exchange + share * alone;
    out.beside[i] = exchange + share * beside;
  }
  return out;
}

}  // namespace

double simulated_device_fact_seconds(const device::SimModel& model, long rows, long jb,
                                     Factorization rfact, Factorization pfact, int nbmin, int ndiv,
                                     bool beside) {
  if (jb <= 0) return 0;
  const DeviceFactParts parts =
      device_fact_parts(model, rows, jb, rfact, pfact, nbmin, ndiv, false);
  double s = 0;
  for (double part : beside ? parts.beside : parts.alone) s += part;
  return s;
}

void model_stacked_panel_device(device::Queue& q, Panel& panel, Factorization rfact,
                                Factorization pfact, int nbmin, int ndiv, MPI_Comm col, long n,
                                const SubpanelDone& done) {
  const long jb = panel.jb;
  panel.ipiv.assign(jb, 0);
  panel.info = 0;
  if (jb == 0) return;
  device::Simulation& sim = simulation_of(q.backend());
  const device::SimModel& model = sim.model();
  int colsize = 1;
  MPI_Comm_size(col, &colsize);
  SimulatedPivotExchange exchange(col, jb);
  const DeviceFactParts parts =
      device_fact_parts(model, panel.ld(), jb, rfact, pfact, nbmin, ndiv, colsize > 1);
  std::vector<long> bounds = subpanel_starts(static_cast<int>(jb), nbmin, ndiv);
  bounds.push_back(jb);
  for (long c = 0; c < jb; ++c) panel.ipiv[c] = simulated_pivot(model.seed, panel.k, c, n);
  // W's host tail too: where the panel goes to the host (Q > 1) its pivots
  // are read back from there, and the simulated copy moves no data.
  pack_panel_tail(panel);
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    if (s < parts.alone.size()) sim.fact_work(q, parts.alone[s], parts.beside[s]);
    if (colsize > 1) {
      q.synchronize();  // each column's candidate goes over MPI from the host
      exchange.columns(sim, bounds[s + 1] - bounds[s]);
    }
    if (done && s + 2 < bounds.size()) {
      // The sub-panel leaves from W's host side (broadcast pipelining).
      panel.w.to_host(q, bounds[s] * panel.ld(), (bounds[s + 1] - bounds[s]) * panel.ld());
      q.synchronize();
      done(bounds[s], bounds[s + 1]);
    }
  }
}

long simulated_pivot(std::uint64_t seed, long k, long c, long n) {
  const long first = k + c;
  if (n - first <= 1) return first;
  // splitmix64 of (seed, row): a well-mixed hash, the same on every rank.
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(first);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return first + static_cast<long>(z % static_cast<std::uint64_t>(n - first));
}

}  // namespace hplx::lu
