#!/bin/bash
# The first GPU call's command (run from the repository root on the GPU machine, .gpu/bundle.tar.xz made by bench/gpu/bundle.sh); R is the folder whose files came back.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false R=${OUT:?}
{ date -u; nvidia-smi; cat /etc/os-release; ldd --version | head -1; nproc; free -g; which mpirun python3; } > $R/env.txt 2>&1
mkdir -p /tmp/b && tar -xJf .gpu/bundle.tar.xz -C /tmp/b && cp -rn /tmp/b/root/. / && ldconfig
C=$(dirname "$(ls /usr/local/cuda/lib64/libcublas.so.13 /usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13 2>/dev/null | head -1)")
[ "$C" = . ] && C=$(dirname "$(find / -xdev -name libcublas.so.13 2>/dev/null | head -1)")
export LD_LIBRARY_PATH=$C
{ echo "cublas in $C"; which mpirun; ldd /tmp/b/build/bin/hplx | grep -E "not found|cublas|mpi|openblas"; /tmp/b/build/bin/hplx --version; } >> $R/env.txt 2>&1
OUT=/tmp/fr PREBUILT=/tmp/b/build KEEP_GOING=1 STEP_TIMEOUT=120 LU_NS="20000 60000 auto" MXP_TIME=10 timeout -k 10 490 bench/gpu/first-run.sh > $R/run.txt 2>&1; echo "rc=$?" >> $R/run.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> $R/env.txt 2>&1
tar czf $R/fr.tgz -C /tmp fr
