// The probing half of core/blas_kernels.hpp: this process's OpenBLAS, CPU
// and environment, handed to the pure assessment.
#include <cblas.h>

#include <cstdlib>

#include "core/blas_kernels.hpp"

namespace hplx {

BlasKernels probe_blas_kernels() {
  try {
    const char* config = openblas_get_config();
    const char* core = openblas_get_corename();
    const char* coretype = std::getenv("OPENBLAS_CORETYPE");
    return assess_blas_kernels(config ? config : "", core ? core : "", probe_vector_units(),
                               coretype ? std::optional<std::string>(coretype) : std::nullopt);
  } catch (const std::exception&) {
    // Only allocation can throw: an unknown verdict beats no run.
    return BlasKernels{};
  }
}

}  // namespace hplx
