export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
B=/tmp/b; mkdir -p $B && tar -xJf .gpu/bundle.tar.xz -C $B && cp -rn $B/root/. / 2>/dev/null; ldconfig
export LD_LIBRARY_PATH=$B/build/lib:/usr/local/cuda/lib64
R=/tmp/c3; mkdir -p $R; F='*cuda*:*Cuda*'
for t in device_test_device_contract:1 mxp_gmres:1 mxp_gmres:2; do
  n=${t%%:*}; np=${t##*:}
  timeout 60 mpirun -n $np --oversubscribe --bind-to none $B/build/tests/$n --gtest_filter=$F --gtest_color=no > $R/test-$n-np$np.txt 2>&1 </dev/null
  echo "$n np$np rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]' $R/test-$n-np$np.txt | head -2 | tr '\n' ' ')"
done
timeout 30 $B/build/bin/hplx_stream_probe --backend cuda --n 268435456 --json $R/stream.json > $R/stream.txt 2>&1
triad=$(python3 -c "import json; r=json.load(open('$R/stream.json')); print(round([x for x in r['kernels'] if x['kernel']=='triad'][0]['gbs_best'],1))")
timeout 60 $B/build/bin/hplx mxp --backend cuda --nx 256 --ny 256 --nz 256 --time 10 --expect-bandwidth $triad --json $R/mxp.json > $R/mxp.txt 2>&1
echo "mxp rc=$? triad $triad: $(grep -iE 'VALID|graph' $R/mxp.txt | head -3 | tr '\n' ' ')"
PREBUILT=$B/build OUT=$R/med BUDGET=300 bench/gpu/medians.sh
tar -C /tmp -cf - c3 | xz -T0 > $OUT/c3.tar.xz
