// What machine a run happened on: host, CPU, memory, OS, compiler, MPI and
// BLAS. Recorded in every JSON run record so results can be compared across
// machines, and used to size the default problem from the memory available.
//
// Probing never throws: a source that cannot be read (no /proc, a sandboxed
// uname) yields "unknown" or a sysconf fallback instead, because a missing
// detail must not stop a benchmark run.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "core/blas_kernels.hpp"

namespace hplx {

struct SystemInfo {
  std::string hostname;
  std::string cpu_model;              // /proc/cpuinfo "model name" (or equivalent)
  int logical_cpus = 1;               // online logical CPUs of the machine
  int cpus_allowed = 1;               // CPUs this process may run on (sched_getaffinity)
  long long mem_total_bytes = 0;      // MemTotal, capped by a cgroup memory limit
  long long mem_available_bytes = 0;  // see available_memory_bytes()
  std::string os;                     // uname: sysname release machine
  std::string compiler;               // compiler name and __VERSION__
  std::string mpi_library;            // first line of MPI_Get_library_version
  std::string blas;                   // openblas_get_config() and core name
  BlasKernels blas_kernels;           // its kernels against the CPU's units
};

// Safe to call before MPI_Init (MPI_Get_library_version is allowed then).
SystemInfo probe_system();

nlohmann::json to_json(const SystemInfo& info);

// Bytes that can be allocated without swapping: MemAvailable from
// /proc/meminfo, else sysconf free pages; capped by the cgroup memory limit
// (minus what the cgroup already uses) so a container's limit is respected.
// Always > 0.
long long available_memory_bytes();

// Value of the first "key : value" line of a /proc-style file whose key is
// exactly `key` (cpuinfo pads keys with tabs, meminfo does not), trimmed.
std::optional<std::string> proc_field(const char* path, const std::string& key);

}  // namespace hplx
