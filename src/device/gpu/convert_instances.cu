// The device layer's own kernel bodies compiled for the GPU (Queue::convert), by nvcc or HIP.
#include "device/convert_kernel.hpp"
#include "device/gpu/launch_gpu.cuh"

namespace hplx::device {

template void launch_on_device(Queue&, long, const RoundMatrix<Half>&);
template void launch_on_device(Queue&, long, const RoundMatrix<BFloat16>&);

}  // namespace hplx::device
