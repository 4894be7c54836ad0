#include "core/trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "core/atomic_file.hpp"

namespace hplx {

void TraceRecorder::record(const char* name, int track, double t0, double t1) {
  std::lock_guard lock(mutex_);
  spans_.push_back(Span{name_index(name), track, t0, t1});
}

int TraceRecorder::name_index(const char* name) {
  // A handful of distinct names: a linear scan beats hashing the string.
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i);
  names_.emplace_back(name);
  return static_cast<int>(names_.size() - 1);
}

void TraceRecorder::set_track_name(int track, const std::string& name) {
  std::lock_guard lock(mutex_);
  track_names_[track] = name;
}

size_t TraceRecorder::size() const {
  std::lock_guard lock(mutex_);
  return spans_.size();
}

namespace {

// The offset to add to this rank's clock to read rank 0's. Ranks on rank
// 0's node share its clock (steady_clock is the node's monotonic clock), so
// measuring would only add the barrier's skew; other ranks estimate it
// as the difference of clock readings just after a barrier (a few
// microseconds off, far below a span of the LU).
double clock_offset_to_root(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int lowest = rank;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  MPI_Barrier(comm);
  double t = TraceRecorder::now();
  double root_t = t;
  MPI_Bcast(&root_t, 1, MPI_DOUBLE, 0, comm);
  return lowest == 0 ? 0.0 : root_t - t;
}

}  // namespace

void TraceRecorder::write(const std::string& path, MPI_Comm comm,
                          const nlohmann::json& metadata) const {
  if (!enabled_) return;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const double offset = clock_offset_to_root(comm);

  nlohmann::json mine;
  {
    std::lock_guard lock(mutex_);
    mine["names"] = names_;
    nlohmann::json tracks = nlohmann::json::object();
    for (const auto& [track, name] : track_names_) tracks[std::to_string(track)] = name;
    mine["tracks"] = std::move(tracks);
    nlohmann::json spans = nlohmann::json::array();
    for (const Span& s : spans_) spans.push_back({s.name, s.track, s.t0 + offset, s.t1 + offset});
    mine["spans"] = std::move(spans);
  }
  // CBOR keeps the doubles exact and is a third the size of the text.
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(mine);
  int count = static_cast<int>(bytes.size());
  std::vector<int> counts(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<std::uint8_t> all;
  if (rank == 0) {
    long long total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = static_cast<int>(total);
      total += counts[r];
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(bytes.data(), count, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0,
              comm);
  if (rank != 0) return;

  std::vector<nlohmann::json> ranks;
  ranks.reserve(size);
  for (int r = 0; r < size; ++r) {
    ranks.push_back(
        nlohmann::json::from_cbor(all.begin() + displs[r], all.begin() + displs[r] + counts[r]));
  }
  // One event per line, not indented: a long run has 10^5..10^6 spans, and
  // indentation would double the file for nothing a viewer needs.
  const nlohmann::json doc = make_chrome_trace(ranks, metadata);
  std::string text = "{\"traceEvents\": [\n";
  const auto& events = doc.at("traceEvents");
  for (size_t i = 0; i < events.size(); ++i) {
    text += events[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += i + 1 < events.size() ? ",\n" : "\n";
  }
  text += "],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": ";
  text += doc.at("otherData").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += "}\n";
  write_text_atomically(path, text);
}

nlohmann::json make_chrome_trace(const std::vector<nlohmann::json>& ranks,
                                 const nlohmann::json& metadata) {
  double origin = std::numeric_limits<double>::infinity();
  for (const auto& r : ranks)
    for (const auto& s : r.at("spans")) origin = std::min(origin, s.at(2).get<double>());
  if (!std::isfinite(origin)) origin = 0.0;

  nlohmann::json events = nlohmann::json::array();
  for (size_t pid = 0; pid < ranks.size(); ++pid) {
    const auto& r = ranks[pid];
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", 0},
                      {"args", {{"name", fmt::format("rank {}", pid)}}}});
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", 0},
                      {"args", {{"sort_index", pid}}}});

    struct Row {
      int track;
      double t0, t1;
      int name;
    };
    std::vector<Row> rows;
    for (const auto& s : r.at("spans"))
      rows.push_back(Row{s.at(1).get<int>(), s.at(2).get<double>(), s.at(3).get<double>(),
                         s.at(0).get<int>()});
    // Per track by start time, enclosing spans before the spans they hold,
    // so the file reads in order and viewers stack nested spans correctly.
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return std::tie(a.track, a.t0) < std::tie(b.track, b.t0) ||
             (a.track == b.track && a.t0 == b.t0 && a.t1 > b.t1);
    });

    std::map<int, std::string> track_names;
    for (const auto& row : rows) track_names[row.track];
    for (const auto& [key, name] : r.at("tracks").items())
      track_names[std::stoi(key)] = name.get<std::string>();
    for (auto& [track, name] : track_names) {
      if (name.empty()) name = track == 0 ? "main" : fmt::format("worker {}", track);
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"tid", track},
                        {"args", {{"name", name}}}});
      events.push_back({{"name", "thread_sort_index"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"tid", track},
                        {"args", {{"sort_index", track}}}});
    }

    const auto& names = r.at("names");
    for (const auto& row : rows) {
      events.push_back({{"name", names.at(row.name)},
                        {"ph", "X"},
                        {"pid", pid},
                        {"tid", row.track},
                        {"ts", (row.t0 - origin) * 1e6},
                        {"dur", std::max(0.0, row.t1 - row.t0) * 1e6}});
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", metadata.is_null() ? nlohmann::json::object() : metadata}};
}

}  // namespace hplx
