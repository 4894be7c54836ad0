#!/usr/bin/env python3
"""Fails when a source under src/ calls a GPU vendor's API outside its
backend's folder.

The device layer (src/device) is the only place that knows a GPU's vendor:
CUDA, cuBLAS and NVML live in src/device/cuda/, HIP, rocBLAS, hipBLAS and
rocm-smi in src/device/hip/, and the launch layer that both compile (one
source for nvcc and hipcc, its runtime names in gpu_runtime.hpp) in
src/device/gpu/. Everything else (the LU, HPL-MxP, HPG-MxP, the
model) goes through the device layer's queues and launches, so one source
serves both vendors. Flagged, each with file:line:

  - an include of a vendor header (cuda*.h, cublas*.h, nvml.h, hip/...,
    rocblas..., hipblas..., rocm_smi/..., cooperative_groups.h);
  - a call of a vendor function (cudaXxx(, cublasXxx(, nvmlXxx(, cuXxx( of
    the driver API, hipXxx(, rocblas_xxx(, hipblasXxx(, rsmi_xxx();
  - a kernel launch <<<...>>>;
  - anywhere under src/, the backends' folders included: a warp-level
    intrinsic or the warp's width (__shfl*, __ballot*, __any_sync,
    __all_sync, __activemask, __syncwarp, warpSize): the kernel bodies and
    the launch layer assume no width, so that they are right on NVIDIA's 32
    lanes and AMD's 64 (a device property's .warpSize may be read, for
    describing the device).

Files named *_instances.cu (each library's list of the kernel bodies a
device backend compiles, e.g. src/lu/kernels/gpu_instances.cu) may
include the launch header, and nothing else of the vendor's.

  check_vendor_apis.py SOURCE_DIR      check SOURCE_DIR/src
  check_vendor_apis.py --self-test     plant each violation in a scratch
                                       tree; fail unless each is caught and
                                       the backends' own code passes
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_default_stream import strip_comments_and_strings  # noqa: E402

EXTENSIONS = (".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc", ".hip")
BACKEND_FOLDERS = ("src/device/cuda/", "src/device/hip/", "src/device/gpu/")

VENDOR_HEADER = re.compile(
    r"^\s*#\s*include\s*[<\"]\s*(cuda\w*\.h|cublas\w*\.h|nvml\.h|cooperative_groups\.h|"
    r"hip/|rocblas|hipblas|rocm_smi/|rocsolver|rccl)"
)
VENDOR_CALL = re.compile(
    r"\b(cuda[A-Z]\w*|cublas[A-Z]\w*|nvml[A-Z]\w*|cu[A-Z][a-z]\w*|hip[A-Z]\w*|"
    r"rocblas_\w+|hipblas[A-Z]\w*|rsmi_\w+)\s*\("
)
KERNEL_LAUNCH = re.compile(r"<<<")
WARP_LEVEL = re.compile(
    r"(__shfl\w*|__ballot\w*|__any_sync|__all_sync|__activemask|__syncwarp|(?<![.\w])warpSize\b)"
)
# What an instances file may include: the backend's launch header.
INSTANCE_INCLUDE = re.compile(r"^\s*#\s*include\s*\"device/(cuda|hip|gpu)/launch_\w+\.(cuh|hpp)\"")


def violations_in(path, rel):
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    found = []
    raw_lines = raw.split("\n")
    code_lines = strip_comments_and_strings(raw).split("\n")
    for number, (line, code) in enumerate(zip(raw_lines, code_lines), start=1):
        if VENDOR_HEADER.search(line) and not INSTANCE_INCLUDE.search(line):
            found.append(f"{rel}:{number}: includes a vendor header: {line.strip()}")
            continue
        call = VENDOR_CALL.search(code)
        if call:
            found.append(f"{rel}:{number}: calls {call.group(1)} outside its backend's folder")
        elif KERNEL_LAUNCH.search(code):
            found.append(f"{rel}:{number}: launches a kernel (<<<) outside its backend's folder")
    return found


def width_assumptions_in(path, rel):
    with open(path, encoding="utf-8", errors="replace") as f:
        code = strip_comments_and_strings(f.read()).split("\n")
    return [
        f"{rel}:{number}: assumes the warp's width ({m.group(1)}): kernels must be right for 32 and 64 lanes"
        for number, line in enumerate(code, start=1)
        for m in [WARP_LEVEL.search(line)]
        if m
    ]


def check(root):
    found = []
    src = os.path.join(root, "src")
    for base, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(EXTENSIONS):
                continue
            path = os.path.join(base, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            found += width_assumptions_in(path, rel)
            if rel.startswith(BACKEND_FOLDERS):
                continue
            found += violations_in(path, rel)
    return found


PLANTED = {
    "src/lu/a.cpp": "#include <cuda_runtime.h>\n",
    "src/lu/b.cpp": "void f() { cudaMemcpyAsync(d, s, n, k, q); }\n",
    "src/lu/c.cu": "void f() { k<<<1, 32, 0, q>>>(x); }\n",
    "src/mxp/d.cpp": "void f() { cublasDgemm(h, a, b); }\n",
    "src/mxp/e.hpp": "#include <hip/hip_runtime.h>\n",
    "src/core/f.cpp": "void f() { hipStreamSynchronize(q); }\n",
    "src/core/g.cpp": "void f() { rocblas_dgemm(h, a, b); }\n",
    "src/model/h.cpp": "void f() { nvmlDeviceGetPowerUsage(d, &p); }\n",
    "src/model/i.cpp": "void f() { rsmi_dev_power_ave_get(0, 0, &p); }\n",
    "src/lu/kernels/gpu_instances.cu": "#include <cublas_v2.h>\n",
    "src/device/j.cpp": "void f() { cuCtxGetCurrent(&c); }\n",
    "src/device/gpu/k.cuh": "__device__ double f(double v) { return __shfl_down_sync(~0u, v, 16); }\n",
    "src/lu/kernels/l.hpp": "HPLX_HD int lane() { return threadIdx.x % warpSize; }\n",
}
CLEAN = {
    "src/device/cuda/ok.cpp": "#include <cuda_runtime.h>\nvoid f() { cudaStreamSynchronize(q); }\n",
    "src/device/hip/ok.cpp": "#include <hip/hip_runtime.h>\nvoid f() { hipStreamSynchronize(q); }\n",
    "src/device/gpu/ok.cuh": "#include <cuda_runtime.h>\nvoid f() { k<<<1, 32, 0, s>>>(x); }\n",
    "src/lu/kernels/hip_instances.cu": '#include "device/hip/launch_hip.hpp"\n',
    "src/device/hip/props.cpp": "int w = props_.warpSize;\n",
    "src/lu/ok.cpp": "// cudaMemcpy(a, b) in a comment\nconst char* s = \"hipMalloc(\";\n"
    "void f() { cuda_capable(); hipster(); launch_on_device(q, n, b); }\n",
}


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for rel, text in {**PLANTED, **CLEAN}.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        found = check(root)
    failed = False
    for rel in PLANTED:
        if not any(line.startswith(rel + ":") for line in found):
            print(f"self-test: the violation planted in {rel} was not caught")
            failed = True
    for rel in CLEAN:
        flagged = [line for line in found if line.startswith(rel + ":")]
        if flagged:
            print(f"self-test: clean code flagged: {flagged}")
            failed = True
    if failed:
        return 1
    print(f"self-test: all {len(PLANTED)} planted violations caught, clean code passes")
    return 0


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[-1])
        return 2
    if argv[1] == "--self-test":
        return self_test()
    found = check(argv[1])
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} vendor API uses outside src/device/cuda, hip and gpu")
        return 1
    print("no vendor API outside its backend's folder")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
