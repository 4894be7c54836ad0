// Device FACT alone and beside the update's DGEMM, on a device-layer
// backend: an M x JB panel on one process (A1 its first JB rows, A2 the
// rest), factored on the device (panel_factor_device.hpp, hplx's default
// variant: RFACT Crout, PFACT Right, NDIV 2, NBMIN as asked) on the panel
// queue, with each leaf form asked for (fused, fused3: one cooperative kernel per
// leaf; kernels: a launch per step of each column),
//   alone: the queue's own clock around each factorization;
//   beside: while the compute queue runs DGEMMs of the update's shape
//           (C (M x NC) -= A (M x JB) B (JB x NC), NC as memory allows),
//           FACT's time on the panel queue and the DGEMMs' rate against
//           their rate alone.
// What hides FACT behind the update on a GPU: FACT beside the DGEMM must
// take less than the DGEMM of that iteration (2 M^2 JB flops at M).
// --overheads then times FACT's fixed costs apart, alone and beside the
// DGEMM at the first M and the last JB: a phased launch of one phase with
// the fused leaf's blocks, one grid-wide barrier between phases, and the
// recursion's smallest TRSM and GEMM; with the number of each that one
// panel's FACT makes.
//
//   build/bin/hplx_fact_probe [--backend NAME] [--m M,M,...] [--jb JB,JB,...]
//                             [--leaf fused,fused3,kernels] [--nbmin N] [--blocks B]
//                             [--reps R] [--data random|constant] [--overheads]
//                             [--json FILE]
//
// Defaults: --backend the default one, --m 124000,61000,20000 on a GPU and
// 3000,1500 otherwise, --jb 512,1024 (64,128 otherwise), --leaf
// fused,kernels, --nbmin 4 and --blocks 32 (hplx lu's --fact-blocks), --reps 3, --data random
// (the DGEMM's operands, as hplx_dgemm_probe's). Each
// factorization starts from the same random panel. Prints one line per
// shape and, with --json, a record of them.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/blas_core.hpp"
#include "core/error.hpp"
#include "device/device.hpp"
#include "device/launch.hpp"
#include "empty_phases.hpp"
#include "lu/kernels/fact_kernels.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/fact/panel_factor_device.hpp"
#include "lu/phases/fact/recursive_steps.hpp"
#include "lu/phases/panel.hpp"
#include "probe_common.hpp"

namespace {

namespace device = hplx::device;
using hplx::lu::Panel;

hplx::lu::FactLeaf parse_leaf(const std::string& name) {
  if (name == "fused") return hplx::lu::FactLeaf::Fused;
  if (name == "kernels") return hplx::lu::FactLeaf::Kernels;
  if (name == "fused3") return hplx::lu::FactLeaf::Fused3;
  throw hplx::UsageError(
      fmt::format("--leaf: '{}' is not a leaf form; allowed: fused, fused3, kernels", name));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The panel, its pristine copy on the device and FACT's workspace.
class ProbePanel {
 public:
  ProbePanel(device::Device& dev, long m, int jb, const hplx::lu::FactParams& f)
      : dev_(dev), pristine_(dev.backend()), f_(f) {
    p_.k = 0;
    p_.jb = jb;
    p_.m2 = m - jb;
    p_.w.bind(dev.backend());
    p_.w.resize(p_.ld() * jb + jb + 1);
    std::mt19937_64 gen(42);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    pristine_.resize(p_.ld() * jb);
    for (double& v : pristine_) v = u(gen);
    pristine_.to_device(dev.compute());
    dev.compute().synchronize();
    ws_.reserve(dev.backend(), p_.ld(), jb);
  }

  // One factorization on q from the pristine panel; the seconds q's clock
  // saw for it (the reset copy not included).
  double factor(device::Queue& q) {
    device::copy(q, p_.w.device(), static_cast<const double*>(pristine_.device()),
                 pristine_.size());
    const device::EventPtr start = q.record_timed();
    hplx::lu::factor_stacked_panel_device(q, p_, rows_, f_, MPI_COMM_SELF, ws_);
    const device::EventPtr end = q.record_timed();
    end->synchronize();
    return start->seconds_until(*end);
  }

  long m() const { return p_.ld(); }
  int jb() const { return p_.jb; }

 private:
  device::Device& dev_;
  Panel p_;
  device::Mirror<double> pristine_;
  const hplx::lu::FactParams f_;
  hplx::lu::DeviceFactWorkspace ws_;
  hplx::lu::PanelRows rows_{1 << 30, 1, 0, 0};  // one process: A2 is the panel's rows after JB
};

// The update's DGEMM on the compute queue: C (M x NC) -= A (M x JB) B (JB x NC).
class UpdateGemm {
 public:
  UpdateGemm(device::Device& dev, long m, long nc, int jb, hplx::probe::Data data)
      : q_(dev.compute()),
        m_(m),
        nc_(nc),
        jb_(jb),
        a_(dev.alloc<double>(m * jb)),
        b_(dev.alloc<double>(jb * nc)),
        c_(dev.alloc<double>(m * nc)) {
    hplx::probe::fill_operand(q_, a_.data(), m * jb, data, 1e-3, 1, 1);
    hplx::probe::fill_operand(q_, b_.data(), jb * nc, data, 1e-3, 1, 2);
    hplx::probe::fill_operand(q_, c_.data(), m * nc, data, 1.0, 1, 3);
  }
  void enqueue() {
    q_.gemm(device::Trans::No, device::Trans::No, m_, nc_, jb_, -1.0, a_.data(), m_, b_.data(), jb_,
            1.0, c_.data(), m_);
  }
  double flops() const { return 2.0 * m_ * nc_ * jb_; }
  device::Queue& queue() { return q_; }

 private:
  device::Queue& q_;
  const long m_, nc_;
  const int jb_;
  device::Buffer<double> a_, b_, c_;
};

// `count` GEMMs on the compute queue; their seconds on its clock, and
// `side` (work on another queue returning its seconds) repeated while they
// run, each time's seconds into `side_seconds` (no side: none).
double gemms_beside(UpdateGemm& g, int count, const std::function<double()>& side,
                    std::vector<double>* side_seconds) {
  device::Queue& q = g.queue();
  const device::EventPtr start = q.record_timed();
  for (int i = 0; i < count; ++i) g.enqueue();
  const device::EventPtr end = q.record_timed();
  if (side)
    while (!end->done()) side_seconds->push_back(side());
  end->synchronize();
  return start->seconds_until(*end);
}

// Seconds on q's clock for what `enqueue` puts on q.
double timed_on(device::Queue& q, const std::function<void()>& enqueue) {
  const device::EventPtr start = q.record_timed();
  enqueue();
  const device::EventPtr end = q.record_timed();
  end->synchronize();
  return start->seconds_until(*end);
}

// The launches one panel's FACT makes (panel_factor_device.cpp's steps,
// those of no size left out): leaves, TRSMs and GEMMs (an update below a
// row is one GEMM on A1's rows from it and one on A2's).
struct CallCount {
  long jb, m2;
  long leaves = 0, solves = 0, gemms = 0, columns = 0;
  void leaf(long, long n) {
    ++leaves;
    columns += n;
  }
  void solve(long, long k, hplx::lu::Columns c) { solves += k > 0 && c.count > 0; }
  void update_below(long from, hplx::lu::Columns c, hplx::lu::Columns inner, long /*level*/) {
    if (c.count > 0 && inner.count > 0) gemms += (from < jb) + (m2 > 0);
  }
  void update_rows(hplx::lu::Columns rows, hplx::lu::Columns c, hplx::lu::Columns inner) {
    gemms += rows.count > 0 && c.count > 0 && inner.count > 0;
  }
  void subpanel_done(long, long) {}
};

// FACT's fixed costs apart on the panel queue (--overheads), alone and
// beside the update's DGEMM of an M x JB panel: per launch of a phased
// body of one phase (`blocks` blocks, as the fused leaf's), per grid-wide
// barrier, per TRSM of NBMIN x NBMIN on NBMIN columns and per GEMM of
// M x NBMIN x NBMIN (the recursion's smallest calls).
nlohmann::json overheads(device::Device& dev, long m, long jb, const hplx::lu::FactParams& f,
                         int reps, hplx::probe::Data data) {
  device::Queue& q = dev.panel();
  const long nb = f.nbmin, phases = 1024;
  constexpr int kBatch = 64;
  device::Buffer<double> slot = dev.alloc<double>(1);
  device::Buffer<double> a = dev.alloc<double>(m * nb), c = dev.alloc<double>(m * nb);
  device::Buffer<double> b = dev.alloc<double>(nb * nb);
  hplx::probe::fill_operand(q, a.data(), m * nb, data, 1e-3, 1, 4);
  hplx::probe::fill_operand(q, b.data(), nb * nb, data, 1e-3, 1, 5);
  hplx::probe::fill_operand(q, c.data(), m * nb, data, 1.0, 1, 6);
  const hplx::probe::EmptyPhases one{slot.data(), 1}, many{slot.data(), phases};
  // Each item: a batch's seconds on q and the items in it.
  struct Item {
    const char* name;
    long per_batch;
    std::function<void()> enqueue;
  };
  const std::vector<Item> items = {
      {"launch", kBatch,
       [&] {
         for (int i = 0; i < kBatch; ++i) device::launch_phased(q, one, f.leaf_blocks);
       }},
      {"phases", phases, [&] { device::launch_phased(q, many, f.leaf_blocks); }},
      {"trsm", kBatch,
       [&] {
         for (int i = 0; i < kBatch; ++i)
           q.trsm(device::Side::Left, device::Uplo::Lower, device::Trans::No, device::Diag::Unit,
                  nb, nb, 1.0, a.data(), m, b.data(), nb);
       }},
      {"gemm", kBatch, [&] {
         for (int i = 0; i < kBatch; ++i)
           q.gemm(device::Trans::No, device::Trans::No, m, nb, nb, -1.0, a.data(), m, b.data(), nb,
                  1.0, c.data(), m);
       }}};
  const long nc = std::min<long>(m, 16384);
  UpdateGemm gemm(dev, m, nc, static_cast<int>(jb), data);
  gemm.enqueue();  // warm-up
  gemm.queue().synchronize();
  const double one_gemm = gemms_beside(gemm, 1, nullptr, nullptr);
  std::map<std::string, std::pair<double, double>> us;  // alone, beside: microseconds per item
  for (const Item& item : items) {
    timed_on(q, item.enqueue);  // warm-up
    std::vector<double> alone, beside;
    for (int r = 0; r < reps; ++r) alone.push_back(timed_on(q, item.enqueue));
    const int count = std::max(1, static_cast<int>(reps * median(alone) / one_gemm) + 1);
    gemms_beside(
        gemm, count, [&] { return timed_on(q, item.enqueue); }, &beside);
    if (beside.empty()) beside.push_back(timed_on(q, item.enqueue));
    us[item.name] = {median(alone) / item.per_batch * 1e6, median(beside) / item.per_batch * 1e6};
  }
  // A barrier: a launch of `phases` phases less a launch of one, per phase.
  auto barrier = [&](bool side) {
    const auto pick = [side](const std::pair<double, double>& p) {
      return side ? p.second : p.first;
    };
    return (pick(us["phases"]) * phases - pick(us["launch"])) / (phases - 1);
  };
  CallCount calls{jb, m - jb};
  hplx::lu::walk_recursion(f.rfact, f.nbmin, f.ndiv, jb, 0, jb, calls);
  const long barriers =
      calls.columns * hplx::lu::kernels::FusedRightLeaf::kPhasesPerColumn - calls.leaves;
  std::printf(
      "M = %ld, JB = %ld, NBMIN %ld, %d blocks: per launch %.1f us alone, %.1f beside DGEMM; per "
      "barrier %.2f us, %.2f; per %ldx%ld TRSM %.1f us, %.1f; per %ldx%ldx%ld GEMM %.1f us, %.1f\n",
      m, jb, nb, f.leaf_blocks, us["launch"].first, us["launch"].second, barrier(false),
      barrier(true), nb, nb, us["trsm"].first, us["trsm"].second, m, nb, nb, us["gemm"].first,
      us["gemm"].second);
  // What one panel's FACT makes of each (the recursion's TRSMs and GEMMs
  // are wider above the leaves: these are the least they cost).
  auto fixed_ms = [&](bool side) {
    const auto pick = [side](const std::pair<double, double>& p) {
      return side ? p.second : p.first;
    };
    return (calls.leaves * pick(us["launch"]) + barriers * barrier(side) +
            calls.solves * pick(us["trsm"]) + calls.gemms * pick(us["gemm"])) /
           1e3;
  };
  std::printf(
      "  one panel's FACT makes %ld leaf launches, %ld barriers, %ld TRSMs and %ld GEMMs: at "
      "least %.1f ms alone, %.1f ms beside DGEMM\n",
      calls.leaves, barriers, calls.solves, calls.gemms, fixed_ms(false), fixed_ms(true));
  return {{"m", m},
          {"jb", jb},
          {"nbmin", nb},
          {"blocks", f.leaf_blocks},
          {"launch_us", {us["launch"].first, us["launch"].second}},
          {"barrier_us", {barrier(false), barrier(true)}},
          {"trsm_us", {us["trsm"].first, us["trsm"].second}},
          {"gemm_us", {us["gemm"].first, us["gemm"].second}},
          {"leaf_launches", calls.leaves},
          {"barriers", barriers},
          {"trsms", calls.solves},
          {"gemms", calls.gemms},
          {"fixed_ms", {fixed_ms(false), fixed_ms(true)}}};
}

}  // namespace

int main(int argc, char** argv) {
  hplx::restart_with_better_blas_core(argv);
  MPI_Init(&argc, &argv);
  CLI::App app{"hplx_fact_probe: device FACT alone and beside the update's DGEMM"};
  std::string backend_name, ms_text, jbs_text, json_path, leaves_text = "fused,kernels";
  std::string data_text = "random";
  int reps = 3, nbmin = 4, blocks = 32;
  bool with_overheads = false;
  app.add_option("--backend", backend_name, "host, emulated, cuda (default: the best present)");
  app.add_option("--m", ms_text, "the panel's rows M, comma-separated");
  app.add_option("--jb", jbs_text, "the panel's columns JB (NB), comma-separated");
  app.add_option("--leaf", leaves_text, "the leaf forms: fused, fused3, kernels, comma-separated");
  app.add_option("--nbmin", nbmin, "NBMIN: the recursion's leaf width")->check(CLI::Range(1, 4096));
  app.add_option("--blocks", blocks, "the fused leaf's most blocks (hplx lu's --fact-blocks)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_flag("--overheads", with_overheads,
               "also time FACT's launches, barriers and smallest calls apart");
  app.add_option("--reps", reps, "timed factorizations per shape")->check(CLI::Range(1, 100));
  app.add_option("--data", data_text,
                 "the DGEMM's operands: random (as HPL's matrix, default) or constant");
  app.add_option("--json", json_path, "write the results here");
  int rc = 0;
  try {
    app.parse(argc, argv);
    if (!json_path.empty()) hplx::require_writable("--json", json_path);
    const hplx::probe::Data data = hplx::probe::parse_data(data_text);
    const device::BackendKind kind =
        backend_name.empty() ? device::default_backend() : device::parse_backend(backend_name);
    if (kind == device::BackendKind::Sim)
      throw hplx::UsageError(
          "--backend sim: allowed: a backend that computes (host, emulated, cuda)");
    auto dev = device::make_device(kind);
    const bool gpu = device::traits_of(kind).gpu;
    const std::vector<long> ms = hplx::probe::parse_list(
        ms_text.empty() ? (gpu ? "124000,61000,20000" : "3000,1500") : ms_text, "--m");
    const std::vector<long> jbs = hplx::probe::parse_list(
        jbs_text.empty() ? (gpu ? "512,1024" : "64,128") : jbs_text, "--jb");
    std::vector<hplx::lu::FactLeaf> leaves;
    for (const std::string& name : hplx::probe::split_list(leaves_text))
      leaves.push_back(parse_leaf(name));
    std::printf("hplx_fact_probe: %s\n", dev->backend().describe().c_str());
    nlohmann::json rows = nlohmann::json::array();
    for (const long m : ms)
      for (const long jb : jbs)
        for (const hplx::lu::FactLeaf leaf : leaves) {
          hplx::lu::FactParams f;
          f.nbmin = nbmin;
          f.leaf = leaf;
          f.leaf_blocks = blocks;
          const char* leaf_name = hplx::lu::name_of(leaf);
          if (jb > m) {
            std::printf("M = %ld, JB = %ld: skipped, JB > M\n", m, jb);
            continue;
          }
          // The panel twice (W and its pristine copy), and the GEMM's C with
          // as many columns as a quarter of the free memory holds, at most M
          // and 16384 (the DGEMM's rate is flat beyond; filling C takes time).
          const double free_bytes = static_cast<double>(dev->backend().free_device_bytes());
          const double panel_bytes = 2.0 * 8.0 * m * jb;
          const long nc = std::min<long>(std::min<long>(m, 16384),
                                         static_cast<long>(0.25 * free_bytes / (8.0 * m)));
          if (panel_bytes > 0.5 * free_bytes || nc < jb) {
            std::printf("M = %ld, JB = %ld: skipped, needs %.1f GiB\n", m, jb,
                        panel_bytes / (1 << 30));
            continue;
          }
          ProbePanel panel(*dev, m, static_cast<int>(jb), f);
          panel.factor(dev->panel());  // warm-up
          std::vector<double> alone;
          for (int r = 0; r < reps; ++r) alone.push_back(panel.factor(dev->panel()));

          UpdateGemm gemm(*dev, m, nc, static_cast<int>(jb), data);
          gemm.enqueue();  // warm-up
          gemm.queue().synchronize();
          // Enough GEMMs for `reps` FACTs alone, at least one.
          const double one_gemm = gemms_beside(gemm, 1, nullptr, nullptr);
          const int count = std::max(1, static_cast<int>(reps * median(alone) / one_gemm) + 1);
          const double gemm_alone = gemms_beside(gemm, count, nullptr, nullptr);
          std::vector<double> beside;
          const double gemm_beside = gemms_beside(
              gemm, count, [&] { return panel.factor(dev->panel()); }, &beside);
          if (beside.empty()) beside.push_back(panel.factor(dev->panel()));
          // FACT of m x jb: m jb^2 - jb^3 / 3 flops (netlib's count, leading terms).
          const double fact_flops = static_cast<double>(m) * jb * jb - jb * jb * jb / 3.0;
          const double gemm_gflops_alone = count * gemm.flops() / gemm_alone / 1e9;
          const double gemm_gflops_beside = count * gemm.flops() / gemm_beside / 1e9;
          const double update_ms = 2.0 * m * m * jb / (gemm_gflops_alone * 1e9) * 1e3;
          std::printf(
              "M = %ld, JB = %ld, %s leaf: FACT alone %.2f ms (%.1f Gflop/s), beside DGEMM %.2f "
              "ms (median of %zu); DGEMM %.0f Gflop/s alone, %.0f beside; the iteration's update "
              "(2 M^2 JB) %.1f ms\n",
              m, jb, leaf_name, median(alone) * 1e3, fact_flops / median(alone) / 1e9,
              median(beside) * 1e3, beside.size(), gemm_gflops_alone, gemm_gflops_beside,
              update_ms);
          std::vector<double> alone_ms;
          for (const double t : alone) alone_ms.push_back(t * 1e3);
          rows.push_back({{"m", m},
                          {"jb", jb},
                          {"leaf", leaf_name},
                          {"fact_alone_ms", alone_ms},
                          {"fact_alone_ms_median", median(alone) * 1e3},
                          {"fact_beside_ms_median", median(beside) * 1e3},
                          {"fact_beside_count", beside.size()},
                          {"gemm_nc", nc},
                          {"gemm_gflops_alone", gemm_gflops_alone},
                          {"gemm_gflops_beside", gemm_gflops_beside},
                          {"update_ms_at_m", update_ms}});
        }
    nlohmann::json fixed;
    if (with_overheads) {
      hplx::lu::FactParams f;
      f.nbmin = nbmin;
      f.leaf_blocks = blocks;
      fixed = overheads(*dev, ms.front(), jbs.back(), f, reps, data);
    }
    if (!json_path.empty()) {
      nlohmann::json record = {
          {"probe", "device_fact"},
          {"backend", device::name_of(kind)},
          {"device", dev->backend().describe()},
          {"gemm_data", hplx::probe::data_name(data)},
          {"variant", fmt::format("RFACT Crout, PFACT Right, NBMIN {}, NDIV 2", nbmin)},
          {"blocks", blocks},
          {"shapes", rows}};
      if (with_overheads) record["overheads"] = fixed;
      hplx::write_text_atomically(json_path, record.dump(2) + "\n");
    }
  } catch (const CLI::ParseError& e) {
    rc = app.exit(e);
  } catch (const hplx::UsageError& e) {
    std::fprintf(stderr, "hplx_fact_probe: error: %s\n", e.what());
    rc = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hplx_fact_probe: error: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
