#include "device/sim_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fact_table.hpp"
#include "core/gemm_shape.hpp"
#include "core/input_file.hpp"

namespace hplx::device {

double GemmModel::seconds(long m, long n, long k) const {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  const double rate = gemm_rate_at_shape(peak_flops, half_dim, static_cast<double>(m),
                                         static_cast<double>(n), static_cast<double>(k));
  return overhead_s + static_cast<double>(m) * k * pack_s +
         2.0 * static_cast<double>(m) * n * k / rate;
}

double spread_factor(double cv, std::uint64_t& state) {
  if (cv <= 0) return 1;
  // splitmix64: two uniforms in (0, 1), then Box-Muller.
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (static_cast<double>(z >> 11) + 0.5) * 0x1.0p-53;
  };
  const double u1 = next(), u2 = next();
  const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  const double sigma2 = std::log1p(cv * cv);
  return std::exp(std::sqrt(sigma2) * normal - 0.5 * sigma2);
}

double MeasuredFact::at(const std::vector<double>& t, long r, long w) const {
  return fact_table_at(jb, rows, t, static_cast<double>(r), static_cast<double>(w));
}

void MeasuredFact::check(const std::string& what) const {
  auto fail = [&](const std::string& field, const std::string& why) {
    throw UsageError(fmt::format("{}: '{}' {}", what, field, why));
  };
  auto ascending = [&](const std::vector<double>& v, const char* field) {
    if (v.empty()) fail(field, "is empty; allowed: one or more positive numbers, ascending");
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!(std::isfinite(v[i]) && v[i] > 0) || (i > 0 && v[i] <= v[i - 1]))
        fail(field, fmt::format("has {} at position {}; allowed: positive numbers, ascending", v[i],
                                i + 1));
  };
  if (empty() && rows.empty() && alone_s.empty() && beside_s.empty()) return;
  ascending(jb, "jb");
  ascending(rows, "rows");
  for (auto [t, field] : {std::pair{&alone_s, "alone"}, std::pair{&beside_s, "beside"}}) {
    if (t->size() != jb.size() * rows.size())
      fail(field, fmt::format("has {} times; allowed: one per width and height ({} x {})",
                              t->size(), jb.size(), rows.size()));
    for (double v : *t)
      if (!(std::isfinite(v) && v > 0))
        fail(field, fmt::format("has {}; allowed: positive times", v));
  }
}

namespace {

void need_positive(double v, const char* field) {
  if (!(std::isfinite(v) && v > 0))
    throw UsageError(
        fmt::format("simulation model: '{}' is {}; it must be a positive number", field, v));
}
void need_non_negative(double v, const char* field) {
  if (!(std::isfinite(v) && v >= 0))
    throw UsageError(fmt::format("simulation model: '{}' is {}; it must be 0 or more", field, v));
}

nlohmann::json gemm_json(const GemmModel& g) {
  return {{"peak_flops", g.peak_flops},
          {"half_dim", g.half_dim},
          {"overhead_s", g.overhead_s},
          {"pack_s", g.pack_s},
          {"cv", g.cv}};
}

}  // namespace

void SimModel::check() const {
  need_positive(dgemm.peak_flops, "dgemm.peak_flops");
  need_positive(sgemm.peak_flops, "sgemm.peak_flops");
  need_non_negative(dgemm.half_dim, "dgemm.half_dim");
  need_non_negative(sgemm.half_dim, "sgemm.half_dim");
  need_non_negative(dgemm.overhead_s, "dgemm.overhead_s");
  need_non_negative(sgemm.overhead_s, "sgemm.overhead_s");
  need_non_negative(dgemm.pack_s, "dgemm.pack_s");
  need_non_negative(sgemm.pack_s, "sgemm.pack_s");
  for (auto [cv, field] : {std::pair{dgemm.cv, "dgemm.cv"}, std::pair{sgemm.cv, "sgemm.cv"}}) {
    need_non_negative(cv, field);
    if (cv >= 1)
      throw UsageError(fmt::format("simulation model: '{}' is {}; it must be below 1", field, cv));
  }
  need_positive(trsm_flops, "trsm_flops");
  need_positive(memory_Bps, "memory_Bps");
  need_positive(host_memory_Bps, "host_memory_Bps");
  need_positive(row_element_s, "row_element_s");
  for (int i = 0; i < kRowCopyKinds; ++i)
    need_non_negative(row_copy_s[i],
                      fmt::format("row_copy_s.{}", row_copy_name(static_cast<RowCopy>(i))).c_str());
  need_positive(host_row_element_s, "host_row_element_s");
  if (gpu) need_positive(link_Bps, "link_Bps");
  need_non_negative(link_latency_s, "link_latency_s");
  need_non_negative(kernel_overhead_s, "kernel_overhead_s");
  need_positive(fact_flops, "fact_flops");
  need_non_negative(fact_column_s, "fact_column_s");
  need_non_negative(device_fact_column_s, "device_fact_column_s");
  need_non_negative(device_memory_bytes, "device_memory_bytes");
  need_non_negative(multiprocessors, "multiprocessors");
  device_fact.check("simulation model: device_fact");
}

std::string rank_kind(const SimModel& m) {
  return m.gpu ? "GPU" : m.device_ranks ? "in-order GPU" : "CPU";
}

nlohmann::json to_json(const SimModel& m) {
  nlohmann::json rows = nlohmann::json::object();
  for (int i = 0; i < kRowCopyKinds; ++i)
    rows[row_copy_name(static_cast<RowCopy>(i))] = m.row_copy_s[i];
  return {{"source", m.source},
          {"gpu", m.gpu},
          {"device_ranks", m.device_ranks},
          {"dgemm", gemm_json(m.dgemm)},
          {"sgemm", gemm_json(m.sgemm)},
          {"trsm_flops", m.trsm_flops},
          {"memory_Bps", m.memory_Bps},
          {"host_memory_Bps", m.host_memory_Bps},
          {"row_element_s", m.row_element_s},
          {"row_copy_s", rows},
          {"host_row_element_s", m.host_row_element_s},
          {"link_Bps", m.link_Bps},
          {"link_latency_s", m.link_latency_s},
          {"kernel_overhead_s", m.kernel_overhead_s},
          {"fact_flops", m.fact_flops},
          {"fact_column_s", m.fact_column_s},
          {"device_fact_column_s", m.device_fact_column_s},
          {"device_fact",
           {{"jb", m.device_fact.jb},
            {"rows", m.device_fact.rows},
            {"alone_s", m.device_fact.alone_s},
            {"beside_s", m.device_fact.beside_s}}},
          {"device_memory_bytes", m.device_memory_bytes},
          {"multiprocessors", m.multiprocessors},
          {"seed", m.seed}};
}

SimModel sim_model_from_json(const nlohmann::json& j, const std::string& what) {
  SimModel m;
  try {
    m.source = j.at("source").get<std::string>();
    m.gpu = j.at("gpu").get<bool>();
    m.device_ranks = j.value("device_ranks", m.gpu);
    for (auto [g, key] : {std::pair{&m.dgemm, "dgemm"}, std::pair{&m.sgemm, "sgemm"}}) {
      const nlohmann::json& o = j.at(key);
      g->peak_flops = o.at("peak_flops").get<double>();
      g->half_dim = o.at("half_dim").get<double>();
      g->overhead_s = o.at("overhead_s").get<double>();
      g->pack_s = o.value("pack_s", 0.0);
      g->cv = o.value("cv", 0.0);
    }
    m.trsm_flops = j.at("trsm_flops").get<double>();
    m.memory_Bps = j.at("memory_Bps").get<double>();
    m.host_memory_Bps = j.at("host_memory_Bps").get<double>();
    m.row_element_s = j.at("row_element_s").get<double>();
    if (j.contains("row_copy_s"))
      for (int i = 0; i < kRowCopyKinds; ++i)
        m.row_copy_s[i] = j.at("row_copy_s").value(row_copy_name(static_cast<RowCopy>(i)), 0.0);
    m.host_row_element_s = j.at("host_row_element_s").get<double>();
    m.link_Bps = j.at("link_Bps").get<double>();
    m.link_latency_s = j.at("link_latency_s").get<double>();
    m.kernel_overhead_s = j.at("kernel_overhead_s").get<double>();
    m.fact_flops = j.at("fact_flops").get<double>();
    m.fact_column_s = j.at("fact_column_s").get<double>();
    m.device_fact_column_s = j.value("device_fact_column_s", 0.0);
    if (j.contains("device_fact")) {
      const nlohmann::json& f = j.at("device_fact");
      m.device_fact.jb = f.at("jb").get<std::vector<double>>();
      m.device_fact.rows = f.at("rows").get<std::vector<double>>();
      m.device_fact.alone_s = f.at("alone_s").get<std::vector<double>>();
      m.device_fact.beside_s = f.at("beside_s").get<std::vector<double>>();
    }
    m.device_memory_bytes = j.at("device_memory_bytes").get<double>();
    m.multiprocessors = j.value("multiprocessors", 0);
    m.seed = j.at("seed").get<std::uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not a simulation model: {}", what, e.what()));
  }
  m.check();
  return m;
}

SimModel read_sim_model(const std::string& path) {
  const std::string text = read_input_file(path, "a simulation model (JSON) written by `hplx sim`");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  return sim_model_from_json(j, path);
}

}  // namespace hplx::device
