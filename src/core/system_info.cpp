#include "core/system_info.hpp"

#include "core/blas_core.hpp"

#include <cblas.h>
#include <mpi.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <optional>

namespace hplx {

namespace {

const std::string kUnknown = "unknown";

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

std::string or_unknown(std::string s) {
  s = trim(s);
  return s.empty() ? kUnknown : s;
}

// A /proc/meminfo entry in bytes (the file reports kB).
std::optional<long long> meminfo_bytes(const std::string& key) {
  const auto value = proc_field("/proc/meminfo", key);
  if (!value) return std::nullopt;
  try {
    const long long kb = std::stoll(*value);
    if (kb <= 0) return std::nullopt;
    return kb * 1024;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<long long> read_number(const char* path) {
  std::ifstream in(path);
  long long v = 0;
  if (in >> v) return v;
  return std::nullopt;  // also "max" (cgroup v2 for no limit)
}

std::optional<long long> stat_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  long long v = 0;
  while (in >> name >> v) {
    if (name == key) return v;
  }
  return std::nullopt;
}

struct CgroupMemory {
  long long limit;        // bytes the cgroup may use
  long long working_set;  // bytes in use that cannot simply be reclaimed
};

// The memory limit of this process's cgroup (v2, else v1), if any. Page
// cache counts as usage in both versions but is reclaimable, so the inactive
// file pages are subtracted, as container runtimes do.
std::optional<CgroupMemory> cgroup_memory() {
  struct Files {
    const char *limit, *usage, *stat, *inactive_key;
  };
  static const Files kFiles[] = {
      {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory.stat",
       "inactive_file"},
      {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes",
       "/sys/fs/cgroup/memory/memory.stat", "total_inactive_file"},
  };
  // v1 reports "no limit" as a huge page-aligned number near LLONG_MAX.
  constexpr long long kNoLimit = 1LL << 60;
  for (const auto& f : kFiles) {
    const auto limit = read_number(f.limit);
    if (!limit || *limit <= 0 || *limit >= kNoLimit) continue;
    const long long usage = read_number(f.usage).value_or(0);
    const long long inactive = stat_field(f.stat, f.inactive_key).value_or(0);
    return CgroupMemory{*limit, std::max(0LL, usage - inactive)};
  }
  return std::nullopt;
}

long long sysconf_bytes(int pages_name) {
  const long pages = sysconf(pages_name);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<long long>(pages) * page_size;
}

long long total_memory_bytes() {
  long long total = meminfo_bytes("MemTotal").value_or(sysconf_bytes(_SC_PHYS_PAGES));
  if (const auto cg = cgroup_memory()) total = total > 0 ? std::min(total, cg->limit) : cg->limit;
  return total;
}

std::string cpu_model() {
  // x86 says "model name"; arm64 "Model" (or nothing but "CPU part");
  // POWER "cpu"; old 32-bit ARM "Processor".
  for (const char* key : {"model name", "Model", "cpu", "Processor", "CPU part"}) {
    if (const auto v = proc_field("/proc/cpuinfo", key); v && !v->empty()) return *v;
  }
  return kUnknown;
}

int cpus_allowed_count() {
  // Grow the set until the kernel's mask fits (machines with > 1024 CPUs).
  for (int ncpu = CPU_SETSIZE; ncpu <= (1 << 20); ncpu *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpu);
    if (set == nullptr) break;
    const size_t size = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(size, set);
    const int rc = sched_getaffinity(0, size, set);
    const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (rc == 0) return std::max(count, 1);
    if (errno != EINVAL) break;
  }
  return 0;
}

std::string compiler_version() {
#if defined(__clang__)
  return __VERSION__;  // already names Clang
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return __VERSION__;
#endif
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return kUnknown;
  std::string s(text, static_cast<size_t>(std::clamp(len, 0, MPI_MAX_LIBRARY_VERSION_STRING)));
  // Open MPI appends the build date and repository revision on later lines.
  s = s.substr(0, s.find('\n'));
  s = s.substr(0, s.find('\0'));
  return or_unknown(s);
}

std::string blas_description() {
  const char* config = openblas_get_config();
  const char* core = openblas_get_corename();
  std::string s = config ? trim(config) : std::string();
  if (core && *core) s += (s.empty() ? "" : ", ") + std::string("core ") + trim(core);
  if (const std::string note = blas_core_note(); !note.empty()) s += " (" + note + ")";
  return or_unknown(s);
}

}  // namespace

// Value of the first "key : value" line of a /proc-style file whose key is
// exactly `key` (cpuinfo pads keys with tabs, meminfo does not).
std::optional<std::string> proc_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (in && std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return std::nullopt;
}

long long available_memory_bytes() {
  long long avail = meminfo_bytes("MemAvailable").value_or(sysconf_bytes(_SC_AVPHYS_PAGES));
  if (const auto cg = cgroup_memory()) {
    const long long room = std::max(0LL, cg->limit - cg->working_set);
    avail = avail > 0 ? std::min(avail, room) : room;
  }
  const long long total = total_memory_bytes();
  if (total > 0) avail = std::min(avail, total);
  return std::max(0LL, avail);
}

SystemInfo probe_system() {
  SystemInfo info;
  try {
    char host[256] = {};
    utsname uts{};
    const bool have_uts = uname(&uts) == 0;
    if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
      info.hostname = host;
    } else if (have_uts) {
      info.hostname = uts.nodename;
    }
    info.hostname = or_unknown(info.hostname);
    info.os = have_uts
                  ? or_unknown(std::string(uts.sysname) + " " + uts.release + " " + uts.machine)
                  : kUnknown;

    info.cpu_model = cpu_model();
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    info.cpus_allowed = cpus_allowed_count();
    info.logical_cpus = static_cast<int>(std::max<long>(online, std::max(info.cpus_allowed, 1)));
    if (info.cpus_allowed <= 0) info.cpus_allowed = info.logical_cpus;

    info.mem_total_bytes = total_memory_bytes();
    info.mem_available_bytes = available_memory_bytes();
    if (info.mem_total_bytes > 0) {
      info.mem_available_bytes = std::min(info.mem_available_bytes, info.mem_total_bytes);
    }

    info.compiler = or_unknown(compiler_version());
    info.mpi_library = mpi_library_version();
    info.blas = blas_description();
    info.blas_kernels = probe_blas_kernels();
  } catch (...) {
    // Only allocation can throw above; a partial record beats no record.
  }
  for (std::string* s :
       {&info.hostname, &info.cpu_model, &info.os, &info.compiler, &info.mpi_library, &info.blas}) {
    if (s->empty()) *s = kUnknown;
  }
  return info;
}

nlohmann::json to_json(const SystemInfo& info) {
  return nlohmann::json{
      {"hostname", info.hostname},
      {"cpu_model", info.cpu_model},
      {"logical_cpus", info.logical_cpus},
      {"cpus_allowed", info.cpus_allowed},
      {"mem_total_bytes", info.mem_total_bytes},
      {"mem_available_bytes", info.mem_available_bytes},
      {"os", info.os},
      {"compiler", info.compiler},
      {"mpi_library", info.mpi_library},
      {"blas", info.blas},
      {"blas_kernels", to_json(info.blas_kernels)},
  };
}

}  // namespace hplx
