// A spec's [provenance] (model/provenance.hpp): which figures are assumed,
// checked against the keys the spec gives, and which of them a prediction
// reads; every shipped spec says.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "model/provenance.hpp"
#include "model/system_spec.hpp"

namespace {

using namespace hplx::model;

const std::string kSrc = HPLX_SOURCE_DIR;

const char* kGpu = R"([system]
name = "gpu"
[device]
dgemm_gflops = 50000
launch_us = 5
update_share_of_dgemm = 0.8
memory_gib = 80
[device.fact_probe]
jb = [512]
rows = [20000]
alone_ms = [[20]]
beside_ms = [[60]]
[memory]
alpha_us = 1
bandwidth_gbs = 3000
[host]
fact_gflops = 100
copy_gbs = 20
[host.link]
alpha_us = 5
bandwidth_gbs = 50
)";

std::string error_of(const std::string& text) {
  try {
    parse_system_spec(text, "g.toml");
  } catch (const hplx::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

bool has(const std::vector<std::string>& v, const std::string& k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}

TEST(Provenance, AnAssumedKeyMustBeAFigureTheSpecGives) {
  const std::string base = kGpu;
  EXPECT_EQ(error_of(base + "[provenance]\nassumed = [\"host.fact_gflop\"]\n"),
            "g.toml: key 'provenance.assumed': 'host.fact_gflop' is not a figure this spec "
            "gives; allowed: keys of its tables as table.key (e.g. device.launch_us, "
            "host.link.alpha_us)");
  EXPECT_NE(error_of(base + "[provenance]\nassumed = [\"system.name\"]\n").find("not a figure"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[provenance]\nassumed = [\"host.copy_gbs\", \"host.copy_gbs\"]\n")
                .find("listed twice"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[provenance]\nassumed = \"host.copy_gbs\"\n").find("array of strings"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[provenance]\nmeasured = []\n").find("unknown key"),
            std::string::npos);
}

// Each prediction names only the assumed figures it reads: the model
// neither hplx sim's kernel figures nor the FACT place it does not use.
TEST(Provenance, APredictionNamesTheAssumedFiguresItReads) {
  const SystemSpec spec = parse_system_spec(
      std::string(kGpu) +
          "[provenance]\nassumed = [\"device.launch_us\", \"device.update_share_of_dgemm\", "
          "\"host.fact_gflops\", \"host.link.alpha_us\", \"host.copy_gbs\", "
          "\"device.fact_probe\", \"memory.alpha_us\"]\n",
      "g.toml");
  const auto model_host = assumed_figures(spec, {false, true, false});
  // A GPU's update at its shape and share of DGEMM: the model's and the sim's.
  EXPECT_EQ(model_host,
            (std::vector<std::string>{"device.update_share_of_dgemm", "host.fact_gflops",
                                      "host.link.alpha_us", "memory.alpha_us"}));
  const auto sim_device = assumed_figures(spec, {true, false, true});
  EXPECT_EQ(sim_device,
            (std::vector<std::string>{"device.launch_us", "device.update_share_of_dgemm",
                                      "host.copy_gbs", "device.fact_probe", "memory.alpha_us"}));
  EXPECT_EQ(assumed_figures_line(spec, {false, false, true}),
            "assumed figures this prediction rests on (g.toml [provenance]): "
            "device.update_share_of_dgemm, device.fact_probe, memory.alpha_us");
  // Without the table the line says the provenance is not stated.
  EXPECT_EQ(assumed_figures_line(parse_system_spec(kGpu, "g.toml"), {}),
            "assumed figures this prediction rests on: not stated (g.toml has no [provenance] "
            "table)");
}

// Every shipped spec says which of its figures are assumed.
TEST(Provenance, EveryShippedSpecListsItsAssumedFigures) {
  int specs = 0;
  for (const auto& e : std::filesystem::directory_iterator(kSrc + "/examples/systems")) {
    if (e.path().extension() != ".toml") continue;
    ++specs;
    const SystemSpec spec = load_system_spec(e.path().string());
    EXPECT_TRUE(spec.provenance.present) << e.path() << " has no [provenance] table";
  }
  EXPECT_GE(specs, 7);
  // The DGX H100 takes the H200's measured GPU figures; its host FACT is
  // the H200 host's, assumed for this host.
  const SystemSpec dgx = load_system_spec(kSrc + "/examples/systems/dgx-h100.toml");
  const SystemSpec h200 = load_system_spec(kSrc + "/examples/systems/h200.toml");
  EXPECT_EQ(dgx.device.fact_probe.beside_ms, h200.device.fact_probe.beside_ms);
  EXPECT_EQ(dgx.device.fact_probe.alone_ms, h200.device.fact_probe.alone_ms);
  EXPECT_EQ(dgx.device.update_share_of_dgemm, h200.device.update_share_of_dgemm);
  EXPECT_EQ(dgx.device.dgemm_gflops, h200.device.dgemm_gflops);
  EXPECT_EQ(dgx.host.fact_gflops, h200.host.fact_gflops);
  EXPECT_TRUE(has(dgx.provenance.assumed, "host.fact_gflops"));
  EXPECT_FALSE(has(dgx.provenance.assumed, "device.fact_probe"));
  EXPECT_FALSE(has(h200.provenance.assumed, "host.fact_gflops"));
}

}  // namespace
