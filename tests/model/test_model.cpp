// The performance models: netlib's closed form and per-panel sum, the MCL
// paper's equivalent-GPU memory layer and its Table 5, spec checking.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "model/model.hpp"

using namespace hplx::model;

namespace {

const std::string kSrc = HPLX_SOURCE_DIR;

SystemSpec one_layer_spec(double alpha_us, double gbs, int devices) {
  std::string text = R"([system]
name = "test"
[device]
rpeak_gflops = 1000
)";
  text += "[node]\ndevices = " + std::to_string(devices) + "\n";
  text += "[node.link]\nalpha_us = " + std::to_string(alpha_us) +
          "\nbandwidth_gbs = " + std::to_string(gbs) + "\n";
  return parse_system_spec(text, "test.toml");
}

std::string error_of(const std::string& text) {
  try {
    parse_system_spec(text, "bad.toml");
  } catch (const hplx::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kMinimal = "[system]\nname = \"x\"\n[device]\nrpeak_gflops = 100\n";

}  // namespace

TEST(ClosedForm, IsNetlibsFormulaTermByTerm) {
  for (auto [n, nb, p, q] :
       {std::tuple{10000L, 192, 1, 1}, {123456L, 256, 4, 2}, {5000000L, 384, 64, 32}}) {
    const double g = 1e-11, a = 2e-6, b = 1e-9;
    Problem pb{n, nb, p, q, g, {}};
    ClosedForm f = closed_form(pb, a, b);
    const double N = n, P = p, Q = q, NB = nb, lp = p > 1 ? std::log2(P) : 0.0;
    const double want = 2 * N * N * N * g / (3 * P * Q) + b * N * N * (3 * P + Q) / (2 * P * Q) +
                        a * N * ((NB + 1) * lp + P) / NB;
    EXPECT_DOUBLE_EQ(f.total_s(), want);
  }
}

TEST(OriginalModel, SingleLayerSpecGivesTheClosedFormExactly) {
  // A grid inside one node: the node link is the only and last layer.
  SystemSpec spec = one_layer_spec(1.5, 10.0, 8);
  spec.n_reading = NReading::AsGiven;
  Prediction o = predict_original_closed(spec, RunPoint{40000, 200, 4, 2, 0});
  Problem pb{40000, 200, 4, 2, 1e-12, {}};
  EXPECT_DOUBLE_EQ(o.time_s, closed_form(pb, 1.5e-6, 8.0 / 10e9).total_s());
  EXPECT_DOUBLE_EQ(o.time_s, o.compute_s + o.pivot_s + o.bcast_s + o.update_comm_s);
}

TEST(OriginalModel, PerPanelSumDiffersFromClosedFormOnlyByLowerOrderTerms) {
  for (auto [n, nb, p, q] :
       {std::tuple{20000L, 200, 1, 1}, {200000L, 200, 4, 2}, {2000000L, 400, 32, 16}}) {
    const double g = 1e-12, a = 1e-6, b = 8e-10;
    Problem pb{n, nb, p, q, g, {}};
    PanelSum s = per_panel_sum(pb, {{"one", a, b, double(n), double(n)}});
    const double cf = closed_form(pb, a, b).total_s();
    const double N = n, NB = nb, P = p, Q = q, lp = p > 1 ? std::log2(P) : 0.0;
    // What the closed form drops (docs/MODEL.md): O(N^2 NB) flops, the
    // pivots' beta term and O(N NB) words; the alpha terms agree exactly.
    const double lower = g * N * N * NB * (1 / P + 1 / Q + 2 / (P * Q)) + g * N * NB * NB * 3 +
                         b * N * lp * (2 * NB + 4) + b * N * NB * (1 / P + 3 / Q);
    EXPECT_LE(std::abs(s.total_s - cf), lower) << n;
    EXPECT_LT(std::abs(s.total_s - cf) / cf, 3.0 * nb / n + 0.01) << n;
  }
}

TEST(MclModel, OneLayerEverywhereReducesToTheOriginalPerPanelSum) {
  // Every layer with the same alpha and beta: the charging cannot matter.
  SystemSpec spec = one_layer_spec(2.0, 5.0, 4);
  spec.memory.present = true;
  spec.memory.alpha_s = 2e-6;
  spec.memory.beta_s = 8.0 / 5e9;
  spec.network = spec.node.link;
  spec.network.present = true;
  RunPoint rp{100000, 256, 8, 4, 0};
  Prediction m = predict_mcl(spec, rp);
  Prediction o = predict_original_panels(spec, rp);
  EXPECT_EQ(m.layers.size(), 3u);
  EXPECT_NEAR(m.time_s, o.time_s, 1e-12 * o.time_s);
}

TEST(MemoryLayer, P100EquivalentBandwidthIs13_07GBs) {
  EXPECT_NEAR(bw_per_core_Bps(4, 16, 1.43, 3584) / 1e6, 204.29, 0.01);
  EXPECT_NEAR(bw_equivalent_Bps(4, 16, 1.43, 3584) / 1e9, 13.07, 0.005);
  EXPECT_NEAR(rpeak_flops(3584, 1, 1.303) / 1e12, 4.67, 0.001);
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/hdpex-p100.toml");
  EXPECT_NEAR(spec.memory.bw_eq_Bps / 1e9, 13.07, 0.005);
  EXPECT_NEAR(spec.memory.alpha_s * 1e6, 1029 / 1303.0, 1e-9);  // 1029 cycles at 1.303 GHz
  EXPECT_NEAR(spec.memory.beta_s, 8.0 / spec.memory.bw_eq_Bps, 1e-20);
}

TEST(MclModel, ReproducesSeedTable5SingleNodeEstimatesWithin2Percent) {
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/hdpex-p100.toml");
  struct Row {
    long n;
    int p, q;
    double paper;
  };
  for (Row r : {Row{44000, 1, 1, 3840}, Row{62000, 2, 1, 7389}, Row{76000, 3, 1, 10715}}) {
    Prediction m = predict_mcl(spec, RunPoint{r.n, 384, r.p, r.q, 0});
    EXPECT_NEAR(m.gflops / r.paper, 1.0, 0.02) << r.n << " " << m.gflops;
    // The grid given the other way round is read the same way (larger = P).
    Prediction t = predict_mcl(spec, RunPoint{r.n, 384, r.q, r.p, 0});
    EXPECT_DOUBLE_EQ(t.gflops, m.gflops);
  }
}

TEST(MclModel, ChargesPanelsToTheLayerOfTheirColumn) {
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/hdpex-p100.toml");
  // 2 nodes x 3 GPUs as 3x2: node grid 3x1, so rows stay in the node and
  // the update's columns cross the network beyond N/2.
  Prediction m = predict_mcl(spec, RunPoint{110592, 384, 3, 2, 0, 2});
  ASSERT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.layout.nodes, 2);
  EXPECT_EQ(m.layout.node_p * m.layout.node_q, 3);
  long rows = 0, cols = 0;
  for (const auto& l : m.layers) rows += l.row_panels, cols += l.col_panels;
  EXPECT_EQ(rows, 288);
  EXPECT_EQ(cols, 288);
  EXPECT_EQ(m.layers[0].row_panels, 96);   // N/P of the rows on one GPU
  EXPECT_EQ(m.layers[0].col_panels, 144);  // N/Q of the columns
  EXPECT_GT(m.layers[2].update_s, 0.0);
  EXPECT_EQ(m.layers[2].row_panels, 0);  // node grid 3x1 holds every row
}

TEST(PredictRun, PerIterationTimesAddUpToTheTotal) {
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/hdpex-p100.toml");
  Prediction p = predict_run(spec, 50000, 384, 2, 2, 0);
  ASSERT_EQ(p.iter_s.size(), 131u);  // ceil(50000 / 384)
  const double sum = std::accumulate(p.iter_s.begin(), p.iter_s.end(), 0.0);
  EXPECT_NEAR(sum, p.time_s, 1e-9 * p.time_s);
  for (size_t k = 1; k < p.iter_s.size(); ++k) EXPECT_LE(p.iter_s[k], p.iter_s[k - 1] * 1.000001);
  EXPECT_NEAR(p.gflops, hpl_flops(50000) / p.time_s / 1e9, 1e-9);
}

TEST(PredictRun, ThreadsPickTheCalibratedDgemmRate) {
  SystemSpec spec = parse_system_spec(R"([system]
name = "cal"
grid_reading = "as-given"
n_reading = "as-given"
[device]
dgemm_gflops = 30
dgemm_gflops_by_threads = { "1" = 16, "2" = 30 }
)",
                                      "cal.toml");
  EXPECT_DOUBLE_EQ(spec.gamma_s(1), 1.0 / 16e9);
  EXPECT_DOUBLE_EQ(spec.gamma_s(2), 1.0 / 30e9);
  EXPECT_DOUBLE_EQ(spec.gamma_s(4), 1.0 / 60e9);  // nearest measured, scaled
  Prediction one = predict_run(spec, 10000, 192, 1, 1, 1);
  Prediction two = predict_run(spec, 10000, 192, 1, 1, 2);
  EXPECT_NEAR(two.gflops / one.gflops, 30.0 / 16.0, 1e-9);  // no layer costs on one device
}

TEST(Layout, WeakScalingSizesNFromMemoryAndKeepsTheNodeGrid) {
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/hdpex-p100.toml");
  // 4 GPUs x 16 GiB per node, 80%: N = sqrt(0.8 * 64 GiB / 8) rounded to NB.
  const long n = n_from_memory(spec, 1, 0.8, 384);
  EXPECT_EQ(n % 384, 0);
  EXPECT_NEAR(double(n), std::sqrt(0.8 * 64.0 * (1L << 30) / 8), 384.0);
  EXPECT_NEAR(double(n_from_memory(spec, 4, 0.8, 384)), 2.0 * n, 2 * 384.0);  // 4x memory, 2x N
  auto [p, q] = grid_for_nodes(spec, 4);
  EXPECT_EQ(p, 4);
  EXPECT_EQ(q, 4);
  Layout lay = plan_layout(spec, p, q);
  EXPECT_EQ(lay.nodes, 4);
}

TEST(Layout, PublishedNodeCountsSpreadTheDevices) {
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/hdpex-p100.toml");
  Layout two = plan_layout(spec, 2, 1, 2);  // 2N2G: one GPU per node
  EXPECT_EQ(two.nodes, 2);
  EXPECT_EQ(two.node_p * two.node_q, 1);
  EXPECT_THROW(plan_layout(spec, 4, 3, 2), hplx::UsageError);  // 6 per node > 4
}

TEST(Layout, AGridThatDoesNotFillNodesIsAUsageError) {
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/hdpex-p100.toml");
  try {
    plan_layout(spec, 5, 1);
    FAIL() << "no error";
  } catch (const hplx::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not a multiple of node.devices = 4"), std::string::npos)
        << e.what();
  }
}

TEST(Spec, BadInputNamesFileKeyAndWhatIsAllowed) {
  EXPECT_NE(error_of("[device]\nrpeak_gflops = 1\n").find("bad.toml: key 'system': missing"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "corse = 3\n")
                .find("key 'device.corse': unknown key; allowed in [device]:"),
            std::string::npos);
  EXPECT_NE(error_of("[system]\nname = \"x\"\n[device]\ncores = \"many\"\n")
                .find("key 'device.cores': 'many' is not a number; allowed: a number > 0"),
            std::string::npos);
  EXPECT_NE(error_of("[system]\nname = \"x\"\n[device]\ncores = 10\n")
                .find("key 'device.flops_per_cycle': missing"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[network]\nalpha_us = 1\nbandwidth_gbs = -3\n")
                .find("key 'network.bandwidth_gbs': -3 is not > 0"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[network]\nalpha_us = 1\n")
                .find("key 'network.bandwidth_gbs': missing"),
            std::string::npos);
  EXPECT_NE(
      error_of(std::string(kMinimal) + "[node]\ndevices = 4\n").find("key 'node.link': missing"),
      std::string::npos);
  EXPECT_NE(
      error_of(std::string(kMinimal) + "[run]\ngrid = \"2by2\"\n").find("key 'run.grid' '2by2'"),
      std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[memory]\ncontrollers = 4\n")
                .find("key 'memory.qwords_per_controller': missing"),
            std::string::npos);
  EXPECT_NE(error_of("[system\nname = 1\n").find("bad.toml:1: not valid TOML"), std::string::npos);
  EXPECT_NE(
      error_of(
          std::string(
              "[system]\nname = \"x\"\ngrid_reading = \"sideways\"\n[device]\nrpeak_gflops = 1\n"))
          .find("key 'system.grid_reading': 'sideways' is not allowed; allowed: \"larger-is-P\""),
      std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[[published]]\nn = 10\nnb = 2\ngrid = \"1x1\"\n")
                .find("key 'published[0].rmax_gflops': missing"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "dgemm_gflops_by_threads = { two = 3 }\n")
                .find("key 'device.dgemm_gflops_by_threads.two': not a thread count"),
            std::string::npos);
  try {
    load_system_spec("no/such/spec.toml");
    FAIL();
  } catch (const hplx::UsageError& e) {
    EXPECT_NE(
        std::string(e.what()).find("no/such/spec.toml: cannot read: No such file or directory"),
        std::string::npos);
  }
}

// Found by fuzz/fuzz_system_spec: a float key was first read as an integer
// (toml++ converts it, undefined beyond int64_t: rpeak_gflops = 1e20);
// rpeak_gflops = 1e308 made an Rpeak of inf; integers kept in an int were
// cut to their low bits (devices = 4294967297 became 1).
TEST(Spec, NumbersBeyondTheirTypeAreRefused) {
  for (const char* big : {"1e20", "1e308"}) {
    const std::string text =
        std::string("[system]\nname = \"x\"\n[device]\nrpeak_gflops = ") + big + "\n";
    EXPECT_NE(error_of(text).find("key 'device.rpeak_gflops': "), std::string::npos)
        << error_of(text);
    EXPECT_NE(error_of(text).find(" is too large; allowed: a number > 0 (GFLOPS) of at most 1e+15"),
              std::string::npos)
        << error_of(text);
  }
  EXPECT_EQ(*parse_system_spec("[system]\nname = \"x\"\n[device]\nrpeak_gflops = 1e15\n", "t.toml")
                 .device.rpeak_gflops,
            1e15);
  EXPECT_NE(error_of(std::string(kMinimal) + "[node]\ndevices = 4294967297\n")
                .find("key 'node.devices': '4294967297' is not allowed; allowed: an integer "
                      "1..2147483647"),
            std::string::npos)
      << error_of(std::string(kMinimal) + "[node]\ndevices = 4294967297\n");
  EXPECT_NE(error_of(std::string(kMinimal) + "[run]\nnb = 2147483648\n")
                .find("key 'run.nb': '2147483648' is not allowed"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "dgemm_gflops_by_threads = { \"4294967297\" = 3 }\n")
                .find("not a thread count"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "dgemm_gflops_by_threads = { \"1\" = inf }\n")
                .find("not a thread count"),
            std::string::npos);
}

TEST(Examples, EverySystemFileLoadsAndPredicts) {
  for (const char* f : {"hdpex-p100.toml", "summit.toml", "selene.toml", "frontier-crusher.toml",
                        "seed003-4gpu.toml"}) {
    SystemSpec spec = load_system_spec(kSrc + "/examples/systems/" + f);
    EXPECT_FALSE(spec.published.empty()) << f;
    for (const auto& pub : spec.published) {
      Prediction m = predict_mcl(spec, RunPoint{pub.n, pub.nb, pub.p, pub.q, 0, pub.nodes});
      EXPECT_GT(m.gflops, 0) << f;
      EXPECT_EQ(m.layout.nodes, pub.nodes) << f << " " << pub.label;
      if (m.rpeak_gflops > 0) {
        EXPECT_LT(m.efficiency, 1.0) << f;
      }
    }
  }
}

TEST(MachineSpecPath, EnvironmentThenWorkingDirectoryThenConfigDir) {
  setenv("HPLX_MACHINE_SPEC", (kSrc + "/examples/systems/summit.toml").c_str(), 1);
  EXPECT_EQ(default_machine_spec_path(), kSrc + "/examples/systems/summit.toml");
  setenv("HPLX_MACHINE_SPEC", "no/such/machine.toml", 1);
  EXPECT_THROW(default_machine_spec_path(), hplx::UsageError);
  unsetenv("HPLX_MACHINE_SPEC");
  setenv("XDG_CONFIG_HOME", "/nonexistent-xdg", 1);
  auto c = machine_spec_candidates();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], "machine.toml");
  EXPECT_EQ(c[1], "/nonexistent-xdg/hplx/machine.toml");
  try {
    default_machine_spec_path();
  } catch (const hplx::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("hplx model calibrate"), std::string::npos);
  }
  unsetenv("XDG_CONFIG_HOME");
}
