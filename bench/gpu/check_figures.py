#!/usr/bin/env python3
"""The figures of bench/gpu/check.sh, from the records its steps leave.

    check_figures.py WORK probes               # the probes' bounds
    check_figures.py WORK lu                   # hplx lu at full memory: the median run
    check_figures.py WORK hpl-mxp              # hplx hpl-mxp at full memory: the median run
    check_figures.py WORK mxp                  # hplx mxp: rating and motifs
    check_figures.py WORK fact                 # device FACT alone and beside the DGEMM
    check_figures.py WORK explore NAME RECORD  # one exploration against its default's median
    check_figures.py WORK clocks               # SM clock and power during the probes and runs
    check_figures.py WORK summary OUT          # WORK/summary.kv -> OUT/summary.json

Each command appends `key value` lines (value in JSON) to WORK/summary.kv,
reading the keys earlier steps wrote there (the bounds), and prints one or
two lines for steps.txt. A figure whose record is missing is left out and
said; the exit status is 1 when a command's main record is missing or no
run of it passed.
"""
import json
import statistics
import sys
from pathlib import Path


def load(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


class Kv:
    """WORK/summary.kv: the keys so far, and appending new ones."""

    def __init__(self, work):
        self.path = Path(work) / "summary.kv"
        self.values = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key:
                    self.values[key] = json.loads(value)

    def get(self, key):
        return self.values.get(key)

    def put(self, **rows):
        with self.path.open("a") as f:
            for key, value in rows.items():
                if value is None:
                    continue
                self.values[key] = value
                f.write(f"{key} {json.dumps(value)}\n")


def best(record, nb=None):
    """A probe record's best median rate, at NB `nb` where it has it."""
    if not record or not record.get("shapes"):
        return None
    shapes = [s for s in record["shapes"] if nb is None or s.get("nb") == nb] or record["shapes"]
    return max(s["gflops_median"] for s in shapes)


def probes(work, kv):
    w = Path(work)
    random, constant = load(w / "dgemm-random.json"), load(w / "dgemm-constant.json")
    form, gemmex, stream = load(w / "dgemm-lu-form.json"), load(w / "gemmex-fp16.json"), load(w / "stream.json")
    rows = {"dgemm_random_gflops": best(random), "dgemm_probe_gflops": best(constant),
            "gemmex_fp16_gflops": best(gemmex)}
    if random:
        rows["dgemm_probe_nb"] = max(random["shapes"], key=lambda s: s["gflops_median"])["nb"]
    if form and form.get("shapes"):
        f = form["shapes"][0]
        rows["dgemm_lu_form_gflops"] = f["gflops_median"]
        rows["dgemm_lu_form_trsm_gemm_gflops"] = f["trsm_gemm_gflops_median"]
    if gemmex:
        rows["gemmex_fp16_by_nb"] = {str(s["nb"]): s["gflops_median"] for s in gemmex["shapes"]}
    if stream:
        rows["triad_gbs"] = round([k for k in stream["kernels"] if k["kernel"] == "triad"][0]["gbs_best"], 1)
    kv.put(**rows)
    said = [f"{name} {value:.0f}" for name, value in rows.items()
            if isinstance(value, float) and value]
    print("  probes: " + ", ".join(said))
    if rows["dgemm_random_gflops"] and rows["dgemm_probe_gflops"]:
        print(f"  DGEMM on random operands / on constants: "
              f"{rows['dgemm_random_gflops'] / rows['dgemm_probe_gflops']:.3f}")
    return 0 if rows["dgemm_random_gflops"] else 1


def runs(work, prefix, passed):
    """The records WORK/PREFIX-<i>.json, and the rates of those that passed."""
    records = []
    for path in sorted(Path(work).glob(f"{prefix}-[0-9]*.json"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
        r = load(path)
        if r and r.get("tests"):
            records.append(r["tests"][0])
    ok = [t for t in records if passed(t)]
    return records, ok


def median_run(ok):
    """The passed run of median rate (the lower of the two middle ones)."""
    ranked = sorted(ok, key=lambda t: t["gflops"])
    return ranked[(len(ranked) - 1) // 2]


def lu(work, kv):
    records, ok = runs(work, "lu", lambda t: t.get("verdict") == "PASSED")
    if not records:
        print("  lu: no record")
        return 1
    rates = [t["gflops"] for t in ok]
    t = median_run(ok) if ok else records[0]
    m = statistics.median(rates) if rates else None
    rows = {"lu_n": t["n"], "lu_nb": t["nb"], "lu_gflops": m, "lu_passed": len(ok) == len(records),
            "lu_runs": len(records), "lu_gflops_runs": [t["gflops"] for t in records],
            "lu_fact_on": t.get("schedule", {}).get("fact_on", "host"),
            "lu_fact_leaf": t.get("schedule", {}).get("fact_leaf"),
            "lu_loop_host_waits": t.get("device_loop", {}).get("host_waits")}
    random, constant = kv.get("dgemm_random_gflops"), kv.get("dgemm_probe_gflops")
    if m and random:
        rows["lu_share_of_dgemm_random"] = m / random
    if m and constant:
        rows["lu_share_of_dgemm"] = m / constant
    # Where the median run's time went (its per-iteration record): the
    # update's own rate on the device, and FACT's overrun by difference
    # (the iteration's time beyond its update and swaps on the device).
    its = t.get("iterations") or []
    update_s = sum(i.get("device_update_s", 0) for i in its)
    if update_s > 0:
        rows["lu_update_gflops"] = sum(i["flops"] for i in its) / update_s / 1e9
        if random:
            rows["lu_update_share_of_dgemm_random"] = rows["lu_update_gflops"] / random
        rows["lu_fact_overrun_s"] = sum(max(0.0, i["iter_s"] - i.get("device_update_s", 0) - i.get("device_swap_s", 0))
                                        for i in its)
        rows["lu_device_fact_s"] = sum(i.get("device_fact_s", 0) for i in its)
    b = t.get("balance_point")
    rows["lu_balance_iteration"] = b["iteration"] if b else -1
    rows["lu_time_s"] = t["time_s"]
    kv.put(**rows)
    share = f", {100 * rows['lu_share_of_dgemm_random']:.1f}% of the random-operand DGEMM probe (goal 80%)" \
        if "lu_share_of_dgemm_random" in rows else ""
    said = "" if len(records) >= 3 else f" (only {len(records)} run{'s' if len(records) > 1 else ''}: the budget)"
    print(f"  lu N = {t['n']}, NB = {t['nb']}: median {m or 0:.1f} Gflop/s of {len(ok)} passed of "
          f"{len(records)}{said}{share}; goal 46000 on one H200")
    if "lu_update_gflops" in rows:
        print(f"  the median run's update {rows['lu_update_gflops']:.0f} Gflop/s on the device, "
              f"FACT's overrun {rows['lu_fact_overrun_s']:.2f} s of {t['time_s']:.2f} s, "
              f"balance point {rows['lu_balance_iteration']}")
    return 0 if ok and len(ok) == len(records) else 1


def hpl_mxp(work, kv):
    records, ok = runs(work, "hpl-mxp", lambda t: bool(t.get("passed")))
    if not records:
        print("  hpl-mxp: no record")
        return 1
    t = median_run(ok) if ok else records[0]
    n, phases = t["n"], t["phases_s"]
    m = statistics.median(x["gflops"] for x in ok) if ok else None
    lu_gflops = t.get("lu_gflops") or 2 / 3 * n**3 / phases["factor"] / 1e9
    rows = {"hpl_mxp_n": n, "hpl_mxp_nb": t["nb"], "hpl_mxp_gflops": m,
            "hpl_mxp_lu_gflops": lu_gflops, "hpl_mxp_passed": len(ok) == len(records),
            "hpl_mxp_runs": len(records), "hpl_mxp_gflops_runs": [x["gflops"] for x in records],
            "hpl_mxp_panel_solve": t.get("panel_solve"),
            "hpl_mxp_gmres_iterations": t["refinement"]["gmres_iterations"],
            "hpl_mxp_refinement_share": (phases["solve"] + phases["refine"]) / t["time_s"]}
    gemmex = (kv.get("gemmex_fp16_by_nb") or {}).get(str(t["nb"])) or kv.get("gemmex_fp16_gflops")
    if gemmex:
        rows["hpl_mxp_factorization_share_of_gemmex"] = lu_gflops / gemmex
    if m and kv.get("lu_gflops"):
        rows["hpl_mxp_over_lu"] = m / kv.get("lu_gflops")
    kv.put(**rows)
    said = "" if len(records) >= 3 else f" (only {len(records)} run{'s' if len(records) > 1 else ''}: the budget)"
    over = rows.get("hpl_mxp_over_lu")
    share = rows.get("hpl_mxp_factorization_share_of_gemmex")
    print(f"  hpl-mxp fp16 N = {n}, NB = {t['nb']}, panel solve {rows['hpl_mxp_panel_solve']}: median "
          f"{m or 0:.1f} Gflop/s of {len(ok)} passed of {len(records)}{said}, LU alone {lu_gflops:.1f}"
          + (f" = {100 * share:.1f}% of the FP16 GemmEx probe (goal 50%)" if share else "")
          + f"; refinement and solves {100 * rows['hpl_mxp_refinement_share']:.1f}% (goal 15%)"
          + (f"; {over:.2f}x hplx lu (goal 4)" if over else ""))
    return 0 if ok and len(ok) == len(records) else 1


def mxp(work, kv):
    record = load(Path(work) / "mxp.json")
    if not record:
        print("  mxp: no record")
        return 1
    r = record["result"]
    triad = kv.get("triad_gbs")
    motifs = r["mixed"]["motifs"]
    shares = {}
    for name in ("spmv", "gs", "restriction", "prolongation", "ortho", "vector"):
        t = motifs["seconds"][name]
        # A motif fused into another (the prolongation into GS) has no time
        # or bytes of its own: it counts in that motif's share.
        if t == 0 and motifs["bytes"][name] == 0:
            continue
        if triad:
            shares[name] = motifs["bytes"][name] / r["ranks"] / t / 1e9 / triad if t > 0 else 0.0
    rows = {"mxp_rating": r["rating_gflops"],
            "mxp_rating_share_of_expected": r["rating_gflops"] / r["expected"]["rating_gflops"],
            "mxp_min_motif_share": min(shares.values()) if shares else None,
            "mxp_motif_shares": shares or None,
            "mxp_mixed_over_double": r["rating_gflops"] / r["double"]["gflops"],
            "mxp_vcycle_graphs": bool(r["mixed"].get("vcycle_graphs"))}
    kv.put(**rows)
    print(f"  mxp rating {rows['mxp_rating']:.1f} = {100 * rows['mxp_rating_share_of_expected']:.1f}% of the "
          f"triad's prediction (goal 90%), mixed/double {rows['mxp_mixed_over_double']:.3f} (goal 1.6), "
          f"V-cycle graphs {rows['mxp_vcycle_graphs']}; motifs' share of the triad: "
          + ", ".join(f"{k} {100 * v:.0f}%" for k, v in shares.items()) + " (goal 80% each)")
    return 0


def explore(work, kv, name, record_path):
    """One exploration's run against the median of its default."""
    r = load(record_path)
    t = r["tests"][0] if r and r.get("tests") else None
    if not t:
        print(f"  explore {name}: no record")
        return 1
    passed = t.get("verdict") == "PASSED" if "verdict" in t else bool(t.get("passed"))
    default = "hpl_mxp" if "verdict" not in t else "lu"
    # A gain only against the default at the same N.
    base = kv.get(f"{default}_gflops") if kv.get(f"{default}_n") == t["n"] else None
    key = "explore_" + name.replace("-", "_")
    rows = {f"{key}_gflops": t["gflops"], f"{key}_passed": passed}
    if base and passed:
        rows[f"{key}_over_default"] = t["gflops"] / base
    kv.put(**rows)
    gain = f": {t['gflops'] / base:.3f}x the default's median" if base and passed else ""
    print(f"  explore {name}: N = {t['n']}: {t['gflops']:.1f} Gflop/s, "
          f"{'passed' if passed else 'FAILED'}{gain}")
    return 0 if passed else 1


def fact(work, kv):
    """Device FACT alone and beside the update's DGEMM (hplx_fact_probe), per leaf."""
    r = load(Path(work) / "fact-probe.json")
    if not r or not r.get("shapes"):
        print("  fact probe: no record")
        return 1
    rows = {"fact_probe_m": r["shapes"][0]["m"], "fact_probe_jb": r["shapes"][0]["jb"],
            "fact_update_ms": r["shapes"][0]["update_ms_at_m"]}
    for s in r["shapes"]:
        rows[f"fact_{s['leaf']}_alone_ms"] = s["fact_alone_ms_median"]
        rows[f"fact_{s['leaf']}_beside_gemm_ms"] = s["fact_beside_ms_median"]
    o = r.get("overheads")
    if o:
        rows.update(fact_launch_beside_gemm_us=o["launch_us"][1], fact_barrier_beside_gemm_us=o["barrier_us"][1],
                    fact_fixed_alone_ms=o["fixed_ms"][0], fact_fixed_beside_gemm_ms=o["fixed_ms"][1])
    kv.put(**rows)
    print(f"  FACT of {rows['fact_probe_m']} x {rows['fact_probe_jb']} beside the DGEMM: "
          + ", ".join(f"{s['leaf']} {s['fact_beside_ms_median']:.1f} ms (alone {s['fact_alone_ms_median']:.1f})"
                      for s in r["shapes"])
          + f"; its update {rows['fact_update_ms']:.1f} ms"
          + (f"; fixed costs beside it {rows['fact_fixed_beside_gemm_ms']:.1f} ms" if o else ""))
    return 0


def clocks(work, kv):
    """Medians of nvidia-smi's samples (WORK/clocks.csv) during each span of WORK/spans.csv."""
    w = Path(work)
    try:
        samples = [[x.strip() for x in line.split(",")] for line in (w / "clocks.csv").read_text().splitlines()]
        spans = [line.split(",") for line in (w / "spans.csv").read_text().splitlines()]
    except OSError:
        print("  clocks: no samples")
        return 0
    rows = {}
    for name in dict.fromkeys(s[0] for s in spans):
        inside = [s for s in samples if len(s) >= 3 and any(b <= s[0] <= e for n, b, e in spans if n == name)]
        try:
            mhz = statistics.median(float(s[1]) for s in inside)
            watts = statistics.median(float(s[2]) for s in inside)
        except (ValueError, statistics.StatisticsError):
            continue
        key = name.replace("-", "_")
        rows[f"sm_clock_mhz_{key}"], rows[f"power_w_{key}"] = mhz, watts
    kv.put(**rows)
    if rows:
        print("  SM clock and power (medians of 200 ms samples): "
              + ", ".join(f"{k[13:]} {v:.0f} MHz" for k, v in rows.items() if k.startswith("sm_clock_mhz_")))
    return 0


def summary(work, out):
    kv = Kv(work)
    Path(out, "summary.json").write_text(json.dumps(kv.values, indent=2) + "\n")
    return 0


def main(argv):
    work, what, rest = argv[1], argv[2], argv[3:]
    if what == "summary":
        return summary(work, rest[0])
    kv = Kv(work)
    table = {"probes": probes, "lu": lu, "fact": fact, "hpl-mxp": hpl_mxp, "mxp": mxp, "clocks": clocks}
    if what == "explore":
        return explore(work, kv, rest[0], rest[1])
    return table[what](work, kv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
