// The Chrome trace written by TraceRecorder under 1, 2 and 4 ranks: one
// valid JSON file with every rank, every event complete, spans well nested
// and in time order per track, recorded from several OpenMP threads at once.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/trace.hpp"

namespace hplx {
namespace {

using nlohmann::json;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// A path every rank agrees on (rank 0 picks it).
std::string shared_path(const char* stem) {
  char buf[256] = {};
  if (world_rank() == 0)
    std::snprintf(buf, sizeof buf, "/tmp/hplx-trace-test-%d-%s.json", static_cast<int>(getpid()),
                  stem);
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  return buf;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);  // throws (fails the test) when not JSON
}

// Records what the LU driver will: per iteration, FACT/LBCAST/RS/UPDATE on
// the main thread with WAIT nested inside RS, and UPDATE spans on workers.
void record_iterations(TraceRecorder& trace, int iterations) {
  const int threads = 3;
  trace.set_track_name(0, "main");
  for (int k = 0; k < iterations; ++k) {
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      if (t == 0) {
        { TraceScope s(trace, "FACT", 0); }
        { TraceScope s(trace, "LBCAST", 0); }
        {
          TraceScope rs(trace, "RS", 0);
          TraceScope wait(trace, "WAIT", 0);
        }
      } else {
        TraceScope s(trace, "UPDATE", t);
        volatile double x = 0;
        for (int i = 0; i < 1000; ++i) x = x + i;
      }
    }
    TraceScope s(trace, "UPDATE", 0);
  }
}

TEST(Trace, EveryRankEveryEventWellNestedAndOrderedPerTrack) {
  TraceRecorder trace(true);
  const int iterations = 20;
  record_iterations(trace, iterations);
  EXPECT_EQ(trace.size(), static_cast<size_t>(iterations * (4 + 1 + 2)));
  const std::string path = shared_path("nested");
  trace.write(path, MPI_COMM_WORLD, json{{"n", 1000}, {"nb", 64}});
  if (world_rank() != 0) return;

  const json doc = read_json(path);
  std::remove(path.c_str());
  ASSERT_TRUE(doc.contains("traceEvents"));
  EXPECT_EQ(doc.at("otherData").at("n"), 1000);

  std::set<int> pids;
  std::map<int, std::string> process_names;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  std::map<std::string, int> names;
  for (const json& e : doc.at("traceEvents")) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e.at("ph") == "M") {
      if (e.at("name") == "process_name")
        process_names[e.at("pid")] = e.at("args").at("name").get<std::string>();
      continue;
    }
    ASSERT_EQ(e.at("ph"), "X") << e.dump();
    for (const char* key : {"name", "ph", "ts", "dur", "pid", "tid"})
      ASSERT_TRUE(e.contains(key)) << key << " missing in " << e.dump();
    ASSERT_TRUE(e.at("ts").is_number() && e.at("dur").is_number());
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    pids.insert(e.at("pid").get<int>());
    ++names[e.at("name").get<std::string>()];
    tracks[{e.at("pid").get<int>(), e.at("tid").get<int>()}].emplace_back(
        e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>());
  }
  EXPECT_EQ(static_cast<int>(pids.size()), world_size());
  for (int r = 0; r < world_size(); ++r) EXPECT_EQ(process_names[r], "rank " + std::to_string(r));
  EXPECT_EQ(names["FACT"], iterations * world_size());
  EXPECT_EQ(names["WAIT"], iterations * world_size());
  EXPECT_EQ(names["UPDATE"], 3 * iterations * world_size());
  EXPECT_EQ(tracks.size(), static_cast<size_t>(3 * world_size()));  // main + 2 workers

  const double eps = 1e-3;  // microseconds of rounding in ts + dur
  for (const auto& [key, spans] : tracks) {
    std::vector<double> open_ends;  // the stack of enclosing spans' ends
    for (size_t i = 0; i < spans.size(); ++i) {
      const auto [t0, t1] = spans[i];
      if (i > 0) {
        EXPECT_GE(t0, spans[i - 1].first) << "track " << key.first << "/" << key.second;
      }
      while (!open_ends.empty() && open_ends.back() <= t0 + eps) open_ends.pop_back();
      if (!open_ends.empty()) {
        EXPECT_LE(t1, open_ends.back() + eps)
            << "partial overlap on track " << key.first << "/" << key.second << " at " << t0;
      }
      open_ends.push_back(t1);
    }
  }
}

TEST(Trace, ADisabledRecorderRecordsAndWritesNothing) {
  TraceRecorder trace(false);
  record_iterations(trace, 3);
  EXPECT_EQ(trace.size(), 0u);
  const std::string path = shared_path("disabled");
  trace.write(path, MPI_COMM_WORLD, json::object());
  std::ifstream in(path);
  EXPECT_FALSE(in.good());
}

TEST(Trace, RanksWithoutSpansStillAppear) {
  TraceRecorder trace(true);
  if (world_rank() == 0) trace.span("FACT", 0, 10.0, 10.5);
  const std::string path = shared_path("sparse");
  trace.write(path, MPI_COMM_WORLD, json::object());
  if (world_rank() != 0) return;
  const json doc = read_json(path);
  std::remove(path.c_str());
  int process_names = 0, spans = 0;
  for (const json& e : doc.at("traceEvents")) {
    process_names += e.at("name") == "process_name";
    if (e.at("ph") == "X") {
      ++spans;
      EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), 0.0);  // times start at the first span
      EXPECT_NEAR(e.at("dur").get<double>(), 5e5, 1e-6);
    }
  }
  EXPECT_EQ(process_names, world_size());
  EXPECT_EQ(spans, 1);
}

TEST(Trace, EnclosingSpansComeFirstAndTracksAreNamed) {
  // Rank-local: make_chrome_trace on a hand-made rank with spans out of order.
  json rank = {{"names", {"RS", "WAIT"}},
               {"tracks", {{"0", "main thread"}}},
               {"spans", {{1, 0, 1.0, 1.5}, {0, 0, 1.0, 2.0}, {0, 2, 0.5, 0.6}}}};
  const json doc = make_chrome_trace({rank}, json::object());
  std::vector<std::string> order;
  std::map<int, std::string> thread_names;
  for (const json& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("tid") == 0) order.push_back(e.at("name"));
    if (e.at("name") == "thread_name") thread_names[e.at("tid")] = e.at("args").at("name");
  }
  EXPECT_EQ(order, (std::vector<std::string>{"RS", "WAIT"}));
  EXPECT_EQ(thread_names[0], "main thread");
  EXPECT_EQ(thread_names[2], "worker 2");
}

}  // namespace
}  // namespace hplx
