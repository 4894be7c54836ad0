#!/usr/bin/env python3
"""Tabulates bench/sim-vs-measured.sh: per N and grid, the median measured
time of hplx lu, the median simulated time (hplx sim with each run's own
calibration) and the analytic model's (MCL) prediction from the same
calibration, with their errors against the measurement; the same two from
the median of all the campaign's calibrations (median.toml) where they
were simulated; then the mean absolute error of each predictor."""
import glob, json, os, re, statistics, sys

out = sys.argv[1]
runs = {}
for sim_path in sorted(glob.glob(os.path.join(out, "*-sim.json"))):
    m = re.match(r"(\d+)-(\d+x\d+)-r(\d+)-sim\.json$", os.path.basename(sim_path))
    if not m:
        continue
    lu_path = sim_path.replace("-sim.json", "-lu.json")
    if not os.path.exists(lu_path):
        continue
    sim = json.load(open(sim_path))["tests"][0]
    lu = json.load(open(lu_path))["tests"][0]
    med_path = sim_path.replace("-sim.json", "-median-sim.json")
    med = json.load(open(med_path))["tests"][0] if os.path.exists(med_path) else None
    key = (int(m.group(1)), m.group(2))
    runs.setdefault(key, []).append((lu["time_s"], sim["time_s"], sim["prediction"]["time_s"],
                                     med["time_s"] if med else None,
                                     med["prediction"]["time_s"] if med else None))

def table(title, sim_i, model_i):
    print(title)
    print(f"{'N':>6} {'grid':>4} {'runs':>4} {'measured s':>10} {'sim s':>8} {'sim err':>8} "
          f"{'model s':>8} {'model err':>9}  per-run sim/measured")
    sim_errs, model_errs = [], []
    for (n, grid), rs in sorted(runs.items()):
        rs = [r for r in rs if r[sim_i] is not None]
        if not rs:
            continue
        meas = statistics.median(r[0] for r in rs)
        sim = statistics.median(r[sim_i] for r in rs)
        mod = statistics.median(r[model_i] for r in rs)
        se, me = (sim / meas - 1) * 100, (mod / meas - 1) * 100
        sim_errs.append(abs(se))
        model_errs.append(abs(me))
        per = " ".join(f"{r[sim_i] / r[0]:.3f}" for r in rs)
        print(f"{n:>6} {grid:>4} {len(rs):>4} {meas:>10.2f} {sim:>8.2f} {se:>+7.1f}% {mod:>8.2f} "
              f"{me:>+8.1f}%  {per}")
    if sim_errs:
        print(f"mean |error|: simulation {statistics.mean(sim_errs):.1f}%, analytic model "
              f"{statistics.mean(model_errs):.1f}% (goal: simulation within 5% and closer than "
              f"the model)")


table("each run simulated and predicted with its own calibration (taken right before it):", 1, 2)
print()
table("with the median of all the campaign's calibrations (median.toml):", 3, 4)
