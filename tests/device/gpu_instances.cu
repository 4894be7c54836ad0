// The contract tests' kernel bodies compiled for the GPU (CUDA or HIP builds only).
#include "device/gpu/launch_gpu.cuh"
#include "tests/device/test_bodies.hpp"

namespace hplx::device {

template void launch_on_device(Queue&, long, const test::AxpyBody&);
template void launch_phased_on_device(Queue&, const test::ShiftPhases&, int);
template double reduce_on_device(Queue&, long, const test::SquareBody&);
template double reduce_on_device(Queue&, long, const test::TermBody&);

}  // namespace hplx::device
