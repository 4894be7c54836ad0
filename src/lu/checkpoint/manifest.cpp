#include "lu/checkpoint/manifest.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::lu {

nlohmann::json to_json(const std::vector<FileDigest>& files) {
  nlohmann::json list = nlohmann::json::array();
  for (const FileDigest& d : files)
    list.push_back({{"name", d.name}, {"bytes", d.bytes}, {"xxh3", hex(d.xxh3)}});
  return list;
}

std::vector<FileDigest> files_from_json(const nlohmann::json& j) {
  std::vector<FileDigest> list;
  for (const auto& d : j)
    list.push_back({d.at("name").get<std::string>(), d.at("bytes").get<long long>(),
                    std::stoull(d.at("xxh3").get<std::string>(), nullptr, 16)});
  return list;
}

nlohmann::json to_json(const Manifest& m) {
  nlohmann::json segments = nlohmann::json::array();
  for (const Segment& s : m.segments)
    segments.push_back(
        {{"from_column", s.from_column}, {"to_column", s.to_column}, {"seconds", s.seconds}});
  nlohmann::json files = nlohmann::json::array();
  for (const auto& rank : m.files) files.push_back(to_json(rank));
  return {{"hplx_checkpoint", kCheckpointFormat},
          {"build", m.build},
          {"version", m.version},
          {"ranks", m.ranks},
          {"backend", m.backend},
          {"test_index", m.test_index},
          {"test", m.test},
          {"column", m.column},
          {"info", m.info},
          {"seconds", m.seconds},
          {"checkpoint_seconds", m.checkpoint_seconds},
          {"segments", std::move(segments)},
          {"files", std::move(files)}};
}

Manifest manifest_from_json(const nlohmann::json& j) {
  if (j.at("hplx_checkpoint").get<int>() != kCheckpointFormat)
    throw std::runtime_error(fmt::format("format {} (this hplx reads {})",
                                         j.at("hplx_checkpoint").dump(), kCheckpointFormat));
  Manifest m;
  m.build = j.at("build").get<std::string>();
  m.version = j.at("version").get<std::string>();
  m.ranks = j.at("ranks").get<int>();
  m.backend = j.at("backend").get<std::string>();
  m.test_index = j.at("test_index").get<long>();
  m.test = j.at("test");
  m.column = j.at("column").get<long>();
  m.info = j.at("info").get<long>();
  m.seconds = j.at("seconds").get<double>();
  m.checkpoint_seconds = j.at("checkpoint_seconds").get<double>();
  for (const auto& s : j.at("segments"))
    m.segments.push_back({s.at("from_column").get<long>(), s.at("to_column").get<long>(),
                          s.at("seconds").get<double>()});
  for (const auto& rank : j.at("files")) m.files.push_back(files_from_json(rank));
  if (static_cast<int>(m.files.size()) != m.ranks)
    throw std::runtime_error(
        fmt::format("it lists the files of {} ranks for {} ranks", m.files.size(), m.ranks));
  return m;
}

std::string manifest_name(long test_index, long column) {
  return fmt::format("checkpoint-{:04d}-{:012d}.json", test_index + 1, column);
}
std::string rank_folder(int rank) {
  return fmt::format("rank-{}", rank);
}

void write_manifest(const std::string& dir, const Manifest& m) {
  const std::string path = dir + "/" + manifest_name(m.test_index, m.column);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << to_json(m).dump(1) << '\n';
    out.flush();
    if (!out) throw SystemError(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw SystemError(fmt::format("{}: cannot rename to {}: {}", tmp, path, std::strerror(errno)));
}

std::vector<std::string> manifests_in(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("checkpoint-", 0) == 0 && e.path().extension() == ".json")
      paths.push_back(e.path().string());
  }
  std::sort(paths.rbegin(), paths.rend());
  return paths;
}

}  // namespace hplx::lu
