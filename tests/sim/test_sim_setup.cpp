// hplx sim's preparation, without SimGrid: the kernel models a spec gives
// the simulated ranks, their file format, the simulated pivots and the
// simulator's memory estimate (apps/hplx/sim_setup.hpp,
// src/device/sim_model.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "device/sim_model.hpp"
#include "lu/phases/fact/fact_model.hpp"
#include "model/sim_kernels.hpp"
#include "model/system_spec.hpp"
#include "sim_setup.hpp"

namespace hplx {
namespace {

const char* kCpuSpec = R"(
[system]
name = "two-core test node"
[device]
dgemm_gflops = 30
fact_gflops = 5
fact_column_us = 2
)";

TEST(SimSetup, GpuSpecGivesGpuRanksWithHostFactAndTheirLinks) {
  const model::SystemSpec spec =
      model::load_system_spec(std::string(HPLX_SOURCE_DIR) + "/examples/systems/dgx-h100.toml");
  const device::SimModel m = model::sim_model_from_spec(spec, 1);
  EXPECT_TRUE(m.gpu);
  // The H200's measured figures (the spec's comments say which and why):
  // the DGEMM fit at the LU's update share, the host's FACT and its PCIe.
  EXPECT_NEAR(m.dgemm.peak_flops, 67292e9 * 0.79, 1e6);  // device.update_share_of_dgemm
  EXPECT_DOUBLE_EQ(m.sgemm.peak_flops, 2 * 67292e9);
  EXPECT_DOUBLE_EQ(m.dgemm.half_dim, 91);  // device.dgemm_half_dim
  EXPECT_DOUBLE_EQ(m.sgemm.half_dim, 91);
  EXPECT_DOUBLE_EQ(m.fact_flops, 116.3e9);   // host.fact_gflops
  EXPECT_DOUBLE_EQ(m.fact_column_s, 10e-6);  // host.fact_column_us
  EXPECT_DOUBLE_EQ(m.link_Bps, 55e9);        // host.link: PCIe
  EXPECT_DOUBLE_EQ(m.link_latency_s, 96e-6);
  EXPECT_NEAR(m.memory_Bps, 3350e9, 1e6);  // [memory]: HBM
  EXPECT_DOUBLE_EQ(m.device_memory_bytes, 80.0 * (1 << 30));
}

TEST(SimSetup, CpuSpecGivesInlineRanksAndNotesWhatItAssumed) {
  const model::SystemSpec spec = model::parse_system_spec(kCpuSpec, "cpu.toml");
  std::vector<std::string> notes;
  const device::SimModel m = model::sim_model_from_spec(spec, 1, &notes);
  EXPECT_FALSE(m.gpu);
  EXPECT_DOUBLE_EQ(m.dgemm.peak_flops, 30e9);
  EXPECT_DOUBLE_EQ(m.trsm_flops, 30e9);  // no R_trsm: at the DGEMM rate, as hplx model does
  EXPECT_DOUBLE_EQ(m.fact_flops, 5e9);
  EXPECT_DOUBLE_EQ(m.fact_column_s, 2e-6);
  EXPECT_DOUBLE_EQ(m.dgemm.half_dim, 0);  // no device.dgemm_half_dim: the rate at every shape
  // The copy rates are guesses here, and said so.
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("GB/s for a rank's contiguous copies"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("ns per element a row copy moves"), std::string::npos) << notes[1];
}

// A calibrated rank's row copies, each kind at its own measured cost, and
// DGEMM's packing of A per call: an update in narrow chunks costs more.
const char* kCalibratedCopies = R"(
[system]
name = "calibrated test node"
[device]
dgemm_gflops = 30
swap_ns_per_word_by_threads = { "1" = 8.5 }
gather_ns_per_word_by_threads = { "1" = 5.5, "2" = 2.5 }
scatter_ns_per_word_by_threads = { "1" = 11 }
block_gather_ns_per_word_by_threads = { "1" = 2.75 }
dgemm_pack_ns_per_word = 0.75
dgemm_cv = 0.04
)";

TEST(SimSetup, CalibratedRowCopiesAreChargedByKind) {
  const model::SystemSpec spec = model::parse_system_spec(kCalibratedCopies, "cal.toml");
  const device::SimModel m = model::sim_model_from_spec(spec, 1);
  using device::RowCopy;
  EXPECT_DOUBLE_EQ(m.row_seconds(RowCopy::Swap), 8.5e-9);
  EXPECT_DOUBLE_EQ(m.row_seconds(RowCopy::Gather), 5.5e-9);
  EXPECT_DOUBLE_EQ(m.row_seconds(RowCopy::Scatter), 11e-9);
  EXPECT_DOUBLE_EQ(m.row_seconds(RowCopy::BlockGather), 2.75e-9);
  // Not calibrated: the in-place swap's cost.
  EXPECT_DOUBLE_EQ(m.row_seconds(RowCopy::BlockStore), 8.5e-9);
  // Two threads' figure where the run has two.
  EXPECT_DOUBLE_EQ(model::sim_model_from_spec(spec, 2).row_seconds(RowCopy::Gather), 2.5e-9);
  // Four 256-column calls pack A four times; one call of 1024 columns once.
  const double one = m.dgemm.seconds(10000, 1024, 192), four = 4 * m.dgemm.seconds(10000, 256, 192);
  EXPECT_NEAR(four - one, 3 * 10000 * 192 * 0.75e-9, 1e-12);
  // And the figures survive the file the ranks read.
  const device::SimModel back = device::sim_model_from_json(to_json(m), "test");
  EXPECT_DOUBLE_EQ(back.row_seconds(RowCopy::Scatter), 11e-9);
  EXPECT_DOUBLE_EQ(back.dgemm.pack_s, 0.75e-9);
  // DGEMM's spread, for every GEMM of the rank.
  EXPECT_DOUBLE_EQ(back.dgemm.cv, 0.04);
  EXPECT_DOUBLE_EQ(back.sgemm.cv, 0.04);
  EXPECT_DOUBLE_EQ(
      model::sim_model_from_spec(model::parse_system_spec(kCpuSpec, "c.toml"), 1).dgemm.cv, 0.0);
}

TEST(SimSetup, DgemmSpreadOutsideZeroToOneIsAClearError) {
  for (const char* bad : {"-0.1", "1.0", "\"x\""}) {
    std::string text = "[system]\nname = \"n\"\n[device]\ndgemm_gflops = 30\ndgemm_cv = ";
    text += bad;
    try {
      model::parse_system_spec(text, "cv.toml");
      FAIL() << "dgemm_cv = " << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("dgemm_cv"), std::string::npos) << e.what();
    }
  }
  nlohmann::json j =
      to_json(model::sim_model_from_spec(model::parse_system_spec(kCpuSpec, "c"), 1));
  j["dgemm"]["cv"] = 1.5;
  EXPECT_THROW(device::sim_model_from_json(j, "k.json"), UsageError);
}

// Each call's time varies around the model's mean by its spread:
// lognormal, mean 1 and standard deviation cv; none without a spread; the
// same stream gives the same calls.
TEST(SimModel, CallsVaryAroundTheirMeanByTheSpread) {
  std::uint64_t state = 42;
  EXPECT_EQ(device::spread_factor(0.0, state), 1.0);
  EXPECT_EQ(state, 42u);  // no spread: nothing drawn
  for (double cv : {0.02, 0.1, 0.3}) {
    constexpr int kDraws = 200000;
    double sum = 0, sum2 = 0, low = 10;
    for (int i = 0; i < kDraws; ++i) {
      const double f = device::spread_factor(cv, state);
      sum += f;
      sum2 += f * f;
      low = std::min(low, f);
    }
    const double mean = sum / kDraws, sd = std::sqrt(sum2 / kDraws - mean * mean);
    EXPECT_NEAR(mean, 1.0, 0.005) << "cv " << cv;
    EXPECT_NEAR(sd / cv, 1.0, 0.03) << "cv " << cv;
    EXPECT_GT(low, 0.0) << "cv " << cv;  // a call never takes no time
  }
  std::uint64_t a = 7, b = 7;
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(device::spread_factor(0.05, a), device::spread_factor(0.05, b));
}

TEST(SimSetup, RanksThatAreGpusWithoutHostRunInOrderWithADevicesChoices) {
  // hdpex-p100: device.gpu = true, no [host]: in-order ranks that still
  // count as devices (the split update for P > 1); a CPU spec's do not.
  const model::SystemSpec gpu =
      model::load_system_spec(std::string(HPLX_SOURCE_DIR) + "/examples/systems/hdpex-p100.toml");
  std::vector<std::string> notes;
  const device::SimModel g = model::sim_model_from_spec(gpu, 1, &notes);
  EXPECT_FALSE(g.gpu);
  EXPECT_TRUE(g.device_ranks);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("simulated in order") != std::string::npos;
  }));
  const device::SimModel back = device::sim_model_from_json(device::to_json(g), "k.json");
  EXPECT_TRUE(back.device_ranks);
  const device::SimModel c =
      model::sim_model_from_spec(model::parse_system_spec(kCpuSpec, "cpu.toml"), 1, nullptr);
  EXPECT_FALSE(c.device_ranks);
  EXPECT_EQ(device::rank_kind(g), "in-order GPU");  // what the run's log calls them
  EXPECT_EQ(device::rank_kind(c), "CPU");
  // An older kernels file without the key: devices where the queues are.
  nlohmann::json j = device::to_json(c);
  j.erase("device_ranks");
  EXPECT_FALSE(device::sim_model_from_json(j, "old.json").device_ranks);
}

TEST(SimSetup, GpuSpecWithoutDeviceMemoryBandwidthIsAClearError) {
  const std::string text = std::string(kCpuSpec) +
                           "[host]\nfact_gflops = 100\nfact_column_us = 10\n"
                           "[host.link]\nalpha_us = 5\nbandwidth_gbs = 25\n";
  const model::SystemSpec spec = model::parse_system_spec(text, "gpu.toml");
  try {
    model::sim_model_from_spec(spec, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("[memory] table with bandwidth_gbs"), std::string::npos)
        << e.what();
  }
}

// The host's copy rate (the row swap's U passes through the host of a GPU
// rank) comes from host.copy_gbs; without it the guess is said.
TEST(SimSetup, GpuRanksHostCopyRateFromTheSpecOrAssumedAndSaid) {
  const std::string gpu = std::string(kCpuSpec) +
                          "[memory]\nalpha_us = 1\nbandwidth_gbs = 2000\n"
                          "[host]\nfact_gflops = 100\nfact_column_us = 10\n";
  const std::string link = "[host.link]\nalpha_us = 5\nbandwidth_gbs = 25\n";
  std::vector<std::string> notes;
  const device::SimModel given = model::sim_model_from_spec(
      model::parse_system_spec(gpu + "copy_gbs = 40\n" + link, "gpu.toml"), 1, &notes);
  EXPECT_DOUBLE_EQ(given.host_memory_Bps, 40e9);
  EXPECT_DOUBLE_EQ(given.host_row_element_s, 8.0 / 40e9);
  for (const std::string& n : notes) EXPECT_EQ(n.find("host copies"), std::string::npos) << n;

  notes.clear();
  const device::SimModel assumed =
      model::sim_model_from_spec(model::parse_system_spec(gpu + link, "gpu.toml"), 1, &notes);
  EXPECT_DOUBLE_EQ(assumed.host_memory_Bps, 20e9);
  const auto said = std::count_if(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("assumed 20 GB/s host copies (no host.copy_gbs)") != std::string::npos;
  });
  EXPECT_EQ(said, 1) << "notes: " << ::testing::PrintToString(notes);
}

// A GPU rank's row kernels move data at the device memory's own bandwidth:
// from a hardware description (seed 001's form) that is M W 8 H (732 GB/s
// for a P100's HBM2), not the MCL model's per-core equivalent BW_eq (13 GB/s
// there), which made the simulated row swap 56 times too slow.
TEST(SimSetup, GpuRanksRowKernelsAtTheHardwareMemorysOwnBandwidth) {
  const std::string text = std::string(kCpuSpec) +
                           "cores = 3584\nflops_per_cycle = 1\nclock_ghz = 1.303\n"
                           "[memory]\ncontrollers = 4\nqwords_per_controller = 16\n"
                           "clock_ghz = 1.43\nlatency_cycles = 1029\n"
                           "[host]\nfact_gflops = 100\nfact_column_us = 10\n"
                           "[host.link]\nalpha_us = 5\nbandwidth_gbs = 25\n";
  const model::SystemSpec spec = model::parse_system_spec(text, "p100.toml");
  EXPECT_NEAR(spec.memory.bw_eq_Bps, 13.07e9, 0.01e9);  // the model's figure is unchanged
  const device::SimModel m = model::sim_model_from_spec(spec, 1);
  EXPECT_NEAR(m.memory_Bps, 4 * 16 * 8 * 1.43e9, 1e3);  // 732.16 GB/s
  EXPECT_NEAR(m.row_element_s, 64 / 732.16e9, 1e-15);
}

TEST(SimModel, JsonRoundTripKeepsEveryFigure) {
  const model::SystemSpec spec =
      model::load_system_spec(std::string(HPLX_SOURCE_DIR) + "/examples/systems/dgx-h100.toml");
  const device::SimModel m = model::sim_model_from_spec(spec, 1);
  const device::SimModel back = device::sim_model_from_json(to_json(m), "test");
  EXPECT_EQ(to_json(back), to_json(m));
}

TEST(SimModel, ZeroRateIsRejectedNamingTheField) {
  const model::SystemSpec spec = model::parse_system_spec(kCpuSpec, "cpu.toml");
  nlohmann::json j = to_json(model::sim_model_from_spec(spec, 1));
  j["dgemm"]["peak_flops"] = 0;
  try {
    device::sim_model_from_json(j, "k.json");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'dgemm.peak_flops' is 0"), std::string::npos) << e.what();
  }
  j.erase("trsm_flops");
  EXPECT_THROW(device::sim_model_from_json(j, "k.json"), UsageError);
}

TEST(SimModel, GemmSlowsDownOnThinShapes) {
  device::GemmModel g{1e12, 64, 1e-6};
  const double s = 8192.0 / 8256;  // each large dimension's saturation
  EXPECT_NEAR(g.seconds(8192, 8192, 8192), 1e-6 + 2.0 * 8192 * 8192 * 8192 / (1e12 * s * s * s),
              1e-9);
  // k = 64: half the large shapes' rate.
  EXPECT_NEAR(g.seconds(8192, 8192, 64), 1e-6 + 2.0 * 8192 * 8192 * 64 / (0.5e12 * s * s), 1e-9);
  // A smaller K is slower per flop: NB 256 against NB 1024.
  EXPECT_GT(g.seconds(8192, 8192, 256) / 256, g.seconds(8192, 8192, 1024) / 1024);
  EXPECT_EQ(g.seconds(0, 10, 10), 0.0);
}

TEST(SimModel, PivotsAreDeterministicAndSpreadOverTheRemainingRows) {
  std::set<long> seen;
  for (long c = 0; c < 200; ++c) {
    const long p = lu::simulated_pivot(7, 1000, c, 5000);
    EXPECT_GE(p, 1000 + c);
    EXPECT_LT(p, 5000);
    EXPECT_EQ(p, lu::simulated_pivot(7, 1000, c, 5000));
    seen.insert(p);
  }
  EXPECT_GT(seen.size(), 150u);                            // spread, not a handful of rows
  EXPECT_EQ(lu::simulated_pivot(7, 4999, 0, 5000), 4999);  // the last row has no choice
}

TEST(SimSetup, SimulatorMemoryGrowsWithRanksAndBlockSize) {
  const double small = app::simulator_bytes(100000, 256, 4, 4);
  EXPECT_GT(small, 0);
  EXPECT_GT(app::simulator_bytes(100000, 256, 8, 8), small);
  EXPECT_GT(app::simulator_bytes(100000, 512, 4, 4), small);
  // Matrix-sized buffers are shared or unbacked: 1024 ranks at N = 500,000
  // fit in the goal's 8 GiB.
  EXPECT_LT(app::simulator_bytes(500000, 256, 32, 32), 8.0 * (1 << 30));
  // The per-iteration records grow with the panels: 4096 ranks fit this
  // machine's 23 GiB at N = 16384, not at N = 2,000,000.
  EXPECT_GT(app::simulator_bytes(2000000, 128, 64, 64),
            2 * app::simulator_bytes(16384, 128, 64, 64));
  EXPECT_LT(app::simulator_bytes(16384, 128, 64, 64), 12.0 * (1 << 30));
}

TEST(SimSetup, SharedBlockHoldsTheLargestSharedBufferInOneMapping) {
  // Small runs: SMPI's block of 64 MiB.
  EXPECT_EQ(app::shared_block_bytes(20000, 192, 2, 1), std::size_t{64} << 20);
  EXPECT_EQ(app::shared_block_bytes(500000, 128, 32, 32), std::size_t{64} << 20);
  // 64 DGX H100 nodes at full memory, NB 1024 on 32 x 16: U of a rank's
  // 129,024 columns is 1008 MiB, a panel of its 64,512 rows 504 MiB.
  EXPECT_EQ(app::shared_block_bytes(2064384, 1024, 32, 16), std::size_t{1} << 30);
  // On 16 x 32 the rows are the larger: 129,024 rows of 1024.
  EXPECT_EQ(app::shared_block_bytes(2064384, 1024, 16, 32), std::size_t{1} << 30);
  EXPECT_EQ(app::shared_block_bytes(2064384, 1024, 8, 32), std::size_t{2} << 30);
  // The simulator's memory counts the block's pages once: 256 ranks on 8 x 32
  // hold a block twice as large as on 16 x 16.
  EXPECT_DOUBLE_EQ(
      app::simulator_bytes(2064384, 1024, 8, 32) - app::simulator_bytes(2064384, 1024, 16, 16),
      static_cast<double>(std::size_t{1} << 30));
}

TEST(SimSetup, RefusesMoreRanksThanTheMappingLimitAllows) {
  // Linux's default vm.max_map_count: 1024 ranks do not fit, 256 do.
  EXPECT_NO_THROW(app::require_mappings(256, 65530));
  EXPECT_NO_THROW(app::require_mappings(1 << 20, 0));  // limit unknown: no check
  try {
    app::require_mappings(1024, 65530);
    FAIL() << "1024 ranks passed a limit of 65530 mappings";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "simulating 1024 ranks needs about 135168 memory mappings and vm.max_map_count is "
              "65530; allowed: raise it (sudo sysctl -w vm.max_map_count=1048576) or at most 479 "
              "ranks");
  }
}

// The H200 spec's figures, each from its own measurement of the first GPU
// run (examples/systems/h200.toml says which), land where hplx sim uses
// them.
TEST(SimSetup, H200SpecFiguresLandInTheKernelModel) {
  const model::SystemSpec spec =
      model::load_system_spec(std::string(HPLX_SOURCE_DIR) + "/examples/systems/h200.toml");
  std::vector<std::string> notes;
  const device::SimModel m = model::sim_model_from_spec(spec, 1, &notes);
  EXPECT_TRUE(m.gpu);
  // probe.json, fitted, at the share the LU's update ran at (its records).
  EXPECT_DOUBLE_EQ(m.dgemm.peak_flops, 67292e9 * 0.79);
  EXPECT_DOUBLE_EQ(m.dgemm.half_dim, 91);
  // The fit gives the probe's NB = 1024 rate at M = 60000 within 1%.
  const double at_1024 = 2.0 * 60000.0 * 60000 * 1024 / m.dgemm.seconds(60000, 60000, 1024);
  EXPECT_NEAR(at_1024 / 0.79 / 61445.8e9, 1.0, 0.01);
  // The fact probe's times, in seconds.
  EXPECT_EQ(m.device_fact.jb, (std::vector<double>{512, 1024}));
  EXPECT_EQ(m.device_fact.rows, (std::vector<double>{20000, 61000, 124000}));
  EXPECT_DOUBLE_EQ(m.device_fact.alone_s.back(), 105.92e-3);
  EXPECT_DOUBLE_EQ(m.device_fact.beside_s.front(), 64.15e-3);
  EXPECT_NEAR(m.memory_Bps, 3665e9, 1e6);    // stream.json, copy
  EXPECT_DOUBLE_EQ(m.fact_flops, 116.3e9);   // lu-*.json, host FACT
  EXPECT_DOUBLE_EQ(m.fact_column_s, 10e-6);  //   and its time per column
  EXPECT_DOUBLE_EQ(m.link_Bps, 55e9);        // lu-*.json, transfer_s
  EXPECT_DOUBLE_EQ(m.link_latency_s, 96e-6);
  EXPECT_DOUBLE_EQ(m.kernel_overhead_s, 5e-6);  // device.launch_us
  EXPECT_DOUBLE_EQ(m.device_fact_column_s, 0);  // device.fact_column_us
  EXPECT_DOUBLE_EQ(m.device_memory_bytes, 139.8 * (1 << 30));
  EXPECT_EQ(spec.run.n.value_or(0), 123904);
  // The launch time is given, so it is not among the guesses.
  for (const std::string& n : notes) EXPECT_EQ(n.find("per GPU kernel launch"), std::string::npos);
}

std::string h200_with(const std::string& line) {
  const std::string path = std::string(HPLX_SOURCE_DIR) + "/examples/systems/h200.toml";
  std::string text;
  std::FILE* f = std::fopen(path.c_str(), "r");
  char buf[4096];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
  std::fclose(f);
  // After the [device] table's first line.
  const std::size_t at = text.find("[device]\n") + 9;
  return text.insert(at, line + "\n");
}

std::string without(std::string text, const std::string& line) {
  const std::size_t at = text.find(line + "\n");
  if (at != std::string::npos) text.erase(at, line.size() + 1);
  return text;
}

// device.launch_us and device.fact_column_us (FACT on the device's time
// per column) reach the kernel model; without launch_us the launch is
// assumed, and said.
TEST(SimSetup, DeviceFactKeysReachTheKernelModelOrAreAssumedAndSaid) {
  std::string text =
      without(without(h200_with("launch_us = 2\nfact_column_us = 3"), "launch_us = 5"),
              "fact_column_us = 0");
  device::SimModel m = model::sim_model_from_spec(model::parse_system_spec(text, "h.toml"), 1);
  EXPECT_DOUBLE_EQ(m.kernel_overhead_s, 2e-6);
  EXPECT_DOUBLE_EQ(m.device_fact_column_s, 3e-6);
  const device::SimModel back = device::sim_model_from_json(to_json(m), "k.json");
  EXPECT_DOUBLE_EQ(back.device_fact_column_s, 3e-6);
  std::vector<std::string> notes;
  // Without the key, the spec's [provenance] no longer lists it as assumed.
  const std::string no_launch =
      without(without(h200_with(""), "launch_us = 5"), "  \"device.launch_us\",");
  m = model::sim_model_from_spec(model::parse_system_spec(no_launch, "h.toml"), 1, &notes);
  EXPECT_DOUBLE_EQ(m.kernel_overhead_s, 5e-6);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("assumed 5 us per GPU kernel launch (no device.launch_us)") != std::string::npos;
  }));
}

TEST(SimSetup, BadDeviceFactKeysAreAClearOneLineError) {
  const std::pair<const char*, const char*> bad[] = {{"launch_us = 0", "launch_us"},
                                                     {"launch_us = -1", "launch_us"},
                                                     {"launch_us = \"fast\"", "launch_us"},
                                                     {"fact_column_us = -2", "fact_column_us"}};
  for (const auto& [line, key] : bad) {
    const std::string text =
        without(without(h200_with(line), "launch_us = 5"), "fact_column_us = 0");
    try {
      model::parse_system_spec(text, "h.toml");
      FAIL() << line << " was accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("h.toml"), std::string::npos) << what;
      EXPECT_NE(what.find(key), std::string::npos) << what;
      EXPECT_NE(what.find("allowed"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  nlohmann::json j =
      to_json(model::sim_model_from_spec(model::parse_system_spec(h200_with(""), "h.toml"), 1));
  j["device_fact_column_s"] = -1e-6;
  EXPECT_THROW(device::sim_model_from_json(j, "k.json"), UsageError);
}

// The device FACT model (lu/phases/panel.hpp): on the H200's figures a panel of
// NB 1024 factors on the device faster than on its host (what makes
// --fact-on device the faster schedule there), each column's further time
// adds jb times it, and a slower launch makes it slower.
TEST(SimModel, DeviceFactIsCostedFromTheDevicesFigures) {
  device::SimModel m = model::sim_model_from_spec(
      model::load_system_spec(std::string(HPLX_SOURCE_DIR) + "/examples/systems/h200.toml"), 1);
  m.device_fact = {};  // the launch model, not the measured times
  using lu::Factorization;
  const long rows = 123904, jb = 1024;
  const double device = lu::simulated_device_fact_seconds(m, rows, jb, Factorization::Crout,
                                                          Factorization::Right, 4, 2);
  double host = 0;
  for (long c = 0; c < jb; ++c)
    host += 2.0 * (rows - c) * (jb - c) / m.fact_flops + m.fact_column_s;
  EXPECT_GT(device, 0);
  EXPECT_LT(device, host / 4) << "device " << device << " s, host " << host << " s";
  // At least its launches: 4 per column on one process row.
  EXPECT_GT(device, 4 * jb * m.kernel_overhead_s);
  device::SimModel slower = m;
  slower.device_fact_column_s = 7e-6;
  EXPECT_NEAR(lu::simulated_device_fact_seconds(slower, rows, jb, Factorization::Crout,
                                                Factorization::Right, 4, 2) -
                  device,
              jb * 7e-6, 1e-9);
  slower = m;
  slower.kernel_overhead_s *= 2;
  EXPECT_GT(lu::simulated_device_fact_seconds(slower, rows, jb, Factorization::Crout,
                                              Factorization::Right, 4, 2),
            device);
}

}  // namespace
}  // namespace hplx

namespace hplx {
namespace {

// The measured device FACT (device.fact_probe): the probe's own times at
// its points, alone and beside the update, linear between them, the end
// segments going on in rows and the time in proportion to jb beyond them.
TEST(SimModel, MeasuredDeviceFactIsTheProbesTimesBetweenAndBeyondItsPoints) {
  const device::SimModel m = model::sim_model_from_spec(
      model::load_system_spec(std::string(HPLX_SOURCE_DIR) + "/examples/systems/h200.toml"), 1);
  using lu::Factorization;
  auto fact = [&](long rows, long jb, bool beside) {
    return lu::simulated_device_fact_seconds(m, rows, jb, Factorization::Crout,
                                             Factorization::Right, 4, 2, beside) *
           1e3;
  };
  EXPECT_NEAR(fact(124000, 1024, false), 105.92, 1e-9);
  EXPECT_NEAR(fact(124000, 1024, true), 367.04, 1e-9);
  EXPECT_NEAR(fact(61000, 512, false), 35.76, 1e-9);
  EXPECT_NEAR(fact(20000, 512, true), 64.15, 1e-9);
  EXPECT_NEAR(fact(92500, 1024, false), (73.06 + 105.92) / 2, 1e-9);
  EXPECT_NEAR(fact(124000, 768, true), (168.37 + 367.04) / 2, 1e-9);
  EXPECT_NEAR(fact(124000, 2048, false), 2 * 105.92, 1e-9);
  EXPECT_NEAR(fact(124000, 256, false), 52.09 / 2, 1e-9);
  EXPECT_NEAR(fact(187000, 1024, false), 105.92 + (105.92 - 73.06), 1e-9);
  EXPECT_NEAR(fact(1000, 1024, false), 39.70 - (73.06 - 39.70) * 19000 / 41000, 1e-9);
  // Never below the first point's time in proportion to the rows.
  device::SimModel steep = m;
  steep.device_fact.alone_s = {1, 2, 3, 1e-3, 100e-3, 200e-3};
  EXPECT_NEAR(lu::simulated_device_fact_seconds(steep, 10000, 1024, Factorization::Crout,
                                                Factorization::Right, 4, 2),
              0.5e-3, 1e-12);
  // The record the ranks read carries the table.
  const device::SimModel back = device::sim_model_from_json(to_json(m), "k.json");
  EXPECT_EQ(back.device_fact.beside_s, m.device_fact.beside_s);
  EXPECT_EQ(back.device_fact.rows, m.device_fact.rows);
}

// The H200 spec with the line that starts with `from` (a key, not a
// comment that names it) starting with `to` instead.
std::string h200_probe(const std::string& from, const std::string& to) {
  std::string text = h200_with("");
  const std::size_t at = text.find("\n" + from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at + 1, from.size(), to);
}

TEST(SimSetup, BadFactProbeOrUpdateShareIsAClearOneLineError) {
  const std::string jb = "jb = [512, 1024]", alone = "alone_ms = [[19.48, 35.76, 52.09], ";
  const std::tuple<std::string, std::string, const char*> bad[] = {
      {jb, "jb = [1024, 512]", "device.fact_probe.jb"},
      {jb, "jb = [0, 1024]", "device.fact_probe.jb"},
      {jb, "jb = 1024", "device.fact_probe.jb"},
      {"rows = [20000, 61000, 124000]", "rows = [20000, 61000]", "device.fact_probe.alone_ms"},
      {alone, "alone_ms = [[19.48, -1, 52.09], ", "device.fact_probe.alone_ms"},
      {alone, "alone_ms = [[19.48, \"x\", 52.09], ", "device.fact_probe.alone_ms"},
      {"beside_ms = ", "besides_ms = ", "device.fact_probe.besides_ms"},
      {"update_share_of_dgemm = 0.79", "update_share_of_dgemm = 1.5",
       "device.update_share_of_dgemm"},
      {"update_share_of_dgemm = 0.79", "update_share_of_dgemm = 0", "device.update_share_of_dgemm"},
      {"multiprocessors = 132", "multiprocessors = 132.5", "device.multiprocessors"},
      {"multiprocessors = 132", "multiprocessors = 0", "device.multiprocessors"}};
  for (const auto& [from, to, key] : bad) {
    try {
      model::parse_system_spec(h200_probe(from, to), "h.toml");
      FAIL() << to << " was accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("h.toml"), std::string::npos) << what;
      EXPECT_NE(what.find(key), std::string::npos) << to << ": " << what;
      EXPECT_NE(what.find("allowed"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  // Without beside_ms the table is incomplete.
  try {
    model::parse_system_spec(
        h200_probe("beside_ms = [[64.15, 100.40, 168.37], [137.51, 241.15, 367.04]]", ""),
        "h.toml");
    FAIL() << "a probe without beside_ms was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("device.fact_probe.beside_ms': missing"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hplx
