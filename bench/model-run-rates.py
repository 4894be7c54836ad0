#!/usr/bin/env python3
"""Predicted versus measured hplx lu runs of bench/model-vs-measured.sh, with
the DGEMM rate each run saw, so that the model's error and the machine's
drift can be told apart.
    bench/model-run-rates.py OUT N1 N2 ...
For each run OUT/lu-N-GRID-rR.json (its calibration just before it:
machine-N-GRID-rR.toml, prediction model-N-GRID-rR.json; the per-key median
of all calibrations: model-N-GRID.json):
  own      the prediction of its own calibration, and its diff
  R_cal    the calibrated rate of the update's DGEMM at the run's threads
           (update_gflops_by_threads, else dgemm_gflops_by_threads), per rank
  R_next   the same rate in the next calibration (the next step's, which
           follows the run with at most other sessions' lock holds between)
  R_run    the DGEMM rate the run itself saw, per rank: the run's DGEMM flops
           over the time its update phase (rank 0's record) left after the
           model's other terms of that phase (DTRSM; 1x1 also the row copies,
           the chunks' tail and FACT's exposed share, which hplx lu's record
           counts in its update and swap phases there)
  at R_run the prediction with R_run in place of R_cal: what the model
           misses when it knows the DGEMM rate of the moment
The median of a point is over its runs' Gflops; the point's "median cal"
prediction uses the per-key median spec."""
import glob
import json
import statistics
import sys
import tomllib


def hpl_flops(n):
    return 2.0 / 3.0 * n**3 + 1.5 * n**2


def gemm_flops(n, nb, q):
    s = 0.0
    for c in range(0, n, nb):
        b = min(nb, n - c)
        u = n - c - b
        s += 2.0 * u * u * b / q
    return s


def spec_rate(spec_file, threads):
    d = tomllib.load(open(spec_file, "rb"))["device"]
    for key in ("update_gflops_by_threads", "dgemm_gflops_by_threads"):
        if key in d and str(threads) in d[key]:
            return d[key][str(threads)]
    return d["dgemm_gflops"]


def run_rates(run, model, n, nb, grid, threads, r_cal):
    """R_run and the prediction at R_run (Gflops)."""
    q = 1 if grid == "1x1" else 2
    ph = run["phases_s"]
    g = gemm_flops(n, nb, q)
    if grid == "1x1":
        e0 = model["iter_s"][0]  # panel 0's FACT: alone, in the fact phase
        other = model["trsm_s"] + model["swap_copy_s"] + model.get("tail_s", 0.0)
        other += model["fact_s"] - e0
        phase = ph["update"] + ph["swap"]
    else:
        other = model["trsm_s"]
        phase = ph["update"]
    r_run = g / (phase - other) / 1e9
    t = model["time_s"] - model["dgemm_s"] + model["dgemm_s"] * r_cal / r_run
    return r_run, hpl_flops(n) / t / 1e9


def next_calibrations(out):
    """For each step (N, grid, rep), the calibration of the step after it in time."""
    steps = []
    for w in glob.glob(f"{out}/lu-*-r*.when"):
        key = w[len(out) + 4:-5]  # N-GRID-rR
        steps.append((open(w).read().strip(), key))
    steps.sort()
    return {a[1]: f"{out}/machine-{b[1]}.toml" for a, b in zip(steps, steps[1:])}


def main():
    out, ns = sys.argv[1], [int(x) for x in sys.argv[2:]]
    nxt = next_calibrations(out)
    print(f"{'N':<6} {'grid':<5} {'run':<4} {'measured':>9} {'own pred':>9} {'diff':>7}"
          f" {'R_cal':>7} {'R_next':>7} {'R_run':>7} {'drift':>7} {'at R_run':>9} {'diff':>7}")
    summary = []
    for n in ns:
        for grid in ("1x1", "1x2"):
            threads = 2 if grid == "1x1" else 1
            files = sorted(glob.glob(f"{out}/lu-{n}-{grid}-r*.json"))
            if not files:
                continue
            runs = []
            for f in files:
                rep = f.rsplit("-r", 1)[1][:-5]
                t = json.load(open(f))["tests"][0]
                own_f = f"{out}/model-{n}-{grid}-r{rep}.json"
                cal_f = f"{out}/machine-{n}-{grid}-r{rep}.toml"
                row = {"rep": rep, "gflops": t["gflops"], "t": t}
                try:
                    m = json.load(open(own_f))["points"][0]["mcl"]
                    r_cal = spec_rate(cal_f, threads)
                    r_run, at = run_rates(t, m, n, t["nb"], grid, threads, r_cal)
                    row.update(own=m["gflops"], r_cal=r_cal, r_run=r_run, at=at)
                    nf = nxt.get(f"{n}-{grid}-r{rep}")
                    try:
                        row["r_next"] = spec_rate(nf, threads) if nf else float("nan")
                    except FileNotFoundError:  # the next step is still calibrating
                        row["r_next"] = float("nan")
                except FileNotFoundError:
                    pass
                runs.append(row)
                if "own" in row:
                    print(f"{n:<6} {grid:<5} r{rep:<3} {row['gflops']:9.2f} {row['own']:9.2f}"
                          f" {100 * (row['own'] / row['gflops'] - 1):+6.1f}%"
                          f" {r_cal:7.2f} {row['r_next']:7.2f} {r_run:7.2f}"
                          f" {100 * (r_cal / r_run - 1):+6.1f}%"
                          f" {at:9.2f} {100 * (at / row['gflops'] - 1):+6.1f}%")
                else:
                    print(f"{n:<6} {grid:<5} r{rep:<3} {row['gflops']:9.2f}")
            med = statistics.median(r["gflops"] for r in runs)
            summary.append((n, grid, med, runs))
    print("\nper point: median of the runs; median of the own-calibration diffs; the median"
          " spec's prediction")
    print(f"{'N':<6} {'grid':<5} {'measured':>9} {'runs':<24} {'own diffs (median)':>19}"
          f" {'median cal':>10} {'diff':>7} {'at R_run (median)':>18}")
    for n, grid, med, runs in summary:
        own = [100 * (r["own"] / r["gflops"] - 1) for r in runs if "own" in r]
        at = [100 * (r["at"] / r["gflops"] - 1) for r in runs if "at" in r]
        try:
            mm = json.load(open(f"{out}/model-{n}-{grid}.json"))["points"][0]["mcl"]["gflops"]
            mtxt = f"{mm:10.2f} {100 * (mm / med - 1):+6.1f}%"
        except FileNotFoundError:
            mtxt = f"{'':10} {'':7}"
        rtxt = " ".join(f"{r['gflops']:.2f}" for r in runs)
        otxt = f"{statistics.median(own):+6.1f}%" if own else ""
        atxt = f"{statistics.median(at):+6.1f}%" if at else ""
        print(f"{n:<6} {grid:<5} {med:9.2f} {rtxt:<24} {otxt:>19} {mtxt} {atxt:>18}")


if __name__ == "__main__":
    main()
