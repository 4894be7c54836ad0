// HPL-MxP's kernel bodies compiled for the GPU (only in builds with a GPU
// backend, CUDA or HIP): one line per body launched anywhere in src/hplmxp.
#include "device/gpu/launch_gpu.cuh"
#include "hplmxp/kernels/matgen_kernels.hpp"
#include "hplmxp/kernels/nopiv_kernels.hpp"
#include "hplmxp/kernels/vector_kernels.hpp"

namespace hplx::device {

using namespace hplx::hplmxp::kernels;

template void launch_phased_on_device(Queue&, const NopivLeaf&, int);
template void launch_on_device(Queue&, long, const Identity&);
template void launch_on_device(Queue&, long, const ZeroBlock&);
template void launch_on_device(Queue&, long, const GenerateFloatRuns&);
template void launch_on_device(Queue&, long, const OffDiagonalSums&);
template void launch_on_device(Queue&, long, const SetDiagonal&);
template void launch_on_device(Queue&, long, const RegeneratedProducts&);
template void launch_on_device(Queue&, long, const ScaledSums&);
template double reduce_on_device(Queue&, long, const DotTerms&);
template void launch_on_device(Queue&, long, const Axpby&);
template void launch_on_device(Queue&, long, const Divided&);
template void launch_on_device(Queue&, long, const Filled&);
template void launch_on_device(Queue&, long, const ChunkMaxima&);
template void launch_on_device(Queue&, long, const ToFloat&);
template void launch_on_device(Queue&, long, const ToDouble&);
template void launch_on_device(Queue&, long, const GatherLocal&);
template void launch_on_device(Queue&, long, const ScatterLocal&);

}  // namespace hplx::device
