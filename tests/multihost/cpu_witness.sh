# The CPUs' own figures beside hplx's, for the unslowed runs of
# tests/multihost/slow_host.sh (sourced, not run). There the two namespace
# hosts run on CPUs 0 and 1 of one VM, and a VM's CPUs are not always
# alike: here, at times, one CPU's DGEMM ran 8-20% slower than the
# other's, or its memory copies 20-50% slower, for seconds to minutes, as
# other guests took their share of the server. hplx is right to name that
# CPU's rank then.
# So each name is checked against a witness: the same two figures measured
# by the project's probes (not hplx), pinned to each CPU, right before and
# right after the run. A name that neither witness bears out (the named
# CPU at least WITNESS_MARGIN below the other in the figure it was named
# for) is a false alarm.
#   witness_measure HPLX FILE   writes "dgemm0 dgemm1 memory0 memory1"
#   witness_judge OUT BEFORE AFTER HOST0 HOST1
#                               prints each named rank of OUT with what the
#                               witnesses saw; its exit status is the
#                               number of names they did not bear out
# shellcheck shell=bash

witness_margin=${WITNESS_MARGIN:-0.05}

witness_measure() {  # witness_measure HPLX FILE
  local bin flags
  bin=$(dirname "$1")
  flags=(--backend host)
  # DGEMM at the preflight's shape on both CPUs at once, as the ranks run;
  # memory in turns, as the preflight's second round measures it.
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 taskset -c 0 "$bin/hplx_dgemm_probe" "${flags[@]}" \
    --m 2000 --nb 128 --reps 6 --json w-dgemm0.json >/dev/null &
  local first=$!
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 taskset -c 1 "$bin/hplx_dgemm_probe" "${flags[@]}" \
    --m 2000 --nb 128 --reps 6 --json w-dgemm1.json >/dev/null
  wait "$first"
  taskset -c 0 "$bin/hplx_stream_probe" "${flags[@]}" --n 4000000 --reps 6 --json w-memory0.json >/dev/null
  taskset -c 1 "$bin/hplx_stream_probe" "${flags[@]}" --n 4000000 --reps 6 --json w-memory1.json >/dev/null
  python3 - "$2" <<'PY'
import json, sys
def dgemm(c): return json.load(open(f"w-dgemm{c}.json"))["shapes"][0]["gflops_median"]
def memory(c):
    k = json.load(open(f"w-memory{c}.json"))["kernels"]
    return next(x["gbs_median"] for x in k if x["kernel"] == "triad")
open(sys.argv[1], "w").write(f"{dgemm(0):.2f} {dgemm(1):.2f} {memory(0):.2f} {memory(1):.2f}\n")
PY
}

witness_judge() {  # witness_judge OUT BEFORE AFTER HOST0 HOST1
  WITNESS_MARGIN=$witness_margin python3 - "$@" <<'PY'
import os, re, sys
out, before, after, hosts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:6]
margin = float(os.environ["WITNESS_MARGIN"])
seen = {w: [float(x) for x in open(f).read().split()] for w, f in (("before", before), ("after", after))}
false_alarms = 0
for line in open(out):
    m = re.match(r"hplx: (preflight: |WR[^:]*: )slow rank \d+ on (\S+?)[ :]", line)
    if not m:
        continue
    cpu = hosts.index(m.group(2))
    # The closing line's update is DGEMM; a link is the machine's own
    # loopback, which no CPU's figure bears out.
    kind = "memory" if "memory bandwidth" in line else "link" if ": link" in line else "dgemm"
    verdicts = []
    for when, (d0, d1, m0, m1) in seen.items():
        figure = {"dgemm": (d0, d1), "memory": (m0, m1)}.get(kind)
        if figure:
            below = 1 - figure[cpu] / figure[1 - cpu]
            verdicts.append((when, below))
    borne = any(b >= margin for _, b in verdicts)
    false_alarms += not borne
    said = ", ".join(f"{100 * b:.0f}% below {w}" for w, b in verdicts) or "no witness of a link"
    print(f"     {'borne out' if borne else 'FALSE ALARM'}: CPU {cpu}'s {kind} against CPU {1 - cpu}'s: {said}")
    print(f"       {line.strip()}")
sys.exit(min(false_alarms, 100))
PY
}
