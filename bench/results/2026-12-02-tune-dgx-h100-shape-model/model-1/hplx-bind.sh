#!/bin/bash
# Binds one rank of hplx lu, then runs it (written by hplx tune for NVIDIA DGX H100, 8 x H100 SXM5 80 GB).
# Local rank i of the 8 on a node: the i-th slice of (all) of the cpus this step
# allows, NUMA domain i * 1 / 8 (numactl, where installed), GPU i.
set -euo pipefail
ranks_per_node=8
cpus_per_rank=0
numa_domains=1
local=${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-}}
if [[ -z $local ]]; then
  echo "hplx-bind.sh: no local rank (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK): start it with srun or mpirun" >&2
  exit 2
fi
export CUDA_VISIBLE_DEVICES=$local
# The cpus this rank may use now, one per word.
allowed=()
IFS=, read -r -a ranges <<<"$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)"
for r in "${ranges[@]}"; do
  if [[ $r == *-* ]]; then
    for ((c = ${r%-*}; c <= ${r#*-}; c++)); do allowed+=("$c"); done
  else
    allowed+=("$r")
  fi
done
bind=()
if ((cpus_per_rank > 0)); then
  first=$((local * cpus_per_rank))
  if ((first + cpus_per_rank <= ${#allowed[@]})); then
    slice=("${allowed[@]:first:cpus_per_rank}")
    list=$(IFS=,; echo "${slice[*]}")
    if ((numa_domains > 1)) && command -v numactl >/dev/null; then
      bind=(numactl --membind=$((local * numa_domains / ranks_per_node)) --physcpubind="$list")
    else
      bind=(taskset -c "$list")
    fi
  else
    echo "hplx-bind.sh: rank $local: only ${#allowed[@]} cpus allowed, $((ranks_per_node * cpus_per_rank)) planned; not binding" >&2
  fi
fi
exec "${bind[@]}" "$@"
