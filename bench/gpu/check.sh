#!/usr/bin/env bash
# The device check: everything a lent GPU measures, in ONE call of at most
# BUDGET seconds of its own (default 540, the most allowed), so that one
# device call with a 570 s timeout leaves room in a 15-minute window. In
# this order, each step with its own timeout and one line in steps.txt,
# its keys in summary.json as soon as it ends:
#
#   environment  nvidia-smi (clocks, power), the CUDA libraries found; the
#                SM clock and power sampled every 200 ms from here on. On an
#                AMD GPU (no nvidia-smi, rocm-smi answers; --backend hip):
#                rocm-smi and the ROCm libraries, the shader clock and power
#                from the amdgpu driver (bench/gpu/amd_sampler.sh); never
#                run on one yet
#   correctness  every part of bench/gpu/parts.txt (what has not yet run on
#                a GPU), on 1 and 2 ranks: ok_<part> each. A part that
#                fails has the timed steps that need it skipped (NEEDS
#                below), and nothing else
#   probes       DGEMM at the LU's update shape on random operands (the
#                bound of the LU goal) and on constants, the update in the
#                LU's own form (DTRSM + DGEMM in the matrix), the FP16
#                GemmEx at HPL-MxP's NB, STREAM
#   lu           hplx lu at full memory with the GPU defaults, 3 runs where
#                the step's time allows (2 otherwise, said so): the median
#   hpl-mxp      hplx hpl-mxp fp16 at full memory, the same rule; the
#                LU-only rate (as the HPL-MxP rules report it) and the
#                ratio to hplx lu
#   mxp          hplx mxp with V-cycle graphs (without, where that run is
#                not VALID), against the triad
#   explorations then, while the budget lasts, EXPLORE's settings in the
#                order of their expected gain, each against its default
#
# Files: $OUT/summary.json, $OUT/steps.txt and $OUT/files.tar.xz (every
# other file, packed after each step: a device call brings back only a few
# files, not a tree). To keep a run:
#   d=bench/results/<date>-gpu-check-<device>; mkdir -p $d
#   cp OUT/summary.json OUT/steps.txt $d/ && tar -xJf OUT/files.tar.xz -C $d
#
#   BUNDLE=FILE bench/gpu/check.sh   # a lent GPU machine: FILE from bench/gpu/bundle.sh
#   PREBUILT=DIR bench/gpu/check.sh  # DIR: the build/ folder of such an archive, unpacked
#   bench/gpu/check.sh               # a GPU machine with the build in build-gpu/
#   DRY_RUN=1 bench/gpu/check.sh     # anywhere: the same steps on the emulated device,
#                                    # small sizes, the build in build/ (CI)
#   PLAN=1 bench/gpu/check.sh        # prints the steps, their timeouts and what they
#                                    # need; runs nothing
#
# Settings (environment): OUT [bench/results/<UTC date>-gpu-check-<device>],
# COMMIT (the commit built, where the copy has no .git), BUDGET, PARTS (the
# parts file), STEPS (a comma-separated subset of the steps), the sizes
# PROBE_M, LU_N (full memory when empty), HPLMXP_N (likewise), MXP_N,
# MXP_TIME, STREAM_N, FACT_M, FACT_JB. Exit status: 0 when every step and
# exploration that ran passed, 1 otherwise, 2 for bad settings.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
DRY_RUN=${DRY_RUN:-0}
PLAN=${PLAN:-0}
BUDGET=${BUDGET:-540}
PARTS=${PARTS:-$ROOT/bench/gpu/parts.txt}
STEPS=${STEPS:-}  # all
PACK_S=15         # kept at the end for the archive and summary.json

# The steps in order: name, timeout in seconds, the parts they need.
LU_NEEDS=device_layer,pivot_search,fused_leaf,lu
HPLMXP_NEEDS=device_layer,hplmxp_inverse,hplmxp_lu_steps
STEP_TABLE=(
  "environment 10 -"
  "correctness 120 -"
  "probes 70 device_layer"
  "lu 140 $LU_NEEDS"
  "hpl-mxp 85 $HPLMXP_NEEDS"
  "mxp 75 device_layer,mxp"
)
# The explorations, most expected gain first: name, timeout, the parts
# they need beside their benchmark's (LU_NEEDS, HPLMXP_NEEDS), what runs
# (lu OPTIONS, hpl-mxp OPTIONS at full memory, or fact-probe). The
# expectations: hplx sim of the H200 spec (bench/results/
# 2026-11-29-sim-h200-update-sms) puts SMs kept for FACT below 80000 rows
# at 76.2% of the probe against 72.7%, below 60000 rows at 75.5%; FACT is
# the bound from the third iteration (3.9 s of the 30.2 s run of
# 2026-11-28 beyond its updates and swaps), and fused3 has one grid-wide
# barrier per column fewer than the default leaf's four; the fact probe
# says which of FACT's fixed costs the DGEMM beside it inflates (no gain
# of its own); NBMIN 16 was 5% below NBMIN 4 at N = 60000 before the
# per-row update; hpl-mxp's SMs kept for FACT are HPL-MxP's share of the
# same what-if; its NB halved (2048 on a GPU) gives up GemmEx rate (674
# against 753 TFLOP/s on the H200) for panels half as wide.
EXPLORE=(
  "update-sms-128|70|update_sms|lu --update-sms 128 --update-sms-below 80000 --fact-blocks 16"
  "update-sms-124|70|update_sms|lu --update-sms 124 --update-sms-below 60000 --fact-blocks 16"
  "fused3|70|fused3|lu --fact-leaf fused3"
  "fact-probe|60|device_layer,fact_overheads,fused_leaf,fused3|fact-probe"
  "nbmin-16|70|-|lu --nbmin 16"
  "hpl-mxp-update-sms|40|update_sms|hpl-mxp --update-sms 124 --update-sms-below 80000"
  "hpl-mxp-nb-half|40|-|hpl-mxp --nb {half_mnb}"
)

if [[ $DRY_RUN == 1 ]]; then
  BUILD_DIR=${BUILD_DIR:-build} BACKEND=emulated DEVICE_NAME=emulated
  SLOW='*LuGrids.EveryShape*'  # minutes on CI's two cores; make test runs it there
  SMALL_N=600 SMALL_NB=64 SMALL_MN=800 SMALL_MNB=64
  PROBE_M=${PROBE_M:-1500} LU_N=${LU_N:-1200} HPLMXP_N=${HPLMXP_N:-1200}
  MXP_N=${MXP_N:-16} MXP_TIME=${MXP_TIME:-0.2} STREAM_N=${STREAM_N:-1000000}
  FACT_M=${FACT_M:-3000} FACT_JB=${FACT_JB:-128}
  LU_NB=(--nb 128) HPLMXP_NB=(--nb 128) PROBE_NB=128 GEMMEX_NB=128 HALF_MNB=64
else
  BUILD_DIR=${BUILD_DIR:-build-gpu} BACKEND=cuda SLOW=NONE  # hip on an AMD GPU (below)
  SMALL_N=8192 SMALL_NB=512 SMALL_MN=16384 SMALL_MNB=1024
  PROBE_M=${PROBE_M:-60000} LU_N=${LU_N:-} HPLMXP_N=${HPLMXP_N:-}
  MXP_N=${MXP_N:-256} MXP_TIME=${MXP_TIME:-10} STREAM_N=${STREAM_N:-268435456}
  FACT_M=${FACT_M:-124000} FACT_JB=${FACT_JB:-1024}
  # The GPU defaults of hplx lu (NB 1024) and hplx hpl-mxp (NB 4096): the
  # probes run at those NBs.
  LU_NB=() HPLMXP_NB=() PROBE_NB=1024 GEMMEX_NB=4096 HALF_MNB=2048
  DEVICE_NAME=unknown
fi

# explore_needs NEEDS WHAT: an exploration's parts with its benchmark's.
explore_needs() {
  local needs=$1
  case $2 in
  lu\ *) needs+=",$LU_NEEDS" ;;
  hpl-mxp\ *) needs+=",$HPLMXP_NEEDS" ;;
  esac
  echo "${needs/#-,/}"
}

# The plan: every step's timeout, with the archive's, within the budget.
fixed=$PACK_S
for s in "${STEP_TABLE[@]}"; do
  read -r name limit _ <<<"$s"
  fixed=$((fixed + limit))
done
if [[ $PLAN == 1 ]]; then
  echo "budget $BUDGET s; steps $((fixed - PACK_S)) s and $PACK_S s for the archive"
  for s in "${STEP_TABLE[@]}"; do
    read -r name limit needs <<<"$s"
    echo "step $name $limit $needs"
  done
  for e in "${EXPLORE[@]}"; do
    IFS='|' read -r name limit needs what <<<"$e"
    echo "explore $name $limit $(explore_needs "$needs" "$what") $what"
  done
  exit 0
fi
if ((BUDGET > 540 || fixed > BUDGET)); then
  echo "check: BUDGET=$BUDGET: allowed: at most 540 s and at least the steps' $fixed s" >&2
  exit 2
fi
for name in ${STEPS//,/ }; do
  [[ $name == explore || " ${STEP_TABLE[*]} " == *" $name "* ]] || {
    echo "check: STEPS: no step named '$name'; allowed: environment, correctness, probes, lu, hpl-mxp, mxp, explore" >&2
    exit 2
  }
done
[[ -r $PARTS ]] || { echo "check: PARTS=$PARTS: no such file" >&2; exit 2; }
# The GPU's name as a folder name: "NVIDIA H200" -> h200, "AMD Instinct MI250X" -> mi250x.
folder_name() { tr -cs 'A-Za-z0-9' '-' | sed 's/^NVIDIA-//; s/^AMD-//; s/^Instinct-//; s/-$//' | tr 'A-Z' 'a-z'; }
if [[ $DRY_RUN != 1 ]]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    DEVICE_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | folder_name)
  elif command -v rocm-smi >/dev/null && rocm-smi --showproductname >/dev/null 2>&1; then
    BACKEND=hip
    DEVICE_NAME=$(rocm-smi --showproductname --json 2>/dev/null | python3 -c \
      'import json, sys; print(next(iter(json.load(sys.stdin).values())).get("Card series", "amd-gpu"))' 2>/dev/null |
      folder_name)
    DEVICE_NAME=${DEVICE_NAME:-amd-gpu}
  else
    echo "check: no GPU seen by nvidia-smi or rocm-smi; DRY_RUN=1 runs the steps on the emulated device" >&2
    exit 2
  fi
fi

T0=$SECONDS
# shellcheck source=bench/gpu/use_build.sh
source bench/gpu/use_build.sh
use_build check
HPLX=$BUILD_DIR/bin/hplx
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-gpu-check-$DEVICE_NAME}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/hplx-check.XXXXXX)
mkdir -p "$WORK/files"
W=$WORK/files  # every file but the summary and the step lines
rm -f "$OUT/steps.txt" "$OUT/summary.json" "$OUT/files.tar.xz"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
FAILED=0
FAILED_PARTS=","  # ,part,part,: the parts whose correctness failed
sampler=
trap '[[ -n $sampler ]] && kill $sampler 2>/dev/null; rm -rf "$WORK"' EXIT

log() { echo "check: $*" | tee -a "$OUT/steps.txt"; }
left() { echo $((BUDGET - (SECONDS - T0))); }
figures() { python3 bench/gpu/check_figures.py "$W" "$@" | tee -a "$OUT/steps.txt"; }
pack() {
  python3 bench/gpu/check_figures.py "$W" summary "$OUT"
  tar -C "$WORK" -cJf "$OUT/files.tar.xz.part" files && mv "$OUT/files.tar.xz.part" "$OUT/files.tar.xz"
}
# missing NEEDS: the parts of NEEDS (comma-separated) whose correctness failed.
missing() {
  local p out=""
  for p in ${1//,/ }; do
    [[ $FAILED_PARTS == *",$p,"* ]] && out+="${out:+, }ok_$p false"
  done
  echo "$out"
}
# timed LIMIT SPAN CMD...: under LIMIT and what is left of the step, its
# span kept for the clock samples.
timed() {
  local limit=$1 span=$2 rest=$((STEP_END - SECONDS)) begin rc
  shift 2
  ((rest < limit)) && limit=$rest
  ((limit > 0)) || return 124
  begin=$(date '+%Y/%m/%d %H:%M:%S.%3N')  # local time, as nvidia-smi's timestamps
  timeout -k 5 "$limit" "$@"
  rc=$?
  echo "$span,$begin,$(date '+%Y/%m/%d %H:%M:%S.%3N')" >>"$W/spans.csv"
  return $rc
}
# run_step NAME LIMIT NEEDS FUNCTION [ARGS]: runs it when the budget allows
# and the parts it needs passed, under its timeout; one line either way.
run_step() {
  local name=$1 limit=$2 needs=$3 fn=$4 t=$SECONDS rc gone
  shift 4
  gone=$(missing "$needs")
  if [[ -n $gone ]]; then
    log "$name: skipped ($gone)"
    return
  fi
  if (($(left) < limit + PACK_S)); then
    log "$name: skipped ($(left) s of the budget left, the step may take $limit)"
    return
  fi
  STEP_END=$((SECONDS + limit))
  "$fn" "$@"
  rc=$?
  if ((rc == 0)); then
    log "$name: ok in $((SECONDS - t)) s"
  else
    FAILED=1
    log "$name: FAILED (status $rc) after $((SECONDS - t)) s"
  fi
  pack
}

step_environment() {
  {
    date -u +%FT%TZ
    "$HPLX" --version
    if [[ $DRY_RUN == 1 ]]; then
      echo "dry run: the emulated device"
    elif [[ $BACKEND == hip ]]; then
      rocm-smi --showproductname --showclocks --showpower --showtemp --showmeminfo vram
    else
      nvidia-smi -L
      nvidia-smi -q -d CLOCK,POWER,PERFORMANCE
    fi
    echo "GPU libraries found:"
    ldconfig -p 2>/dev/null | grep -E 'lib(cudart|cublas|cublasLt|cusolver|nccl|nvshmem|amdhip64|rocblas|rccl|hsa-runtime64)\.so' ||
      echo "  (none by ldconfig)"
    nproc
  } >"$W/environment.txt" 2>&1
  if [[ $DRY_RUN != 1 && $BACKEND == hip ]]; then
    bench/gpu/amd_sampler.sh >"$W/clocks.csv" 2>&1 &
    sampler=$!
  elif [[ $DRY_RUN != 1 ]]; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits \
      -lms 200 >"$W/clocks.csv" 2>&1 &
    sampler=$!
  fi
  local commit=${COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)}
  printf 'date "%s"\ncommit "%s"\ndevice "%s"\nbudget_s %s\n' "$(date -u +%F)" "$commit" "$DEVICE_NAME" \
    "$BUDGET" >>"$W/summary.kv"
  [[ $("$HPLX" --version) =~ backends:.*$BACKEND ]] || {
    log "$HPLX has no $BACKEND backend"
    return 1
  }
}

# A part's command with check.sh's words in braces replaced.
expand() {
  local c=$1
  c=${c//\{b\}/$BACKEND}
  c=${c//\{slow\}/$SLOW}
  c=${c//\{n\}/$SMALL_N}
  c=${c//\{nb\}/$SMALL_NB}
  c=${c//\{mn\}/$SMALL_MN}
  c=${c//\{mnb\}/$SMALL_MNB}
  c=${c//\{pm\}/$PROBE_M}
  c=${c//\{pnb\}/$PROBE_NB}
  c=${c//\{fm\}/$FACT_M}
  c=${c//\{fjb\}/$FACT_JB}
  c=${c//\{half_mnb\}/$HALF_MNB}
  echo "$c"
}
step_correctness() {
  local part ranks np file prog words i=0 parts="" p bad
  declare -A ok
  while read -r part ranks; do
    [[ -z $part || $part == \#* ]] && continue
    i=$((i + 1))
    # ranks: the rank counts, then the command.
    read -r -a words <<<"$ranks"
    local counts=()
    while [[ ${words[0]} =~ ^[0-9]+$ ]]; do
      counts+=("${words[0]}")
      words=("${words[@]:1}")
    done
    read -r -a words <<<"$(expand "${words[*]}")"
    prog=${words[0]}
    [[ $prog == /* ]] || prog=$BUILD_DIR/$prog
    [[ -n ${ok[$part]+set} ]] || { ok[$part]=1; parts+=" $part"; }
    if [[ ! -x $prog ]]; then
      log "  $part: ${words[0]} not built"
      [[ $DRY_RUN == 1 ]] || ok[$part]=0
      continue
    fi
    local args=("${words[@]:1}")
    [[ $prog == */tests/* ]] && args+=(--gtest_color=no)
    for np in "${counts[@]}"; do
      file=$W/part-$i-$part-np$np.txt
      if timed 60 "correctness" mpirun -n "$np" --oversubscribe --bind-to none "$prog" "${args[@]}" \
        >"$file" 2>&1 </dev/null; then
        # (mpirun reads standard input: without </dev/null it eats this loop's list)
        log "  $part np$np: ${words[0]##*/} ${words[1]:-}: $(grep -m1 -E '^\[  PASSED  \]|PASSED|VALID' "$file" || echo "exit 0")"
      else
        log "  $part np$np: ${words[0]##*/} ${words[1]:-}: FAILED, see files/$(basename "$file")"
        ok[$part]=0
      fi
    done
  done <"$PARTS"
  bad=0
  for p in $parts; do
    if ((ok[$p])); then
      echo "ok_$p true" >>"$W/summary.kv"
    else
      echo "ok_$p false" >>"$W/summary.kv"
      FAILED_PARTS+="$p,"
      bad=1
    fi
  done
  ((bad == 0)) || log "  correctness failed: ${FAILED_PARTS//,/ }; their timed steps are skipped"
  return $bad
}

step_probes() {
  local rc=0
  if [[ -z $(missing probes) ]]; then
    timed 25 dgemm_random "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" \
      --nb "$PROBE_NB" --data random --json "$W/dgemm-random.json" >"$W/dgemm-random.txt" 2>&1 || rc=1
  else
    log "  the random-operand probes: skipped ($(missing probes))"
  fi
  timed 20 dgemm_constant "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" \
    --nb "$PROBE_NB" --data constant --json "$W/dgemm-constant.json" >"$W/dgemm-constant.txt" 2>&1 || rc=1
  if [[ -z $(missing probes) ]]; then
    timed 25 dgemm_lu_form "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --form lu \
      --m "$PROBE_M" --nb "$PROBE_NB" --reps 3 --json "$W/dgemm-lu-form.json" >"$W/dgemm-lu-form.txt" 2>&1 || rc=1
  fi
  timed 20 gemmex "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --precision fp16 \
    --m "$PROBE_M" --nb "$GEMMEX_NB" --reps 3 --json "$W/gemmex-fp16.json" >"$W/gemmex-fp16.txt" 2>&1 || rc=1
  timed 15 stream "$BUILD_DIR/bin/hplx_stream_probe" --backend "$BACKEND" --n "$STREAM_N" \
    --json "$W/stream.json" >"$W/stream.txt" 2>&1 || rc=1
  figures probes || rc=1
  return $rc
}

# runs KIND SPAN COMMAND...: up to 3 runs of COMMAND --json W/KIND-<i>.json,
# a run only when the step's time left holds the longest run so far.
runs() {
  local kind=$1 span=$2 i t longest=0 rc=0
  shift 2
  for i in 1 2 3; do
    if ((i > 1 && STEP_END - SECONDS < longest * 11 / 10 + 5)); then
      log "  $kind: $((STEP_END - SECONDS)) s of the step left, a run took $longest: median of $((i - 1))"
      break
    fi
    t=$SECONDS
    timed $((STEP_END - SECONDS)) "$span" "$@" --json "$W/$kind-$i.json" >"$W/$kind-$i.txt" 2>&1 || rc=1
    ((SECONDS - t > longest)) && longest=$((SECONDS - t))
  done
  return $rc
}
step_lu() {
  local size=() rc
  [[ -n $LU_N ]] && size=(--n "$LU_N")
  runs lu lu "$HPLX" lu --backend "$BACKEND" "${size[@]}" "${LU_NB[@]}"
  rc=$?
  "$HPLX" report "$W/lu-1.json" -o "$W/report.html" >/dev/null 2>&1 || true
  figures lu || rc=1
  return $rc
}
step_hpl_mxp() {
  local size=() rc
  [[ -n $HPLMXP_N ]] && size=(--n "$HPLMXP_N")
  runs hpl-mxp hpl_mxp "$HPLX" hpl-mxp --backend "$BACKEND" --precision fp16 "${size[@]}" "${HPLMXP_NB[@]}"
  rc=$?
  figures hpl-mxp || rc=1
  return $rc
}
step_mxp() {
  local triad expect=()
  triad=$(grep -m1 '^triad_gbs ' "$W/summary.kv" | cut -d' ' -f2)
  [[ -n $triad ]] && expect=(--expect-bandwidth "$triad")
  local mxp=("$HPLX" mxp --backend "$BACKEND" --nx "$MXP_N" --ny "$MXP_N" --nz "$MXP_N" --time "$MXP_TIME"
    "${expect[@]}" --json "$W/mxp.json")
  timed 40 mxp "${mxp[@]}" >"$W/mxp.txt" 2>&1
  # The V-cycles replayed as graphs (the default) failed on the first GPU
  # run: if this one is not VALID, the same run with direct launches.
  if ! grep -q "result is VALID" "$W/mxp.txt"; then
    mv "$W/mxp.txt" "$W/mxp-graphs-failed.txt"
    log "  mxp: the run with V-cycle graphs is not VALID (files/mxp-graphs-failed.txt); again with --graphs off"
    echo "mxp_graphs_failed true" >>"$W/summary.kv"
    timed 35 mxp "${mxp[@]}" --graphs off >"$W/mxp.txt" 2>&1
  fi
  if grep -q "result is VALID" "$W/mxp.txt"; then
    echo "mxp_valid true" >>"$W/summary.kv"
  else
    echo "mxp_valid false" >>"$W/summary.kv"
    return 1
  fi
  figures mxp
}

# An exploration: hplx lu or hpl-mxp at full memory with its options, or
# the FACT probe at the largest panel (every leaf, FACT's fixed costs).
explore() {
  local name=$1 what=$2 size=() nb
  read -r -a words <<<"$(expand "$what")"
  case ${words[0]} in
  lu)
    [[ -n $LU_N ]] && size=(--n "$LU_N")
    nb=("${LU_NB[@]}")
    [[ " ${words[*]} " == *" --nb "* ]] && nb=()  # the exploration's own NB
    timed 600 "explore_$name" "$HPLX" lu --backend "$BACKEND" "${size[@]}" "${nb[@]}" "${words[@]:1}" \
      --json "$W/explore-$name.json" >"$W/explore-$name.txt" 2>&1
    figures explore "$name" "$W/explore-$name.json"
    ;;
  hpl-mxp)
    [[ -n $HPLMXP_N ]] && size=(--n "$HPLMXP_N")
    nb=("${HPLMXP_NB[@]}")
    [[ " ${words[*]} " == *" --nb "* ]] && nb=()
    timed 600 "explore_$name" "$HPLX" hpl-mxp --backend "$BACKEND" --precision fp16 "${size[@]}" \
      "${nb[@]}" "${words[@]:1}" --json "$W/explore-$name.json" >"$W/explore-$name.txt" 2>&1
    figures explore "$name" "$W/explore-$name.json"
    ;;
  fact-probe)
    timed 600 fact_probe "$BUILD_DIR/bin/hplx_fact_probe" --backend "$BACKEND" --m "$FACT_M" --jb "$FACT_JB" \
      --leaf fused,fused3 --overheads --json "$W/fact-probe.json" >"$W/fact-probe.txt" 2>&1 || return 1
    figures fact
    ;;
  esac
}

log "$(date -u +%FT%TZ): backend $BACKEND, build $BUILD_DIR, budget $BUDGET s, parts $PARTS, results in $OUT"
for s in "${STEP_TABLE[@]}"; do
  read -r name limit needs <<<"$s"
  [[ -z $STEPS || ,$STEPS, == *,$name,* ]] || continue
  run_step "$name" "$limit" "${needs/#-/}" "step_${name//-/_}"
done
if [[ -z $STEPS || ,$STEPS, == *,explore,* ]]; then
  for e in "${EXPLORE[@]}"; do
    IFS='|' read -r name limit needs what <<<"$e"
    run_step "explore $name" "$limit" "$(explore_needs "$needs" "$what")" explore "$name" "$what"
  done
fi
if [[ -n $sampler ]]; then
  kill "$sampler" 2>/dev/null
  sampler=
  figures clocks
fi
log "done in $((SECONDS - T0)) s of the $BUDGET s budget: $OUT"
pack
cat "$OUT/summary.json"
exit $FAILED
