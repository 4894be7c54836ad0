// The probes' own kernel bodies compiled for the GPU (only in builds with a
// GPU backend, CUDA or HIP).
#include "device/gpu/launch_gpu.cuh"
#include "empty_phases.hpp"

namespace hplx::device {

template void launch_phased_on_device(Queue&, const hplx::probe::EmptyPhases&, int);

}  // namespace hplx::device
