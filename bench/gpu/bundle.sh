#!/usr/bin/env bash
# Packs a build of hplx for a GPU machine that has the NVIDIA driver and
# CUDA 13 (cudart, cuBLAS) but not this project's build prerequisites, and
# no network to install them: the binaries check.sh runs (the GPU test
# binaries among them), and every shared library they need beside glibc and CUDA's
# (Open MPI with its launcher, plug-ins and PMIx; OpenBLAS; fmt; toml++).
#
#   bench/gpu/bundle.sh OUT.tar.xz        # BUILD_DIR=build by default
#
# The archive holds two folders:
#   build/   the binaries, laid out as in BUILD_DIR (bin/, tests/), and in
#            lib/ the OpenBLAS they were built with (check.sh puts it
#            first on LD_LIBRARY_PATH: a GPU machine's own OpenBLAS may be
#            a pthreads build, whose threads FACT's team oversubscribes);
#   root/    the libraries at their paths on this machine (Debian 12),
#            to be copied under / WITHOUT overwriting what is there:
#              tar -xJf OUT.tar.xz -C DIR && cp -rn DIR/root/. / && ldconfig
#            (a library the GPU machine already has is kept: same soname,
#            same ABI; glibc must be 2.36 or newer there).
# Then `PREBUILT=DIR/build bench/gpu/check.sh` runs the device check with it.
#
# A HIP build (-DHPLX_HIP=on, AMD GPUs) is packed the same way, without the
# ROCm libraries (HIP runtime, rocBLAS and its kernels, HSA): the AMD
# machine's own ROCm must have the sonames the build linked (Debian 13's
# HIP 5.7: libamdhip64.so.5, librocblas.so.0) and a glibc as new as the
# build's; with another ROCm, build there (docs/GPU.md). Never run on an
# AMD GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT_FILE=${1:?usage: bench/gpu/bundle.sh OUT.tar.xz}
BUILD_DIR=${BUILD_DIR:-build}
"$BUILD_DIR/bin/hplx" --version | grep -qE "backends:.*(cuda|hip)" || {
  echo "bundle: $BUILD_DIR/bin/hplx has no GPU backend; configure with -DHPLX_CUDA=on or -DHPLX_HIP=on" >&2
  exit 2
}
# The binaries check.sh runs: the probes, hplx, and the programs of
# parts.txt (a part's line: name, rank counts, the program, its arguments).
BINS=(bin/hplx bin/hplx_dgemm_probe bin/hplx_fact_probe bin/hplx_stream_probe)
while read -r -a words; do
  [[ ${#words[@]} -eq 0 || ${words[0]} == \#* ]] && continue
  for w in "${words[@]:1}"; do
    [[ $w =~ ^[0-9]+$ ]] && continue
    [[ " ${BINS[*]} " == *" $w "* ]] || BINS+=("$w")
    break
  done
done <bench/gpu/parts.txt
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/build/bin" "$STAGE/build/tests" "$STAGE/build/lib" "$STAGE/root"
for b in "${BINS[@]}"; do cp "$BUILD_DIR/$b" "$STAGE/build/$b"; done

# Open MPI's runtime as packaged: mpirun, orted, the MCA plug-ins, PMIx and
# its plug-ins, the help texts and the default parameter files.
files=$(dpkg -L openmpi-bin openmpi-common libopenmpi3 libpmix2 |
  grep -Ev '/(man|doc|doc-base|lintian|java|include)/|\.(jar|h|mod)$')
for f in $files; do
  [[ -f $f || -L $f ]] || continue
  mkdir -p "$STAGE/root$(dirname "$f")"
  cp -a "$f" "$STAGE/root$f"
done

# mpirun and mpiexec are links Debian's alternatives make on installation.
for name in mpirun mpiexec; do ln -s orterun "$STAGE/root/usr/bin/$name"; done

# Every library the binaries and the plug-ins load, except glibc's, CUDA's
# and ROCm's (the GPU machine's own driver and toolkit are used).
system_lib='/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64)\.so|^/usr/local/cuda|libcuda\.so|^/opt/rocm|lib(amdhip64|rocblas|hsa-runtime64|amd_comgr|hsakmt|drm_amdgpu)\.so'
elfs=("${BINS[@]/#/$BUILD_DIR/}")
while IFS= read -r f; do elfs+=("$f"); done < <(find "$STAGE/root" -type f -name '*.so*')
elfs+=(/usr/bin/orted /usr/bin/orterun)
for lib in $(ldd "${elfs[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u); do
  [[ $lib =~ $system_lib ]] && continue
  dest=$STAGE/root/usr/lib/x86_64-linux-gnu/$(basename "$lib")
  [[ -e $dest ]] || cp -L "$lib" "$dest"
done
openblas=$(ldd "$BUILD_DIR/bin/hplx" | awk '$1 == "libopenblas.so.0" {print $3}')
cp -L "$openblas" "$STAGE/build/lib/"
if ldd "${elfs[@]}" 2>/dev/null | grep -q "not found"; then
  echo "bundle: a library is missing on this machine:" >&2
  ldd "${elfs[@]}" 2>/dev/null | grep "not found" | sort -u >&2
  exit 1
fi
tar -C "$STAGE" -cJf "$OUT_FILE" build root
echo "bundle: $OUT_FILE ($(du -h "$OUT_FILE" | cut -f1)): ${#BINS[@]} binaries from $BUILD_DIR," \
  "$(find "$STAGE/root" -type f | wc -l) library and runtime files"
