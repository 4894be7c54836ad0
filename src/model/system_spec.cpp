#include "model/system_spec.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "core/error.hpp"
#include "core/fact_table.hpp"
#include "core/input_file.hpp"
#include "core/install_paths.hpp"
#include "model/sim_platform.hpp"

namespace hplx::model {
namespace {

constexpr long kIntMax = std::numeric_limits<int>::max();
constexpr double kMaxNumber = 1e15;  // any spec number (GFLOPS, GB/s, cores, ...)

// One TOML table with the keys it may hold. Every getter records its key as
// allowed, and finish() rejects the rest, so a misspelt key is an error
// instead of a silently ignored default.
class Section {
 public:
  // `keys`: every key the table may hold, so that a misspelt key is
  // reported before the "missing" error it causes.
  Section(const toml::table* table, std::string prefix, std::string file,
          std::initializer_list<const char*> keys = {})
      : table_(table), prefix_(std::move(prefix)), file_(std::move(file)) {
    for (const char* k : keys) allowed_.insert(k);
  }

  bool exists() const { return table_ != nullptr; }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    finish();
    throw UsageError(fmt::format("{}: key '{}': {}", file_, full(key), what));
  }

  std::optional<double> number(const std::string& key, const std::string& allowed) {
    const toml::node* n = get(key);
    if (!n) return std::nullopt;
    std::optional<double> v;
    // value<int64_t>() of a float converts it, undefined beyond int64_t
    // (1e308): only integers are read as integers.
    if (n->is_integer()) v = static_cast<double>(*n->value<int64_t>());
    if (n->is_floating_point()) v = n->value<double>();
    if (!v || !std::isfinite(*v))
      fail(key, fmt::format("'{}' is not a number; allowed: {}", text(*n), allowed));
    // Beyond it the models' products (C F S 1e9, words / bandwidth) leave
    // the doubles: an Rpeak of inf, a time of 0.
    if (std::fabs(*v) > kMaxNumber)
      fail(key, fmt::format("{} is too large; allowed: {} of at most {:g}", text(*n), allowed,
                            kMaxNumber));
    return v;
  }
  std::optional<double> positive(const std::string& key, const std::string& unit) {
    auto v = number(key, "a number > 0" + unit);
    if (v && *v <= 0) fail(key, fmt::format("{} is not > 0; allowed: a number > 0{}", *v, unit));
    return v;
  }
  std::optional<double> non_negative(const std::string& key, const std::string& unit) {
    auto v = number(key, "a number >= 0" + unit);
    if (v && *v < 0) fail(key, fmt::format("{} is negative; allowed: a number >= 0{}", *v, unit));
    return v;
  }
  // An integer in [min, max]; `max` is INT_MAX for the values kept in an int.
  std::optional<long> integer(const std::string& key, long min,
                              long max = std::numeric_limits<long>::max()) {
    const toml::node* n = get(key);
    if (!n) return std::nullopt;
    if (!n->is_integer() || *n->value<int64_t>() < min || *n->value<int64_t>() > max)
      fail(key, max == std::numeric_limits<long>::max()
                    ? fmt::format("'{}' is not allowed; allowed: an integer >= {}", text(*n), min)
                    : fmt::format("'{}' is not allowed; allowed: an integer {}..{}", text(*n), min,
                                  max));
    return static_cast<long>(*n->value<int64_t>());
  }
  std::optional<std::string> string(const std::string& key) {
    const toml::node* n = get(key);
    if (!n) return std::nullopt;
    if (!n->is_string())
      fail(key, fmt::format("'{}' is not a string; allowed: a quoted string", text(*n)));
    return *n->value<std::string>();
  }
  std::optional<bool> boolean(const std::string& key) {
    const toml::node* n = get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean())
      fail(key, fmt::format("'{}' is not a boolean; allowed: true or false", text(*n)));
    return *n->value<bool>();
  }
  const toml::table* table(const std::string& key) {
    const toml::node* n = get(key);
    if (!n) return nullptr;
    if (!n->is_table()) fail(key, "is not a table; allowed: a [table] of keys");
    return n->as_table();
  }
  const toml::array* array(const std::string& key) {
    const toml::node* n = get(key);
    if (!n) return nullptr;
    if (!n->is_array_of_tables())
      fail(key, "is not an array of tables; allowed: [[" + full(key) + "]] entries");
    return n->as_array();
  }
  // An array of strings; empty when absent.
  std::vector<std::string> strings(const std::string& key) {
    const toml::node* n = get(key);
    std::vector<std::string> out;
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (a)
      for (const auto& e : *a)
        if (e.is_string()) out.push_back(*e.value<std::string>());
    if (!a || out.size() != a->size())
      fail(key, fmt::format("'{}' is not an array of strings; allowed: [\"...\", ...]", text(*n)));
    return out;
  }
  // An array of numbers > 0, ascending; empty when absent.
  std::vector<double> ascending(const std::string& key) {
    const toml::node* n = get(key);
    if (!n) return {};
    std::vector<double> out = positives(*n, key, "[a, b, ...], positive and ascending");
    for (std::size_t i = 1; i < out.size(); ++i)
      if (out[i] <= out[i - 1])
        fail(key, fmt::format("{} follows {}; allowed: positive numbers, ascending", out[i],
                              out[i - 1]));
    return out;
  }
  // `count` arrays of `length` numbers > 0 each, in order; empty when
  // absent.
  std::vector<double> positive_rows(const std::string& key, std::size_t count, std::size_t length) {
    const toml::node* n = get(key);
    if (!n) return {};
    const std::string allowed =
        fmt::format("{} arrays (one per jb) of {} numbers > 0 (one per row count)", count, length);
    const toml::array* a = n->as_array();
    if (!a || a->size() != count) fail(key, fmt::format("'{}': allowed: {}", text(*n), allowed));
    std::vector<double> out;
    for (const toml::node& row : *a) {
      const std::vector<double> r = positives(row, key, allowed);
      if (r.size() != length) fail(key, fmt::format("'{}': allowed: {}", text(row), allowed));
      out.insert(out.end(), r.begin(), r.end());
    }
    return out;
  }
  // Rejects keys nobody asked for.
  void finish() const {
    if (!table_) return;
    for (const auto& [k, v] : *table_) {
      std::string key(k.str());
      if (!allowed_.count(key)) {
        std::string list;
        for (const auto& a : allowed_) list += (list.empty() ? "" : ", ") + a;
        throw UsageError(fmt::format("{}: key '{}': unknown key; allowed in [{}]: {}", file_,
                                     full(key), prefix_.empty() ? "top level" : prefix_, list));
      }
    }
  }
  std::string full(const std::string& key) const {
    return prefix_.empty() ? key : prefix_ + "." + key;
  }
  const std::string& file() const { return file_; }

 private:
  const toml::node* get(const std::string& key) {
    allowed_.insert(key);
    return table_ ? table_->get(key) : nullptr;
  }
  std::vector<double> positives(const toml::node& n, const std::string& key,
                                const std::string& allowed) {
    std::vector<double> out;
    const toml::array* a = n.as_array();
    if (a)
      for (const toml::node& e : *a) {
        const std::optional<double> v = e.value<double>();
        if (!v || !std::isfinite(*v) || *v <= 0 || *v > kMaxNumber) break;
        out.push_back(*v);
      }
    if (!a || a->empty() || out.size() != a->size())
      fail(key, fmt::format("'{}' is not allowed; allowed: {}", text(n), allowed));
    return out;
  }
  static std::string text(const toml::node& n) {
    if (n.is_string()) return *n.value<std::string>();
    std::ostringstream s;
    n.visit([&](auto&& x) { s << x; });
    return s.str();
  }
  const toml::table* table_;
  std::string prefix_, file_;
  std::set<std::string> allowed_;
};

// The keys of calibrate's terms: a kind with a thread count (dgemm_2) or a
// FACT size (fact_4000), or dgemm_pack, dgemm_cv.
constexpr const char* kTermKeys =
    "dgemm_T, update_T, trsm_T, swap_T, gather_T, scatter_T, block_gather_T, block_store_T "
    "(T threads), fact_M (M rows), dgemm_pack, dgemm_cv";
bool calibration_term_key(const std::string& key) {
  if (key == "dgemm_pack" || key == "dgemm_cv") return true;
  const size_t us = key.rfind('_');
  if (us == std::string::npos || us + 1 == key.size()) return false;
  const std::string kind = key.substr(0, us), count = key.substr(us + 1);
  if (count.find_first_not_of("0123456789") != std::string::npos || count.size() > 9 ||
      count[0] == '0')
    return false;
  for (const char* k : {"dgemm", "update", "trsm", "swap", "gather", "scatter", "block_gather",
                        "block_store", "fact"})
    if (kind == k) return true;
  return false;
}

// [device.fact_probe]: hplx_fact_probe's device FACT times.
FactProbe read_fact_probe(Section& dev) {
  FactProbe f;
  const toml::table* t = dev.table("fact_probe");
  if (!t) return f;
  Section s(t, "device.fact_probe", dev.file(), {"jb", "rows", "alone_ms", "beside_ms"});
  f.jb = s.ascending("jb");
  f.rows = s.ascending("rows");
  for (const char* key : {"jb", "rows", "alone_ms", "beside_ms"})
    if (!t->contains(key))
      s.fail(key,
             "missing; allowed: jb and rows (ascending), alone_ms and beside_ms (one "
             "array per jb of one time per row count), as hplx_fact_probe prints them");
  f.alone_ms = s.positive_rows("alone_ms", f.jb.size(), f.rows.size());
  f.beside_ms = s.positive_rows("beside_ms", f.jb.size(), f.rows.size());
  s.finish();
  return f;
}

Link read_link(Section& s, bool with_share) {
  Link l;
  l.present = s.exists();
  if (!s.exists()) return l;
  l.name = s.string("name").value_or("");
  auto a = s.non_negative("alpha_us", " (microseconds)");
  auto bw = s.positive("bandwidth_gbs", " (GB/s, 1e9 bytes per second)");
  if (!a) s.fail("alpha_us", "missing; allowed: a latency >= 0 in microseconds");
  if (!bw) s.fail("bandwidth_gbs", "missing; allowed: a bandwidth > 0 in GB/s");
  l.alpha_s = *a * 1e-6;
  l.bandwidth_Bps = *bw * 1e9;
  if (with_share) l.share = static_cast<int>(s.integer("share", 1, kIntMax).value_or(1));
  return l;
}

}  // namespace

double bw_per_core_Bps(double controllers, double qwords, double mem_clock_ghz, double cores) {
  return controllers * qwords * 8.0 * mem_clock_ghz * 1e9 / cores;
}
double bw_equivalent_Bps(double controllers, double qwords, double mem_clock_ghz, double cores) {
  return bw_per_core_Bps(controllers, qwords, mem_clock_ghz, cores) * controllers * qwords;
}
double rpeak_flops(double cores, double flops_per_cycle, double clock_ghz) {
  return cores * flops_per_cycle * clock_ghz * 1e9;
}

double SystemSpec::rpeak_flops() const {
  return device.rpeak_gflops ? *device.rpeak_gflops * 1e9 : 0.0;
}

double SystemSpec::gamma_s(int threads) const {
  if (threads > 0 && !device.dgemm_gflops_by_threads.empty()) {
    auto it = device.dgemm_gflops_by_threads.find(threads);
    if (it != device.dgemm_gflops_by_threads.end()) return 1.0 / (it->second * 1e9);
    // Not measured at this count: scale the nearest measured count linearly.
    auto best = device.dgemm_gflops_by_threads.begin();
    for (auto i = best; i != device.dgemm_gflops_by_threads.end(); ++i)
      if (std::abs(i->first - threads) < std::abs(best->first - threads)) best = i;
    return 1.0 / (best->second * threads / best->first * 1e9);
  }
  if (device.dgemm_gflops) return 1.0 / (*device.dgemm_gflops * 1e9);
  if (!device.dgemm_gflops_by_threads.empty()) {
    const auto& [t, g] = *device.dgemm_gflops_by_threads.rbegin();
    return 1.0 / (g * 1e9);
  }
  return 1.0 / rpeak_flops();
}

namespace {
// A rate measured by threads: the entry of `threads`, else the nearest
// measured count scaled linearly (0 threads: the largest count).
double rate_by_threads(const std::map<int, double>& by, int threads) {
  if (by.empty()) return 0;
  if (threads <= 0) return by.rbegin()->second;
  if (auto it = by.find(threads); it != by.end()) return it->second;
  auto best = by.begin();
  for (auto i = best; i != by.end(); ++i)
    if (std::abs(i->first - threads) < std::abs(best->first - threads)) best = i;
  return best->second * threads / best->first;
}
// A time per word measured by threads: the entry of `threads`, else the
// nearest measured count's (memory-bound copies do not scale with threads).
double time_by_threads(const std::map<int, double>& by, int threads) {
  if (by.empty()) return 0;
  if (threads <= 0) return by.rbegin()->second;
  auto best = by.begin();
  for (auto i = best; i != by.end(); ++i)
    if (std::abs(i->first - threads) < std::abs(best->first - threads)) best = i;
  return best->second;
}
}  // namespace

double SystemSpec::trsm_s_per_flop(int threads) const {
  const double r = rate_by_threads(device.trsm_gflops_by_threads, threads);
  return r > 0 ? 1.0 / (r * 1e9) : 0.0;
}

double SystemSpec::update_s_per_flop(int threads) const {
  const double r = rate_by_threads(device.update_gflops_by_threads, threads);
  return r > 0 ? 1.0 / (r * 1e9) : 0.0;
}

double SystemSpec::swap_s_per_word(int threads) const {
  return s_per_word(device.swap_ns_per_word_by_threads, threads);
}

double SystemSpec::s_per_word(const std::map<int, double>& by, int threads) {
  return time_by_threads(by, threads) * 1e-9;
}

std::pair<int, int> parse_grid(const std::string& text, const std::string& what) {
  int p = 0, q = 0;
  char x = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &p, &x, &q, &extra) != 3 || (x != 'x' && x != 'X') ||
      p < 1 || q < 1)
    throw UsageError(fmt::format("{} '{}': allowed: PxQ with P, Q >= 1, e.g. 2x4", what, text));
  return {p, q};
}

namespace {

// [system]: the spec's name, source and how its grids and N read.
void read_system(Section& top, SystemSpec& spec, const std::string& name) {
  Section sys(top.table("system"), "system", name, {"name", "source", "grid_reading", "n_reading"});
  if (!sys.exists()) top.fail("system", "missing; allowed: a [system] table with name = \"...\"");
  auto sys_name = sys.string("name");
  if (!sys_name) sys.fail("name", "missing; allowed: a quoted name");
  spec.name = *sys_name;
  spec.source = sys.string("source").value_or("");
  if (auto r = sys.string("grid_reading")) {
    if (*r == "larger-is-P")
      spec.reading = GridReading::LargerIsP;
    else if (*r == "as-given")
      spec.reading = GridReading::AsGiven;
    else
      sys.fail("grid_reading",
               fmt::format("'{}' is not allowed; allowed: \"larger-is-P\", \"as-given\"", *r));
  }
  if (auto r = sys.string("n_reading")) {
    if (*r == "padded-to-NB")
      spec.n_reading = NReading::PaddedToNb;
    else if (*r == "as-given")
      spec.n_reading = NReading::AsGiven;
    else
      sys.fail("n_reading",
               fmt::format("'{}' is not allowed; allowed: \"padded-to-NB\", \"as-given\"", *r));
  }
  sys.finish();
}

// The device's calibrated terms (docs/MODEL.md "CPU terms") and what
// hplx sim alone reads (its kernel model's shape, spread and launches, a
// GPU's measured FACT and update).
void read_device_terms(Section& dev, Device& d, const std::string& name) {
  // { "1" = x, "2" = y }: a positive value per thread count.
  auto by_threads = [&](const char* key, const char* example) {
    std::map<int, double> out;
    const toml::table* by = dev.table(key);
    if (!by) return out;
    for (const auto& [k, v] : *by) {
      const std::string tkey(k.str());
      const std::string full = fmt::format("device.{}.{}", key, tkey);
      char* end = nullptr;
      const long t = std::strtol(tkey.c_str(), &end, 10);
      const std::optional<double> g = v.value<double>();
      if (tkey.empty() || *end || t < 1 || t > kIntMax || !g || !std::isfinite(*g) || *g <= 0)
        throw UsageError(fmt::format(
            "{}: key '{}': not a thread count with a value; allowed: {} (threads = value > 0)",
            name, full, example));
      out[static_cast<int>(t)] = *g;
    }
    return out;
  };
  d.dgemm_gflops_by_threads =
      by_threads("dgemm_gflops_by_threads", "\"1\" = 20.5, \"2\" = 40.1, ... GFLOPS");
  d.fact_gflops = dev.positive("fact_gflops", " (GFLOPS)");
  d.fact_column_us = dev.non_negative("fact_column_us", " (microseconds per column)");
  d.trsm_gflops_by_threads =
      by_threads("trsm_gflops_by_threads", "\"1\" = 15.2, \"2\" = 28.0, ... GFLOPS");
  d.swap_ns_per_word_by_threads =
      by_threads("swap_ns_per_word_by_threads", "\"1\" = 9.5, \"2\" = 8.7, ... ns per word");
  d.update_gflops_by_threads =
      by_threads("update_gflops_by_threads", "\"1\" = 20.5, \"2\" = 42.3, ... GFLOPS");
  const char* ns_example = "\"1\" = 6.5, \"2\" = 3.3, ... ns per word";
  d.gather_ns_per_word_by_threads = by_threads("gather_ns_per_word_by_threads", ns_example);
  d.scatter_ns_per_word_by_threads = by_threads("scatter_ns_per_word_by_threads", ns_example);
  d.block_gather_ns_per_word_by_threads =
      by_threads("block_gather_ns_per_word_by_threads", ns_example);
  d.block_store_ns_per_word_by_threads =
      by_threads("block_store_ns_per_word_by_threads", ns_example);
  d.dgemm_pack_ns_per_word = dev.non_negative("dgemm_pack_ns_per_word", " (ns per word)");
  d.dgemm_cv = dev.non_negative("dgemm_cv", " and < 1 (standard deviation over mean)");
  d.launch_us = dev.positive("launch_us", " (microseconds per kernel launch)");
  d.fact_probe = read_fact_probe(dev);
  d.update_share_of_dgemm =
      dev.positive("update_share_of_dgemm", " and <= 1 (the update's rate over DGEMM's)");
  if (d.update_share_of_dgemm && *d.update_share_of_dgemm > 1)
    dev.fail("update_share_of_dgemm",
             fmt::format("{} is above 1; allowed: a number > 0 and <= 1 (the update's rate over "
                         "DGEMM's)",
                         *d.update_share_of_dgemm));
  if (d.dgemm_cv && *d.dgemm_cv >= 1)
    dev.fail("dgemm_cv", fmt::format("{} is not below 1; allowed: a number >= 0 and < 1 "
                                     "(standard deviation over mean)",
                                     *d.dgemm_cv));
}

// [device]: one rank's device, its peak or DGEMM rate and the calibrated
// terms (docs/MODEL.md "Spec keys").
void read_device(Section& top, SystemSpec& spec, const std::string& name) {
  Device& d = spec.device;
  Section dev(top.table("device"), "device", name,
              {"name",
               "gpu",
               "cores",
               "flops_per_cycle",
               "clock_ghz",
               "rpeak_gflops",
               "dgemm_gflops",
               "dgemm_half_dim",
               "memory_gib",
               "dgemm_gflops_by_threads",
               "fact_gflops",
               "fact_column_us",
               "trsm_gflops_by_threads",
               "swap_ns_per_word_by_threads",
               "update_gflops_by_threads",
               "gather_ns_per_word_by_threads",
               "scatter_ns_per_word_by_threads",
               "block_gather_ns_per_word_by_threads",
               "block_store_ns_per_word_by_threads",
               "dgemm_pack_ns_per_word",
               "dgemm_cv",
               "launch_us",
               "fact_probe",
               "update_share_of_dgemm",
               "multiprocessors",
               "blas_kernels"});
  if (!dev.exists())
    top.fail("device",
             "missing; allowed: a [device] table (rpeak_gflops, or cores, flops_per_cycle and "
             "clock_ghz)");
  d.name = dev.string("name").value_or("");
  d.gpu = dev.boolean("gpu");
  d.cores = dev.positive("cores", "");
  d.flops_per_cycle = dev.positive("flops_per_cycle", "");
  d.clock_ghz = dev.positive("clock_ghz", " (GHz)");
  d.rpeak_gflops = dev.positive("rpeak_gflops", " (GFLOPS)");
  d.dgemm_gflops = dev.positive("dgemm_gflops", " (GFLOPS)");
  d.dgemm_half_dim = dev.non_negative("dgemm_half_dim", " (a matrix dimension)");
  d.memory_gib = dev.positive("memory_gib", " (GiB)");
  d.blas_kernels = dev.string("blas_kernels");
  d.multiprocessors = dev.positive("multiprocessors", " (the GPU's SMs)");
  if (d.multiprocessors && *d.multiprocessors != std::floor(*d.multiprocessors))
    dev.fail("multiprocessors", fmt::format("{} is not a whole number; allowed: the GPU's SMs, "
                                            "a whole number > 0",
                                            *d.multiprocessors));
  read_device_terms(dev, d, name);
  dev.finish();
  const bool cfs = d.cores || d.flops_per_cycle || d.clock_ghz;
  if (cfs && !(d.cores && d.flops_per_cycle && d.clock_ghz)) {
    const char* miss = !d.cores ? "cores" : !d.flops_per_cycle ? "flops_per_cycle" : "clock_ghz";
    dev.fail(miss, "missing; allowed: cores (C), flops_per_cycle (F) and clock_ghz (S) together");
  }
  if (cfs && d.rpeak_gflops)
    dev.fail("rpeak_gflops",
             "given together with cores/flops_per_cycle/clock_ghz; allowed: one of the two");
  if (cfs) d.rpeak_gflops = rpeak_flops(*d.cores, *d.flops_per_cycle, *d.clock_ghz) / 1e9;
  if (!d.rpeak_gflops && !d.dgemm_gflops && d.dgemm_gflops_by_threads.empty())
    dev.fail(
        "rpeak_gflops",
        "missing; allowed: rpeak_gflops, or cores + flops_per_cycle + clock_ghz, or dgemm_gflops");
}

// [memory]: the device memory layer, as hardware or as alpha and bandwidth.
void read_memory(Section& top, SystemSpec& spec, const std::string& name) {
  const Device& d = spec.device;
  Section mem(top.table("memory"), "memory", name,
              {"controllers", "qwords_per_controller", "clock_ghz", "latency_cycles", "alpha_us",
               "bandwidth_gbs"});
  MemoryLayer& m = spec.memory;
  if (mem.exists()) {
    m.present = true;
    m.controllers = mem.positive("controllers", "");
    m.qwords_per_ctrl = mem.positive("qwords_per_controller", " (64-bit words)");
    m.clock_ghz = mem.positive("clock_ghz", " (GHz data rate)");
    m.latency_cycles = mem.non_negative("latency_cycles", " (device clock cycles)");
    auto a = mem.non_negative("alpha_us", " (microseconds)");
    auto bw = mem.positive("bandwidth_gbs", " (GB/s)");
    const bool hw = m.controllers || m.qwords_per_ctrl || m.clock_ghz || m.latency_cycles;
    if (hw && (a || bw))
      mem.fail(a ? "alpha_us" : "bandwidth_gbs",
               "given together with the hardware description; allowed: controllers + "
               "qwords_per_controller + clock_ghz + latency_cycles, or alpha_us + bandwidth_gbs");
    if (hw) {
      for (const char* k :
           {"controllers", "qwords_per_controller", "clock_ghz", "latency_cycles"}) {
        const bool have = std::string(k) == "controllers"             ? bool(m.controllers)
                          : std::string(k) == "qwords_per_controller" ? bool(m.qwords_per_ctrl)
                          : std::string(k) == "clock_ghz"             ? bool(m.clock_ghz)
                                                                      : bool(m.latency_cycles);
        if (!have)
          mem.fail(k,
                   "missing; allowed: all four of controllers, qwords_per_controller, clock_ghz, "
                   "latency_cycles");
      }
      if (!d.cores || !d.clock_ghz)
        mem.fail("controllers",
                 "the equivalent-GPU memory needs device.cores (C) and device.clock_ghz (S); "
                 "allowed: give them, or use alpha_us + bandwidth_gbs");
      m.bw_per_core_Bps =
          bw_per_core_Bps(*m.controllers, *m.qwords_per_ctrl, *m.clock_ghz, *d.cores);
      m.bw_eq_Bps = bw_equivalent_Bps(*m.controllers, *m.qwords_per_ctrl, *m.clock_ghz, *d.cores);
      m.bandwidth_Bps = m.bw_per_core_Bps * *d.cores;
      m.alpha_s = *m.latency_cycles / (*d.clock_ghz * 1e9);
      m.beta_s = 8.0 / m.bw_eq_Bps;
    } else {
      if (!a || !bw)
        mem.fail(a ? "bandwidth_gbs" : "alpha_us",
                 "missing; allowed: controllers + qwords_per_controller + clock_ghz + "
                 "latency_cycles, or alpha_us + bandwidth_gbs");
      m.alpha_s = *a * 1e-6;
      m.bw_eq_Bps = m.bandwidth_Bps = *bw * 1e9;
      m.beta_s = 8.0 / m.bw_eq_Bps;
    }
  }
  mem.finish();
}

// [node]: the devices of a node, their grid and the link between them.
void read_node(Section& top, SystemSpec& spec, const std::string& name) {
  Section node(
      top.table("node"), "node", name,
      {"devices", "memory_gib", "grid", "link", "cores", "numa_domains", "storage_write_gbs"});
  Node& nd = spec.node;
  nd.devices = static_cast<int>(node.integer("devices", 1, kIntMax).value_or(1));
  nd.memory_gib = node.positive("memory_gib", " (GiB)");
  nd.storage_write_gbs = node.positive("storage_write_gbs", " (GB/s)");
  if (auto c = node.integer("cores", 1, kIntMax)) nd.cores = static_cast<int>(*c);
  if (auto d = node.integer("numa_domains", 1, kIntMax)) nd.numa_domains = static_cast<int>(*d);
  if (auto g = node.string("grid")) {
    auto [p, q] = parse_grid(*g, name + ": key 'node.grid'");
    if (p * q != nd.devices)
      node.fail(
          "grid",
          fmt::format("'{}' has {} devices, node.devices is {}; allowed: p x q = node.devices", *g,
                      p * q, nd.devices));
    nd.grid_p = p;
    nd.grid_q = q;
  }
  if (const toml::table* lt = node.table("link")) {
    Section link(lt, "node.link", name, {"name", "alpha_us", "bandwidth_gbs"});
    nd.link = read_link(link, false);
    link.finish();
  }
  if (nd.devices > 1 && !nd.link.present)
    node.fail("link",
              "missing with devices > 1; allowed: [node.link] with alpha_us and bandwidth_gbs");
  node.finish();
}

// [host]: FACT on the host beside each GPU, and the link the panel crosses.
void read_host(Section& top, SystemSpec& spec, const std::string& name) {
  Section host(top.table("host"), "host", name,
               {"name", "fact_gflops", "fact_column_us", "copy_gbs", "link"});
  if (host.exists()) {
    HostFact& h = spec.host;
    h.present = true;
    h.name = host.string("name").value_or("");
    auto rate = host.positive("fact_gflops", " (GFLOPS)");
    if (!rate) host.fail("fact_gflops", "missing; allowed: the host's FACT rate > 0 in GFLOPS");
    h.fact_gflops = *rate;
    h.fact_column_us =
        host.non_negative("fact_column_us", " (microseconds per column)").value_or(0);
    h.copy_gbs = host.positive("copy_gbs", " (GB/s)").value_or(0);
    const toml::table* lt = host.table("link");
    if (!lt)
      host.fail("link",
                "missing; allowed: [host.link] with alpha_us and bandwidth_gbs (the device-host "
                "link the panel crosses)");
    Section link(lt, "host.link", name, {"name", "alpha_us", "bandwidth_gbs"});
    h.link = read_link(link, false);
    link.finish();
  }
  host.finish();
}

// [network]: the link between nodes and how the nodes are joined.
void read_network(Section& top, SystemSpec& spec, const std::string& name) {
  Section net(top.table("network"), "network", name,
              {"name", "alpha_us", "bandwidth_gbs", "share", "topology", "topology_parameters"});
  spec.network = read_link(net, true);
  const auto topo = net.string("topology");
  const auto topo_params = net.string("topology_parameters");
  if (topo && *topo == "fat-tree")
    spec.topology.kind = TopologyKind::FatTree;
  else if (topo && *topo == "dragonfly")
    spec.topology.kind = TopologyKind::Dragonfly;
  else if (topo && *topo != "star")
    net.fail(
        "topology",
        fmt::format("'{}' is not allowed; allowed: \"star\", \"fat-tree\", \"dragonfly\"", *topo));
  if (spec.topology.kind == TopologyKind::Star && topo_params)
    net.fail("topology_parameters",
             "given with a star topology; allowed: only with topology = \"fat-tree\" or "
             "\"dragonfly\"");
  if (spec.topology.kind != TopologyKind::Star) {
    if (!topo_params)
      net.fail("topology_parameters",
               fmt::format("missing with topology = \"{}\"; allowed: {}", *topo,
                           topology_parameters_form(spec.topology.kind)));
    try {
      spec.topology.parameters = normalize_topology_parameters(spec.topology.kind, *topo_params);
    } catch (const std::invalid_argument& e) {
      net.fail("topology_parameters", e.what());
    }
  }
  net.finish();
}

// [schedule]: how the run overlaps FACT with the update.
void read_schedule(Section& top, SystemSpec& spec, const std::string& name) {
  Section sch(top.table("schedule"), "schedule", name,
              {"look_ahead", "fact_overlap", "chunk_columns"});
  spec.schedule.look_ahead = static_cast<int>(sch.integer("look_ahead", 0, kIntMax).value_or(0));
  spec.schedule.chunk_columns = sch.integer("chunk_columns", 1).value_or(0);
  if (auto fo = sch.boolean("fact_overlap")) spec.schedule.fact_overlap = *fo;
  sch.finish();
}

// [run]: the run the spec describes by default.
void read_run(Section& top, SystemSpec& spec, const std::string& name) {
  Section run(top.table("run"), "run", name, {"n", "memory_fraction", "nb", "grid", "nodes"});
  Run& r = spec.run;
  r.n = run.integer("n", 1);
  r.memory_fraction = run.positive("memory_fraction", " and <= 1");
  if (r.memory_fraction && *r.memory_fraction > 1)
    run.fail("memory_fraction",
             fmt::format("{} is above 1; allowed: a fraction in (0, 1]", *r.memory_fraction));
  if (r.n && r.memory_fraction)
    run.fail("memory_fraction", "given together with n; allowed: one of the two");
  r.nb = static_cast<int>(run.integer("nb", 1, kIntMax).value_or(0));
  if (auto g = run.string("grid")) {
    auto [p, q] = parse_grid(*g, name + ": key 'run.grid'");
    r.p = p;
    r.q = q;
  }
  if (auto n = run.integer("nodes", 1, kIntMax)) r.nodes = static_cast<int>(*n);
  run.finish();
}

// [[published]]: measured runs the spec's figures are checked against.
void read_published(Section& top, SystemSpec& spec, const std::string& name) {
  if (const toml::array* pubs = top.array("published")) {
    int i = 0;
    for (const auto& e : *pubs) {
      Section ps(e.as_table(), fmt::format("published[{}]", i++), name,
                 {"label", "source", "nodes", "n", "nb", "grid", "rmax_gflops", "efficiency_pct",
                  "rpeak_gflops", "paper_model_gflops"});
      Published p;
      p.label = ps.string("label").value_or("");
      p.source = ps.string("source").value_or("");
      p.nodes = static_cast<int>(ps.integer("nodes", 1, kIntMax).value_or(1));
      auto n = ps.integer("n", 1);
      auto nb = ps.integer("nb", 1, kIntMax);
      auto grid = ps.string("grid");
      if (!n) ps.fail("n", "missing; allowed: the published matrix order N");
      if (!nb) ps.fail("nb", "missing; allowed: the published block size NB");
      if (!grid) ps.fail("grid", "missing; allowed: the published grid \"PxQ\"");
      p.n = *n;
      p.nb = static_cast<int>(*nb);
      std::tie(p.p, p.q) = parse_grid(*grid, name + ": key '" + ps.full("grid") + "'");
      p.rmax_gflops = ps.positive("rmax_gflops", " (GFLOPS)");
      p.efficiency_pct = ps.positive("efficiency_pct", " (percent of Rpeak)");
      p.rpeak_gflops = ps.positive("rpeak_gflops", " (GFLOPS)");
      p.paper_model_gflops = ps.positive("paper_model_gflops", " (GFLOPS)");
      if (!p.rmax_gflops && !p.efficiency_pct)
        ps.fail("rmax_gflops", "missing; allowed: rmax_gflops or efficiency_pct");
      ps.finish();
      spec.published.push_back(p);
    }
  }
}

// [calibration]: what calibrate wrote about its own measurement.
void read_calibration(Section& top, SystemSpec& spec, const std::string& name) {
  Section cal(top.table("calibration"), "calibration", name,
              {"rounds", "remeasured", "noisy", "warnings", "spread"});
  CalibrationNotes& notes = spec.calibration;
  notes.present = cal.exists();
  notes.rounds = static_cast<int>(cal.integer("rounds", 1, kIntMax).value_or(0));
  notes.remeasured = cal.strings("remeasured");
  notes.noisy = cal.strings("noisy");
  notes.warnings = cal.strings("warnings");
  for (const auto& [field, keys] :
       {std::pair{"remeasured", &notes.remeasured}, std::pair{"noisy", &notes.noisy}})
    for (const auto& k : *keys)
      if (!calibration_term_key(k))
        cal.fail(field, fmt::format("'{}' is not a term; allowed: {}", k, kTermKeys));
  if (const toml::table* st = cal.table("spread")) {
    for (const auto& [k, v] : *st) {
      const std::string key(k.str());
      auto refuse = [&](const std::string& what) {
        throw UsageError(fmt::format("{}: key 'calibration.spread.{}': {}", name, key, what));
      };
      if (!calibration_term_key(key)) refuse(fmt::format("unknown key; allowed: {}", kTermKeys));
      const std::optional<double> pct =
          v.is_integer() || v.is_floating_point() ? v.value<double>() : std::optional<double>();
      if (!pct || !std::isfinite(*pct) || *pct > kMaxNumber)
        refuse("not a number; allowed: a spread >= 0 in percent");
      if (*pct < 0) refuse(fmt::format("{} is negative; allowed: a spread >= 0 in percent", *pct));
      notes.spread_pct[key] = *pct;
    }
  }
  cal.finish();
}

// [provenance]: the figures assumed rather than measured or published,
// each a key the spec gives ("table.key", "device.fact_probe"), so that a
// misspelt or stale entry is an error instead of a figure silently
// presented as measured.
void read_provenance(Section& top, const toml::table& root, SystemSpec& spec,
                     const std::string& name) {
  Section prov(top.table("provenance"), "provenance", name, {"assumed"});
  Provenance& p = spec.provenance;
  p.present = prov.exists();
  p.assumed = prov.strings("assumed");
  std::set<std::string> seen;
  for (const std::string& key : p.assumed) {
    const toml::node* n = root.at_path(key).node();
    const bool figure = n && key.find('.') != std::string::npos && !key.starts_with("system.") &&
                        !key.starts_with("provenance.") && !key.starts_with("calibration.");
    if (!figure)
      prov.fail("assumed", fmt::format("'{}' is not a figure this spec gives; allowed: keys of its "
                                       "tables as table.key (e.g. device.launch_us, host.link."
                                       "alpha_us)",
                                       key));
    if (!seen.insert(key).second)
      prov.fail("assumed", fmt::format("'{}' is listed twice; allowed: each key once", key));
  }
  prov.finish();
}

}  // namespace

double FactProbe::alone_s(double r, double w) const {
  return fact_table_at(jb, rows, alone_ms, r, w) * 1e-3;
}
double FactProbe::beside_s(double r, double w) const {
  return fact_table_at(jb, rows, beside_ms, r, w) * 1e-3;
}

SystemSpec parse_system_spec(const std::string& toml_text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(toml_text, name);
  } catch (const toml::parse_error& e) {
    throw UsageError(
        fmt::format("{}:{}: not valid TOML ({}); allowed: a TOML system spec, see "
                    "examples/systems/",
                    name, e.source().begin.line, e.description()));
  }
  SystemSpec spec;
  spec.file = name;
  Section top(&root, "", name,
              {"system", "device", "memory", "node", "host", "network", "schedule", "run",
               "published", "calibration", "provenance"});

  read_system(top, spec, name);
  read_device(top, spec, name);
  read_memory(top, spec, name);
  read_node(top, spec, name);
  read_host(top, spec, name);
  read_network(top, spec, name);
  read_schedule(top, spec, name);
  read_run(top, spec, name);
  read_published(top, spec, name);
  read_calibration(top, spec, name);
  read_provenance(top, root, spec, name);
  top.finish();
  return spec;
}

std::string resolve_system_spec(const std::string& name) {
  std::error_code ec;
  if (name.empty() || name.find('/') != std::string::npos || std::filesystem::exists(name, ec) ||
      examples_dir().empty())
    return name;
  const std::string dir = examples_dir() + "/systems/";
  for (const std::string& candidate : {dir + name, dir + name + ".toml"})
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  return name;
}

SystemSpec load_system_spec(const std::string& given) {
  const std::string path = resolve_system_spec(given);
  const std::string text = read_input_file(
      path, fmt::format("a system spec (TOML file), e.g. examples/systems/summit.toml, or the "
                        "name of one in {}/systems (e.g. summit)",
                        examples_dir()));
  return parse_system_spec(text, path);
}

std::string toml_library_version() {
  return fmt::format("{}.{}.{}", TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH);
}

}  // namespace hplx::model
