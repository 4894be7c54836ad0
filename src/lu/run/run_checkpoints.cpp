#include "lu/run/run_checkpoints.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::lu {

std::unique_ptr<Checkpointer> make_checkpointer(const CheckpointOptions& o, long index,
                                                const nlohmann::json& test,
                                                const ResumeSource* from, device::Device& dev,
                                                const CheckpointMatrix& a, MPI_Comm comm,
                                                double t0) {
  if (o.dir.empty()) return nullptr;
  CheckpointPlan plan;
  plan.dir = o.dir;
  plan.every_s = o.every_s;
  plan.identity = o.identity;
  plan.identity.test_index = index;
  plan.identity.test = test;
  if (from) {
    const Manifest& m = from->manifest;
    plan.segments_before = m.segments;
    plan.seconds_before = m.seconds;
    plan.start_column = m.column;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const auto& files = m.files.at(static_cast<std::size_t>(rank));
    if (files.size() >= 2) plan.done_files.assign(files.begin(), files.end() - 2);
  }
  return std::make_unique<Checkpointer>(plan, dev, a, comm, t0);
}

const ResumeSource* resume_source(const CheckpointOptions& o, long index) {
  return o.resume && index == o.resume->manifest.test_index ? &*o.resume : nullptr;
}

TestSegments resumed_segments(const ResumeSource& from, long n, double seconds) {
  TestSegments s;
  s.segments = from.manifest.segments;
  s.segments.push_back({from.manifest.column, n, seconds});
  s.resumed_from = from.manifest_path;
  s.resumed_column = from.manifest.column;
  return s;
}

nlohmann::json to_json(const TestSegments& s) {
  nlohmann::json j = nlohmann::json::object();
  if (!s.resumed_from.empty()) {
    nlohmann::json segments = nlohmann::json::array();
    for (const Segment& g : s.segments)
      segments.push_back(
          {{"from_column", g.from_column}, {"to_column", g.to_column}, {"seconds", g.seconds}});
    j["resumed"] = {{"manifest", s.resumed_from},
                    {"from_column", s.resumed_column},
                    {"segments", std::move(segments)}};
  }
  if (!s.checkpoints.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const CheckpointCost& c : s.checkpoints)
      list.push_back({{"column", c.column},
                      {"stall_s", c.stall_s},
                      {"write_s", c.write_s},
                      {"bytes", c.bytes},
                      {"write_gbs", c.write_s > 0 ? c.bytes / c.write_s / 1e9 : 0.0}});
    j["checkpoints"] = std::move(list);
  }
  return j;
}

void print_segments(const TestSegments& s, long n) {
  if (!s.resumed_from.empty()) {
    std::string parts;
    for (const Segment& g : s.segments)
      parts += fmt::format("{}columns {}-{} in {:.2f} s", parts.empty() ? "" : ", ", g.from_column,
                           g.to_column, g.seconds);
    std::fprintf(stderr,
                 "hplx: resumed run: from %s at column %ld of %ld; segments: %s. Time and "
                 "Gflops count the segments (their checkpoints included), not the time "
                 "between them.\n",
                 s.resumed_from.c_str(), s.resumed_column, n, parts.c_str());
  }
  if (s.checkpoints.empty()) return;
  double stall = 0, write = 0;
  long long bytes = 0;
  for (const CheckpointCost& c : s.checkpoints) {
    stall += c.stall_s;
    write += c.write_s;
    bytes += c.bytes;
  }
  std::fprintf(stderr,
               "hplx: %zu checkpoint%s (the last at column %ld): %.2f s of the run's time in "
               "all, %.2f GB written in %.2f s (%.2f GB/s, the slowest rank's)\n",
               s.checkpoints.size(), s.checkpoints.size() == 1 ? "" : "s",
               s.checkpoints.back().column, stall, bytes / 1e9, write,
               write > 0 ? bytes / write / 1e9 : 0.0);
}

std::uint64_t solution_checksum(const std::vector<double>& x, MPI_Comm comm) {
  std::uint64_t mine = memory_checksum(x.data(), x.size() * sizeof(double));
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  HPLX_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm));
  return memory_checksum(all.data(), all.size() * sizeof(std::uint64_t));
}

}  // namespace hplx::lu
