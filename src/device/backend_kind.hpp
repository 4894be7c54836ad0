// The implementations of the device layer, by name: what `--backend`
// accepts, what `hplx --version` lists, and which ones this build has.
#pragma once

#include <string>
#include <vector>

namespace hplx::device {

// host: the CPU, in place (OpenBLAS), the test oracle. emulated: a GPU's
// semantics on the CPU (separate memory, queues on threads). cuda: NVIDIA
// GPUs (CUDA streams, cuBLAS). hip: AMD GPUs (HIP streams, rocBLAS). sim: a
// simulated cluster (SimGrid SMPI).
enum class BackendKind { Host, Emulated, Cuda, Hip, Sim };

const char* name_of(BackendKind kind);

// What a backend is, for the defaults the commands derive from it: a new
// backend states its traits here once, and no command tests its name.
struct BackendTraits {
  // A real GPU: its own memory sizes the default problem (NB 1024, FP16
  // for HPL-MxP), and the CPUs' peak is not the job's Rpeak.
  bool gpu = false;
  // The host's BLAS does the work (host, emulated): its kernels against
  // the CPU's units go beside the figures.
  bool host_blas = false;
  // FACT runs on the host unless told (--fact-on): the host backend's
  // device is the host, and the simulation factors there by default.
  bool fact_on_host = false;
};
BackendTraits traits_of(BackendKind kind);

// Every kind, in the order above.
const std::vector<BackendKind>& all_backend_kinds();

// Whether this build has the implementation (one CMake switch each).
bool compiled_in(BackendKind kind);

// The CMake switch that builds it, e.g. "-DHPLX_CUDA=on".
const char* cmake_switch(BackendKind kind);

// `text` as given to --backend ("host", "cuda", "hip", ...). Throws UsageError
// naming the value and the allowed names for an unknown one, and "not
// compiled in; rebuild with ..." for a known one this build lacks.
BackendKind parse_backend(const std::string& text);

// The kinds compiled in, e.g. "host" or "host, emulated, cuda".
std::string compiled_backends();

}  // namespace hplx::device
