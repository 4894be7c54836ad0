// The implementations of the device layer, by name: what `--backend`
// accepts, what `hplx --version` lists, and which ones this build has.
#pragma once

#include <string>
#include <vector>

namespace hplx::device {

// host: the CPU, in place (OpenBLAS), the test oracle. emulated: a GPU's
// semantics on the CPU (separate memory, queues on threads). cuda: NVIDIA
// GPUs (CUDA streams, cuBLAS). sim: a simulated cluster (SimGrid SMPI).
enum class BackendKind { Host, Emulated, Cuda, Sim };

const char* name_of(BackendKind kind);

// Every kind, in the order above.
const std::vector<BackendKind>& all_backend_kinds();

// Whether this build has the implementation (one CMake switch each).
bool compiled_in(BackendKind kind);

// The CMake switch that builds it, e.g. "-DHPLX_CUDA=on".
const char* cmake_switch(BackendKind kind);

// `text` as given to --backend ("host", "cuda", ...). Throws UsageError
// naming the value and the allowed names for an unknown one, and "not
// compiled in; rebuild with ..." for a known one this build lacks.
BackendKind parse_backend(const std::string& text);

// The kinds compiled in, e.g. "host" or "host, emulated, cuda".
std::string compiled_backends();

}  // namespace hplx::device
