// HPL-MxP's FP32 LU stopped at a checkpoint and resumed gives the factors
// of the same run never stopped, bit for bit: the checkpoint's drain of
// the waiting panels cuts their columns as the look-ahead would have
// (OpenBLAS's SGEMM rounds by how the columns are cut), and the resumed
// run's first panels round as the run's later ones. On every grid, depth
// 1 and 2, one thread and three (threads beside FACT), the host backend
// and the emulated device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <omp.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/timer.hpp"
#include "device/device.hpp"
#include "grids.hpp"
#include "hplmxp/distributed_matrix.hpp"
#include "hplmxp/lu_nopiv.hpp"
#include "lu/checkpoint/checkpointer.hpp"
#include "lu/checkpoint/manifest.hpp"
#include "lu/checkpoint/resume.hpp"

using namespace hplx;
using namespace hplx::hplmxp;

namespace {

std::shared_ptr<device::Device> device_of(device::BackendKind kind) {
  static auto host = device::make_device(device::BackendKind::Host);
  static auto emulated = device::make_device(device::BackendKind::Emulated);
  return kind == device::BackendKind::Host ? host : emulated;
}

// A factorization's matrix in the device's memory, and back.
struct DeviceMatrix {
  DeviceMatrix(device::Device& dev, const std::vector<float>& start)
      : q(dev.compute()), a(q.backend(), static_cast<long>(start.size())) {
    device::copy(q, a.data(), start.data(), static_cast<long>(start.size()));
    q.synchronize();
  }
  std::vector<float> back() {
    std::vector<float> h(static_cast<std::size_t>(a.size()));
    device::copy(q, h.data(), a.data(), a.size());
    q.synchronize();
    return h;
  }
  device::Queue& q;
  device::Buffer<float> a;
};

// How a factorization runs: its device, depth and threads.
struct Schedule {
  device::BackendKind kind;
  int depth;
  int threads;
};

std::string describe(const Schedule& r, int p, int q) {
  return std::string(r.kind == device::BackendKind::Host ? "host" : "emulated") + " depth " +
         std::to_string(r.depth) + " threads " + std::to_string(r.threads) + " grid " +
         std::to_string(p) + "x" + std::to_string(q);
}

// Factors `start` as `run` says; with `dir`, checkpointing at every
// boundary the interval allows (an interval of 0 s); with `resume`, from
// that checkpoint's state, `start` being its matrix.
std::vector<float> factor(const Layout& l, const ProcessGrid& grid, const Schedule& run,
                          const std::vector<float>& start, const std::string& dir = "",
                          const lu::LoopState* resume = nullptr) {
  device::Device& dev = *device_of(run.kind);
  DeviceMatrix m(dev, start);
  FactorOptions opt;
  opt.depth = run.depth;
  if (run.kind != device::BackendKind::Host) opt.fact_queue = &dev.panel();
  std::unique_ptr<lu::Checkpointer> writer;
  if (!dir.empty()) {
    lu::CheckpointPlan plan;
    plan.dir = dir;
    plan.every_s = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &plan.identity.ranks);
    writer = std::make_unique<lu::Checkpointer>(plan, dev, checkpoint_view(l, m.a), grid.all(),
                                                wall_time());
  }
  opt.checkpoints = {writer.get(), resume};
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(run.threads);
  factor_nopiv(l, grid, m.q, m.a.data(), opt);
  omp_set_num_threads(threads_before);
  return m.back();
}

// The matrix and state of the checkpoint `manifest` names.
std::vector<float> load(const Layout& l, const Schedule& run, const std::string& dir,
                        const std::string& manifest, lu::LoopState& state) {
  lu::ResumeSource source;
  source.dir = dir;
  source.manifest_path = manifest;
  std::ifstream in(manifest);
  source.manifest = lu::manifest_from_json(nlohmann::json::parse(in));
  device::Device& dev = *device_of(run.kind);
  DeviceMatrix m(dev, std::vector<float>(static_cast<std::size_t>(l.local_elements()), 0.0f));
  state = lu::load_checkpoint(source, dev, checkpoint_view(l, m.a));
  return m.back();
}

// Elements whose bits differ.
long differing(const std::vector<float>& a, const std::vector<float>& b) {
  long count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) count += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  return count;
}

// The same folder name on every rank.
std::string shared_folder(const ProcessGrid& grid, const std::string& what) {
  long id = getpid();
  MPI_Bcast(&id, 1, MPI_LONG, 0, grid.all());
  return (std::filesystem::temp_directory_path() /
          ("hplx-mxp-resume-" + what + "-" + std::to_string(id)))
      .string();
}

}  // namespace

TEST(HplMxpResume, ACheckpointedAndAResumedRunGiveTheUninterruptedFactorsBitForBit) {
  // Wide enough for several 512-column chunks of the update on 1x2.
  const long n = 1400;
  const int nb = 64;
  const std::vector<Schedule> runs = {{device::BackendKind::Host, 1, 1},
                                      {device::BackendKind::Host, 2, 1},
                                      {device::BackendKind::Host, 1, 3},
                                      {device::BackendKind::Emulated, 1, 1}};
  for (auto [p, q] : hplmxp_test_grids()) {
    ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
    if (!grid.in_grid()) continue;
    const Layout l = Layout::of(n, nb, grid);
    std::vector<double> a(static_cast<std::size_t>(l.local_elements()));
    generate_matrix(l, grid, a.data());
    const std::vector<float> start(a.begin(), a.end());
    for (const Schedule& run : runs) {
      const std::string what = describe(run, p, q);
      const std::vector<float> whole = factor(l, grid, run, start);
      const std::string dir = shared_folder(grid, std::to_string(p) + "x" + std::to_string(q));
      EXPECT_EQ(differing(factor(l, grid, run, start, dir), whole), 0)
          << what << ": checkpointed at every boundary, the factors differ";
      const std::vector<std::string> manifests = lu::manifests_in(dir);
      ASSERT_FALSE(manifests.empty()) << what << ": no checkpoint written";
      for (const std::string& manifest : manifests) {  // the two kept
        lu::LoopState state;
        const std::vector<float> saved = load(l, run, dir, manifest, state);
        ASSERT_GT(state.column, 0) << manifest;
        ASSERT_LT(state.column, n) << manifest;
        EXPECT_EQ(differing(factor(l, grid, run, saved, "", &state), whole), 0)
            << what << ": resumed at column " << state.column << ", the factors differ";
      }
      int me = 0;
      MPI_Comm_rank(grid.all(), &me);
      MPI_Barrier(grid.all());
      if (me == 0) std::filesystem::remove_all(dir);
      MPI_Barrier(grid.all());
    }
  }
}
