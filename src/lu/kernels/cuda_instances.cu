// The LU's kernel bodies compiled for CUDA GPUs (only in builds with the
// CUDA backend): one line per body launched anywhere in src/lu. A body
// launched but missing here is a link error of the CUDA build.
#include "device/cuda/launch_cuda.cuh"
#include "lu/kernels/matgen_kernel.hpp"
#include "lu/kernels/norm_kernels.hpp"
#include "lu/kernels/row_kernels.hpp"

namespace hplx::device {

using namespace hplx::lu::kernels;

template void launch_on_device(Queue&, long, const GatherRows&);
template void launch_on_device(Queue&, long, const ScatterRows&);
template void launch_on_device(Queue&, long, const SwapRowsInPlace&);
template void launch_on_device(Queue&, long, const PivotSlots&);
template void launch_on_device(Queue&, long, const ReplaySwaps&);
template void launch_on_device(Queue&, long, const StoreTransposedU&);
template void launch_on_device(Queue&, long, const GenerateColumns&);
template void launch_on_device(Queue&, long, const AbsSums&);

}  // namespace hplx::device
