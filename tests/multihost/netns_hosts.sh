# Two hosts on this machine, for the tests of tests/multihost (sourced by
# two_hosts.sh and slurm_two_hosts.sh, not run): two network namespaces,
# each with a veth link to a bridge in the root namespace on a free
# 10.213.x.0/24 (the hosts at .1 and .2, the bridge at .254). A process
# started in a host also needs a UTS namespace with the host's name as its
# hostname (netns_agent.sh explains why); the namespace and the hostname
# are the same word.
#
# Defines skip, fail, ok and since (the tests' messages), and
#   netns_require TOOLS...  skip unless root and the tools are there
#   netns_make_hosts        sets h1 h2 bridge veth1 veth2 subnet, makes them
#   netns_remove_hosts      kills what runs in the hosts, removes them, their
#                           links and Open MPI's files named after them
#   netns_leftover          prints what of them is still there
# Names carry the sourcing shell's pid, so parallel runs do not collide.
# shellcheck shell=bash

# CI sets HPLX_REQUIRE_MULTIHOST=1: its machine allows all this, and a test
# that quietly skips there would check nothing.
skip() {
  [[ ${HPLX_REQUIRE_MULTIHOST:-0} == 1 ]] && { echo "FAIL (HPLX_REQUIRE_MULTIHOST=1): $*"; exit 1; }
  echo "SKIP: $*"
  exit 77
}
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }

netns_require() {
  [[ $(id -u) -eq 0 ]] || skip "network namespaces need root (this is uid $(id -u))"
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || skip "$tool is missing (scripts/install-deps.sh --test installs it)"
  done
}

# shellcheck disable=SC2034 # h1 ... subnet are the sourcing script's
h1=hplx$$-h1 h2=hplx$$-h2
bridge=hxbr$$ veth1=hx$$a veth2=hx$$b # interface names: at most 15 characters
subnet=""

netns_make_hosts() {
  # A free /24 in 10.213.0.0/16: one no address or route of this machine uses.
  local i x
  for i in $(seq 0 253); do
    x=$(((($$ + i) % 254) + 1))
    if ! ip -4 addr show | grep -q " 10\.213\.$x\." && ! ip -4 route show | grep -q "^10\.213\.$x\."; then
      subnet=10.213.$x
      break
    fi
  done
  [[ -n $subnet ]] || skip "no free /24 in 10.213.0.0/16"

  # Setting up: a refusal of namespaces, veth pairs or bridges is this
  # machine's policy (a container without CAP_SYS_ADMIN or CAP_NET_ADMIN),
  # hence a skip with the command's own words.
  setup() { out=$("$@" 2>&1) || skip "'$*' is not permitted here: $out"; }
  setup ip netns add "$h1"
  setup ip netns add "$h2"
  setup ip netns exec "$h1" unshare --uts true
  setup ip link add "$bridge" type bridge
  setup ip addr add "$subnet.254/24" dev "$bridge"
  setup ip link set "$bridge" up
  local n=0 pair ns veth
  for pair in "$h1:$veth1" "$h2:$veth2"; do
    ns=${pair%%:*} veth=${pair#*:}
    n=$((n + 1))
    setup ip link add "$veth" type veth peer name eth0 netns "$ns"
    setup ip link set "$veth" master "$bridge"
    setup ip link set "$veth" up
    setup ip -n "$ns" addr add "$subnet.$n/24" dev eth0
    setup ip -n "$ns" link set eth0 up
    setup ip -n "$ns" link set lo up
  done
}

netns_remove_hosts() {
  local ns p link
  for ns in "$h1" "$h2"; do
    if ip netns list 2>/dev/null | grep -qw "$ns"; then
      for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
      ip netns del "$ns" 2>/dev/null
    fi
  done
  for link in "$veth1" "$veth2" "$bridge"; do
    ip link show "$link" >/dev/null 2>&1 && ip link del "$link" 2>/dev/null
  done
  # Open MPI's session directories and shared-memory segments are named
  # after the host; a killed rank leaves its segment behind.
  rm -rf /tmp/ompi."$h1".* /tmp/ompi."$h2".* /dev/shm/vader_segment."$h1".* \
    /dev/shm/vader_segment."$h2".*
}

netns_leftover() {
  (ip netns list; ip -o link show) 2>/dev/null | grep -E "hplx$$-|hxbr$$|hx$$[ab]"
}

# Fails (naming them) when processes are still in either host 5 s on.
expect_hosts_empty() {
  for _ in $(seq 1 50); do
    [[ -z $(ip netns pids "$h1")$(ip netns pids "$h2") ]] && break
    sleep 0.1
  done
  left=$(ip netns pids "$h1" && ip netns pids "$h2")
  [[ -z $left ]] || { ps -o pid,args -p "$(echo "$left" | paste -sd,)"; fail "processes left on the hosts"; }
}
