#!/usr/bin/env bash
# Layers point one way (docs: /DESIGN "Layout"): core <- device <- lu, mxp;
# lu <- hplmxp (HPL-MxP reuses the LU's block-cyclic helpers);
# core <- model; lu, mxp, model <- report <- apps. Fails, naming the file
# and line, when a source under src/LAYER includes a header of a layer it
# may not depend on, or when src/LAYER/CMakeLists.txt links such a library.
#   check_layers.sh SOURCE_DIR
set -u
src=${1:?usage: check_layers.sh SOURCE_DIR}/src
declare -A allowed=(
  [core]="core"
  [device]="core device"
  [lu]="core device lu"
  [mxp]="core device mxp"
  [hplmxp]="core device lu hplmxp"
  [model]="core device model"
  [report]="core device lu mxp model report"
)
bad=0
for layer in "${!allowed[@]}"; do
  [ -d "$src/$layer" ] || continue
  ok=" ${allowed[$layer]} "
  # #include "X/...": X must be an allowed layer (or not a layer at all).
  while IFS= read -r hit; do
    file=${hit%%:*} rest=${hit#*:} line=${rest%%:*} text=${rest#*:}
    dep=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^/"]+)\/.*/\1/' <<<"$text")
    [ -n "${allowed[$dep]+x}" ] || continue
    if [[ $ok != *" $dep "* ]]; then
      echo "src/${file#"$src"/}:$line: src/$layer may not include $dep/ (allowed: ${allowed[$layer]})"
      bad=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^/"]+/' "$src/$layer" \
             --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.cu' --include='*.cuh' \
             --include='*.in')
  # target_link_libraries(... hplx_X ...): X must be allowed too.
  while IFS= read -r hit; do
    file=${hit%%:*} rest=${hit#*:} line=${rest%%:*} text=${rest#*:}
    for dep in $(grep -oE 'hplx_(core|device|lu|mxp|hplmxp|model|report)\b' <<<"$text" | sed 's/^hplx_//'); do
      if [[ $ok != *" $dep "* ]]; then
        echo "src/${file#"$src"/}:$line: src/$layer may not link hplx_$dep (allowed: ${allowed[$layer]})"
        bad=1
      fi
    done
  done < <(grep -rn 'target_link_libraries' "$src/$layer" --include=CMakeLists.txt)
done
# Inside src/lu the rooms point one way too: the LU's types (src/lu/*.hpp)
# and kernels <- phases <- schedules <- run, and the checkpoints' files
# (checkpoint/, over the types only) <- schedules; outside src/lu anything
# may include any room.
declare -A rooms=([kernels]="kernels" [phases]="kernels phases" [checkpoint]="checkpoint"
  [schedules]="kernels phases checkpoint schedules" [run]="kernels phases checkpoint schedules run")
for room in "${!rooms[@]}"; do
  [ -d "$src/lu/$room" ] || continue
  ok=" ${rooms[$room]} "
  while IFS= read -r hit; do
    file=${hit%%:*} rest=${hit#*:} line=${rest%%:*} text=${rest#*:}
    dep=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"lu\/([^/"]+)\/.*/\1/' <<<"$text")
    if [[ $ok != *" $dep "* ]]; then
      echo "src/${file#"$src"/}:$line: src/lu/$room may not include lu/$dep/ (allowed: the LU's types, ${rooms[$room]})"
      bad=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"lu/[^/"]+/' "$src/lu/$room" \
             --include='*.hpp' --include='*.cpp' --include='*.cu')
done
# Inside the phases the sub-rooms point one way: the panel and the solve
# (phases/ itself) and timing/ <- fact/ <- comm/ <- update/ (LBCAST
# pipelines on FACT's sub-panels; the update overlaps the communication).
declare -A subrooms=([top]="top" [timing]="timing" [fact]="top timing fact"
  [comm]="top timing fact comm" [update]="top timing fact comm update")
for sub in "${!subrooms[@]}"; do
  if [ "$sub" = top ]; then
    files=("$src"/lu/phases/*.hpp "$src"/lu/phases/*.cpp)
  else
    [ -d "$src/lu/phases/$sub" ] || continue
    files=("$src/lu/phases/$sub"/*)
  fi
  ok=" ${subrooms[$sub]} "
  while IFS= read -r hit; do
    file=${hit%%:*} rest=${hit#*:} line=${rest%%:*} text=${rest#*:}
    dep=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"lu\/phases\/([^"]+)".*/\1/' <<<"$text")
    [[ $dep == */* ]] && dep=${dep%%/*} || dep=top
    if [[ $ok != *" $dep "* ]]; then
      echo "src/${file#"$src"/}:$line: lu/phases/$sub may not include lu/phases/$dep (allowed: ${subrooms[$sub]}; top = the panel and the solve)"
      bad=1
    fi
  done < <(grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"lu/phases/' "${files[@]}" 2>/dev/null)
done
# And the LU's types include no room but the kernels.
while IFS= read -r hit; do
  file=${hit%%:*} rest=${hit#*:} line=${rest%%:*}
  echo "src/${file#"$src"/}:$line: the LU's types (src/lu/*) may not include a room"
  bad=1
done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"lu/(phases|schedules|run)/' \
           "$src"/lu/*.hpp "$src"/lu/*.cpp 2>/dev/null)
if [ $bad -ne 0 ]; then
  echo "check_layers: layers point one way: core <- device <- lu, mxp; lu <- hplmxp; core <- model; lu, mxp, model <- report <- apps; in lu: types, kernels <- phases <- schedules <- run, checkpoint <- schedules; in phases: panel, solve, timing <- fact <- comm <- update"
  exit 1
fi
echo "check_layers: every include and link of src/ points down the layers and the LU's rooms"
