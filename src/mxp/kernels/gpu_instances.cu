// The MxP's kernel bodies compiled for the GPU (only in builds with a GPU
// backend, CUDA or HIP): one line per body and element type launched
// anywhere in src/mxp. A body launched but missing here is a link error of
// the GPU build.
#include "device/gpu/launch_gpu.cuh"
#include "mxp/kernels/ell_kernels.hpp"
#include "mxp/kernels/halo_kernels.hpp"
#include "mxp/kernels/ortho_kernels.hpp"
#include "mxp/kernels/vector_kernels.hpp"

namespace hplx::device {

using namespace hplx::mxp::kernels;

template double reduce_on_device(Queue&, long, const DotBody<double, double>&);
template double reduce_on_device(Queue&, long, const DotBody<double, float>&);
template double reduce_on_device(Queue&, long, const DotBody<float, float>&);
template void launch_on_device(Queue&, long, const CgsChunkBody<double>&);
template void launch_on_device(Queue&, long, const CgsChunkBody<float>&);
template void launch_on_device(Queue&, long, const CgsLaneBody<double>&);
template void launch_on_device(Queue&, long, const CgsLaneBody<float>&);
template void launch_on_device(Queue&, long, const ChunkLanesBody&);
template void launch_on_device(Queue&, long, const SumChunkTotalsBody&);
template void launch_on_device(Queue&, long, const ConvertBody<double, double>&);
template void launch_on_device(Queue&, long, const ConvertBody<float, double>&);
template void launch_on_device(Queue&, long, const DiagonalSolveBody<double>&);
template void launch_on_device(Queue&, long, const DiagonalSolveBody<float>&);
template void launch_on_device(Queue&, long, const FillBody<double>&);
template void launch_on_device(Queue&, long, const FillBody<float>&);
template void launch_on_device(Queue&, long, const GsBody<double>&);
template void launch_on_device(Queue&, long, const GsBody<float>&);
template void launch_on_device(Queue&, long, const GsProlongBody<double>&);
template void launch_on_device(Queue&, long, const GsProlongBody<float>&);
template void launch_on_device(Queue&, long, const GsSequentialBody<double>&);
template void launch_on_device(Queue&, long, const GsSequentialBody<float>&);
template void launch_on_device(Queue&, long, const PackBody<double>&);
template void launch_on_device(Queue&, long, const PackBody<float>&);
template void launch_on_device(Queue&, long, const PackProlongedBody<double>&);
template void launch_on_device(Queue&, long, const PackProlongedBody<float>&);
template void launch_on_device(Queue&, long, const ProlongBody<double>&);
template void launch_on_device(Queue&, long, const ProlongBody<float>&);
template void launch_on_device(Queue&, long, const RestrictBody<double>&);
template void launch_on_device(Queue&, long, const RestrictBody<float>&);
template void launch_on_device(Queue&, long, const RestrictGatherBody<double>&);
template void launch_on_device(Queue&, long, const RestrictGatherBody<float>&);
template void launch_on_device(Queue&, long, const ScaleBody<double>&);
template void launch_on_device(Queue&, long, const ScaleBody<float>&);
template void launch_on_device(Queue&, long, const ScaleCopyBody<double, double>&);
template void launch_on_device(Queue&, long, const ScaleCopyBody<float, double>&);
template void launch_on_device(Queue&, long, const SpmvBody<double>&);
template void launch_on_device(Queue&, long, const SumChunksBody&);
template void launch_on_device(Queue&, long, const SpmvBody<float>&);
template void launch_on_device(Queue&, long, const WaxpbyBody<double, double, double>&);
template void launch_on_device(Queue&, long, const WaxpbyBody<double, double, float>&);

}  // namespace hplx::device
