// The probes' own kernel bodies compiled for CUDA GPUs (only in builds with
// the CUDA backend).
#include "device/gpu/launch_gpu.cuh"
#include "empty_phases.hpp"

namespace hplx::device {

template void launch_phased_on_device(Queue&, const hplx::probe::EmptyPhases&, int);

}  // namespace hplx::device
