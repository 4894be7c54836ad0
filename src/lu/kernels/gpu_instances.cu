// The LU's kernel bodies compiled for the GPU (only in builds with a GPU
// backend: nvcc, or HIP's clang): one line per body launched anywhere in
// src/lu (phased bodies through launch_phased_on_device). A body
// launched but missing here is a link error of the GPU build.
#include "device/gpu/launch_gpu.cuh"
#include "lu/kernels/fact_kernels.hpp"
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
template void launch_on_device(Queue&, long, const ColumnCandidates&);
template void launch_on_device(Queue&, long, const GroupCandidates&);
template void launch_on_device(Queue&, long, const PickPivot&);
template void launch_on_device(Queue&, long, const ApplyExchangedPivot&);
template void launch_on_device(Queue&, long, const ScaleByPivot&);
template void launch_on_device(Queue&, long, const RankOneUpdate&);
template void launch_on_device(Queue&, long, const TransposeBlock&);
template void launch_on_device(Queue&, long, const FillDoubles&);
template void launch_on_device(Queue&, long, const KeepFirstInfo&);
template void launch_phased_on_device(Queue&, const FusedRightLeaf&, int);
template void launch_phased_on_device(Queue&, const MergedRightLeaf&, int);

}  // namespace hplx::device
