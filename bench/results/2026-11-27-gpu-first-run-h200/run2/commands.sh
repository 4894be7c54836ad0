#!/bin/bash
# The second GPU call (run from the repository root on the GPU machine, after the first call had been given back): the fixes' tests, FACT settings at N = 60000, then N by memory.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false R=$OUT
mkdir -p /tmp/b && tar -xJf .gpu/bundle.tar.xz -C /tmp/b && cp -rn /tmp/b/root/. / 2>/dev/null; ldconfig
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
B=/tmp/b/build; H=$B/bin/hplx; L=$R/log.txt
t() { echo "== $(date -u +%T) $*" >> $L; timeout -k 5 ${T:-100} "$@" >> $L 2>&1; echo "rc=$?" >> $L; }
F='*cuda*:*Cuda*:DeviceGemmPanel.*'
t $B/tests/device_test_device_contract --gtest_filter=$F --gtest_color=no
for np in 2 4; do t mpirun -n $np --oversubscribe --bind-to none $B/tests/mpi_test_lu_grids --gtest_filter=$F --gtest_color=no; done
i=0
for v in "--nb 1024" "--nb 1024 --fact-threads 0" "--nb 1024 --fact-threads 0 --fact-device-gemm 256" "--nb 512 --fact-threads 0" "--nb 512 --fact-threads 0 --fact-device-gemm 128"; do
  i=$((i+1)); t $H lu --backend cuda --n 60000 $v --json $R/lu60k-$i.json
done
best=$(python3 - "$R" <<'PY'
import json, sys, glob
opts = {1: "--nb 1024", 2: "--nb 1024 --fact-threads 0", 3: "--nb 1024 --fact-threads 0 --fact-device-gemm 256",
        4: "--nb 512 --fact-threads 0", 5: "--nb 512 --fact-threads 0 --fact-device-gemm 128"}
g = {}
for i in opts:
    try:
        t = json.load(open(f"{sys.argv[1]}/lu60k-{i}.json"))["tests"][0]
        if t["verdict"] == "PASSED": g[i] = t["gflops"]
    except Exception:
        pass
print(opts[max(g, key=g.get)] if g else "--nb 1024")
PY
)
echo "best at 60000: $best" >> $L
T=200 t $H lu --backend cuda $best --json $R/lu-auto.json
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv >> $L 2>&1
