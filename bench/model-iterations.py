#!/usr/bin/env python3
"""Where a bench/model-vs-measured.sh run and its own prediction part, by
phase and by stretch of iterations.
    bench/model-iterations.py OUT N GRID [REP]
Phases (rank 0's record): FACT's whole time against t_fact summed, the row
copies against t_copy, the update phase against the model's terms that
hplx lu's record counts there. Iterations: the run's iteration k against
the model's iter_s[k] (the model's iterations follow the run's when the
spec has look-ahead), summed over four stretches of the trailing order n
(N..3N/4, 3N/4..N/2, N/2..N/4, N/4..0)."""
import json
import sys


def main():
    out, n, grid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rep = sys.argv[4] if len(sys.argv) > 4 else "1"
    t = json.load(open(f"{out}/lu-{n}-{grid}-r{rep}.json"))["tests"][0]
    m = json.load(open(f"{out}/model-{n}-{grid}-r{rep}.json"))["points"][0]["mcl"]
    ph = t["phases_s"]
    its = t["iterations"]
    pit = m["iter_s"]
    print(f"N = {n} {grid} r{rep}: measured {t['time_s']:.2f} s ({t['gflops']:.2f} Gflops),"
          f" predicted {m['time_s']:.2f} s ({m['gflops']:.2f})")
    print(f"  FACT (whole)   measured {ph['fact']:7.3f}  model t_fact {m['fact_total_s']:7.3f}"
          f"  (exposed {m['fact_s']:.3f})")
    print(f"  row copies     measured {ph['swap_copy']:7.3f}  model t_copy {m['swap_copy_s']:7.3f}")
    if grid == "1x1":
        e0 = pit[0]
        model_upd = m["trsm_s"] + m["dgemm_s"] + m.get("tail_s", 0) + m["fact_s"] - e0
        print(f"  update phase   measured {ph['update']:7.3f}  model trsm + dgemm + tail + exposed"
              f" FACT (k > 0) {model_upd:7.3f}"
              f"  [trsm {m['trsm_s']:.3f} dgemm {m['dgemm_s']:.3f} tail {m.get('tail_s', 0):.3f}]")
    else:
        print(f"  update phase   measured {ph['update']:7.3f}  model trsm + dgemm"
              f" {m['trsm_s'] + m['dgemm_s']:7.3f}")
        print(f"  bcast phase    measured {ph['bcast']:7.3f}  model bcast + pivot"
              f" {m['bcast_s'] + m['pivot_s']:7.3f}  (update comm {m['update_comm_s']:.3f})")
    bins = [[0.0, 0.0, 0] for _ in range(4)]
    for it, p in zip(its, pit):
        frac = (n - it["j"]) / n
        b = 0 if frac > 0.75 else 1 if frac > 0.5 else 2 if frac > 0.25 else 3
        bins[b][0] += it["iter_s"]
        bins[b][1] += p
        bins[b][2] += 1
    names = ["n > 3N/4", "3N/4..N/2", "N/2..N/4", "n < N/4"]
    for name, (mt, pt, cnt) in zip(names, bins):
        if cnt:
            print(f"  iterations {name:<10} ({cnt:3d}): measured {mt:7.3f}  predicted {pt:7.3f}"
                  f"  {100 * (pt / mt - 1):+6.1f}%")


if __name__ == "__main__":
    main()
