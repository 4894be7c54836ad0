#!/usr/bin/env python3
"""Tables bench/sim-published.sh: per published run, the published Gflops,
the simulation's and the analytic model's, their errors, and what the
simulation cost here (seconds, peak memory); then each predictor's mean
absolute error over the runs simulated."""
import glob, json, os, statistics, sys, tomllib

out = sys.argv[1]
rows, sim_errs, model_errs = [], [], []
for runs in sorted(glob.glob(os.path.join(out, "*.runs"))):
    spec = os.path.basename(runs)[:-5]
    d = tomllib.load(open(f"examples/systems/{spec}.toml", "rb"))
    dev = d["device"]
    rpeak_dev = dev.get("rpeak_gflops") or (
        dev["cores"] * dev["flops_per_cycle"] * dev["clock_ghz"] if "cores" in dev else None)
    for line in open(runs):
        i, n, nb, grid, nodes = line.split()
        p = d["published"][int(i)]
        p_, q_ = (int(x) for x in grid.split("x"))
        if "rmax_gflops" in p:
            pub = p["rmax_gflops"]
        else:
            rpeak = p.get("rpeak_gflops") or (rpeak_dev * p_ * q_ if rpeak_dev else None)
            pub = p["efficiency_pct"] / 100 * rpeak if rpeak else None
        base = os.path.join(out, f"{spec}-{i}")
        # /usr/bin/time's last line (a failed run's file starts with its exit status)
        cost = (open(base + ".time").read().split("\n")[-2].split()
                if os.path.exists(base + ".time") else ["?", "0"])
        if not os.path.exists(base + ".json"):
            rows.append((spec, p["label"], p_ * q_, n, pub, None, None, cost))
            continue
        t = json.load(open(base + ".json"))["tests"][0]
        rows.append((spec, p["label"], p_ * q_, n, pub, t["gflops"], t["prediction"]["gflops"], cost))
        if pub:
            sim_errs.append(abs(t["gflops"] / pub - 1) * 100)
            model_errs.append(abs(t["prediction"]["gflops"] / pub - 1) * 100)

print(f"{'spec':<17} {'run':<10} {'ranks':>5} {'N':>8} {'published':>11} {'simulated':>11} "
      f"{'err':>7} {'model':>11} {'err':>7} {'sim s':>7} {'RSS MiB':>8}")
for spec, label, ranks, n, pub, sim, mod, cost in rows:
    def err(x):
        return f"{(x / pub - 1) * 100:+6.1f}%" if (x and pub) else "      -"
    pubs = f"{pub:11.0f}" if pub else "          ?"
    sims = f"{sim:11.0f}" if sim else "    stopped"
    mods = f"{mod:11.0f}" if mod else "          -"
    print(f"{spec:<17} {label:<10} {ranks:>5} {n:>8} {pubs} {sims} {err(sim)} {mods} {err(mod)} "
          f"{cost[0]:>7} {int(cost[1]) / 1024:8.0f}")
if sim_errs:
    print(f"mean |error| over {len(sim_errs)} runs: simulation {statistics.mean(sim_errs):.1f}%, "
          f"analytic model {statistics.mean(model_errs):.1f}%")
