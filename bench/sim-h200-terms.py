#!/usr/bin/env python3
"""Which term carries hplx sim's error on a measured GPU run: the run's
record (hplx lu --json) against hplx sim's record of the same N, NB and
FACT place, iteration by iteration, summed over four stretches of the
trailing order (N..3N/4, ..N/2, ..N/4, ..0).
    bench/sim-h200-terms.py MEASURED.json SIMULATED.json
Terms, each the time of its queue in the iteration:
  fact    FACT's wall on the panel queue (the run's fact_s with FACT on the
          device; the simulation's device_fact_s), the iteration's bound
          where FACT takes longer than the update beside it
  update  the update on the device (device_update_s)
  swap    the row swap on the device (device_swap_s)
  iter    the iteration's wall (the run's iter_s; the simulation's is the
          larger of fact and update + swap, its record keeping no iter_s)
Each line: measured and simulated seconds and simulated / measured - 1.
The last lines: the walls of the iterations FACT bounds in the simulation
(FACT longer than the update and the swap beside it) and of the others."""
import json
import sys


def iterations(path):
    t = json.load(open(path))["tests"][0]
    return t, t["iterations"]


def fact_s(it):
    return it["device_fact_s"] if it.get("device_fact_s", 0) > 0 else it["fact_s"]


def iter_s(it):
    if it.get("iter_s", 0) > 0:
        return it["iter_s"]
    return max(fact_s(it), it["device_update_s"] + it["device_swap_s"])


def main():
    mt, mi = iterations(sys.argv[1])
    st, si = iterations(sys.argv[2])
    if (mt["n"], mt["nb"], len(mi)) != (st["n"], st["nb"], len(si)):
        sys.exit(f"records differ: N {mt['n']} / {st['n']}, NB {mt['nb']} / {st['nb']}, "
                 f"{len(mi)} / {len(si)} iterations")
    n = mt["n"]
    terms = [("fact", fact_s), ("update", lambda i: i["device_update_s"]),
             ("swap", lambda i: i["device_swap_s"]), ("iter", iter_s)]
    print(f"N = {n}, NB = {mt['nb']}: measured {mt['time_s']:.3f} s, simulated {st['time_s']:.3f} s "
          f"({st['time_s'] / mt['time_s'] - 1:+.1%})")
    print(f"{'trailing order':>16} " + " ".join(f"{t:>24}" for t, _ in terms))
    bounds = [n, 3 * n // 4, n // 2, n // 4, 0]
    for hi, lo in zip(bounds, bounds[1:]):
        sel = [(a, b) for a, b in zip(mi, si) if lo < n - a["j"] <= hi]
        cells = []
        for _, f in terms:
            ms = sum(f(a) for a, _ in sel)
            ss = sum(f(b) for _, b in sel)
            cells.append(f"{ms:7.3f} {ss:7.3f} {ss / ms - 1 if ms else 0:+7.1%}")
        print(f"{hi:>7}..{lo:<7} " + " ".join(f"{c:>24}" for c in cells))
    # The walls split by what bounds the simulated iteration.
    for name, bound in (("FACT", True), ("the update", False)):
        sel = [(a, b) for a, b in zip(mi, si)
               if (fact_s(b) > b["device_update_s"] + b["device_swap_s"]) == bound]
        mw, sw = sum(iter_s(a) for a, _ in sel), sum(iter_s(b) for _, b in sel)
        if sel:
            print(f"{len(sel)} iterations bound by {name} in the simulation: walls {mw:.3f} s "
                  f"measured, {sw:.3f} simulated ({sw / mw - 1:+.1%})")

if __name__ == "__main__":
    main()
