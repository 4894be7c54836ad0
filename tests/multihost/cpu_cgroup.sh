# A CPU cgroup that holds what is moved into it to a fraction of a CPU: a
# node made really slower, as a throttled one is, not by a flag in hplx
# (sourced by tests/e2e/slow_rank_named.sh and tests/multihost/slow_host.sh,
# not run).
#   cpu_cgroup_make NAME PERCENT  sets $cpu_group (the group's folder), or
#                                 skips: exit 77, or a failure with
#                                 HPLX_REQUIRE_CGROUP=1 (CI, whose machine
#                                 allows it)
#   cpu_cgroup_hold PERCENT       holds it to another PERCENT from now on
#   cpu_cgroup_remove             removes it (its processes must be gone)
# Needs root and a cpu controller: cgroup v1's cpu.cfs_quota_us or v2's
# cpu.max. A process joins with: echo $$ >"$cpu_group/cgroup.procs".
# shellcheck shell=bash

cpu_group=""

cpu_cgroup_make() {
  local name=$1 percent=$2
  if [ -w /sys/fs/cgroup/cpu ] && mkdir "/sys/fs/cgroup/cpu/$name" 2>/dev/null; then
    cpu_group=/sys/fs/cgroup/cpu/$name
  elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null &&
    mkdir "/sys/fs/cgroup/$name" 2>/dev/null; then
    cpu_group=/sys/fs/cgroup/$name
  else
    echo "SKIP: no CPU cgroup can be made here (root and a cpu controller needed)"
    [[ ${HPLX_REQUIRE_CGROUP:-0} == 1 ]] && { echo "FAIL: HPLX_REQUIRE_CGROUP=1"; exit 1; }
    exit 77
  fi
  cpu_cgroup_hold "$percent"
}

cpu_cgroup_hold() {  # cpu_cgroup_hold PERCENT
  # PERCENT of every 10 ms (the kernel's default period is 100 ms): a
  # steadily slower CPU, as a throttled one is, rather than one that runs
  # at full speed and then stops for 80 ms, which the end-of-run line takes
  # for a burst in runs of a fraction of a second.
  local period=10000 quota=$(($1 * 100))
  if [ -f "$cpu_group/cpu.max" ]; then
    echo "$quota $period" >"$cpu_group/cpu.max"
  else
    echo "$period" >"$cpu_group/cpu.cfs_period_us" && echo "$quota" >"$cpu_group/cpu.cfs_quota_us"
  fi || { echo "FAIL: cannot hold $cpu_group to $1% of a CPU"; exit 1; }
}

cpu_cgroup_remove() {
  [ -n "$cpu_group" ] || return 0
  # Its processes may take a moment to be reaped.
  for _ in $(seq 1 20); do rmdir "$cpu_group" 2>/dev/null && break; sleep 0.1; done
  cpu_group=""
}
