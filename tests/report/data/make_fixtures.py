#!/usr/bin/env python3
"""Writes the synthetic schema-2 records the report tests read.

They are made up, not measured: a 1 x 2 grid whose trailing update runs at
20 Gflops and whose panel factorization runs at 0.6 Gflop/s, so the update
hides FACT + RS for the first half of the run and no longer does after it,
the shape seed 003 (Fig. 4) shows. Deterministic (no random module), so the
files only change when this script does. Run from this directory:
    python3 make_fixtures.py
"""
import json
import math

DEFINITION = ("the first iteration b such that every iteration k >= b has "
              "update_s(k) < fact_s(k) + rs_comm_s(k) + rs_copy_s(k); "
              "percent_iterations = 100*b/n_iterations, "
              "percent_flops = 100*(flops of iterations < b)/(all flops)")

MACHINE = {
    "blas": "OpenBLAS 0.3.21 (synthetic fixture)",
    "compiler": "GCC 12.2.0",
    "cpu_model": "AMD EPYC",
    "cpus_allowed": 2,
    "hostname": "fixture",
    "logical_cpus": 2,
    "mem_available_bytes": 24859910144,
    "mem_total_bytes": 25276510208,
    "mpi_library": "Open MPI v4.1.4",
    "os": "Linux x86_64",
}


def wobble(k, amp=0.05):
    """A deterministic +-amp jitter so bars are not perfectly smooth."""
    return 1.0 + amp * math.sin(1.7 * k + 0.3) * math.cos(0.9 * k)


def lu_flops(m):
    """netlib's LU flop count of an m x m matrix; panel k does F(n-j) - F(n-j-jb)."""
    return (2.0 / 3.0 * m + 1.5) * m * m


def iterations(n, nb, update_gflops=20.0, fact_gflops=0.6):
    rows, elapsed, done = [], 0.0, 0.0
    nit = (n + nb - 1) // nb
    for k in range(nit):
        j = k * nb
        jb = min(nb, n - j)
        m = n - j                 # rows of the panel
        t = n - j - jb            # trailing columns
        # LU flops of this iteration: panel + DTRSM + DGEMM.
        flops = lu_flops(m) - lu_flops(m - jb)
        fact = (m * jb * jb) / (fact_gflops * 1e9) * wobble(k) + 2e-4
        bcast = m * jb * 8 / 4e9 + 3e-5
        rs_comm = t * jb * 8 / 3e9 * wobble(k + 3) + 4e-5
        rs_copy = t * jb * 8 / 10e9 + 1e-5
        update = (2.0 * (m - jb) * jb * t + jb * jb * t) / (update_gflops * 1e9) * wobble(k + 7)
        panel = fact + rs_comm + rs_copy
        wait = max(0.0, panel - update) * 0.6 + 2e-5
        # Look-ahead: the next panel's FACT + RS runs beside this update.
        it = max(update, panel) + bcast + 0.3 * min(update, panel) * 0.1
        bcast_hidden = min(bcast, update) * 0.5
        rs_hidden = min(rs_comm, update) * 0.4
        elapsed += it
        done += flops
        rows.append({
            "k": k, "j": j, "jb": jb, "n_trailing": t,
            "local_cols": (t + 1) // 2,
            "fact_s": fact, "bcast_s": bcast, "rs_comm_s": rs_comm, "rs_copy_s": rs_copy,
            "update_s": update, "wait_s": wait, "iter_s": it,
            "bcast_hidden_s": bcast_hidden, "rs_hidden_s": rs_hidden,
            "flops": flops, "elapsed_s": elapsed, "gflops": done / elapsed * 1e-9,
        })
    return rows


def balance_point(rows):
    b = len(rows)
    while b > 0:
        r = rows[b - 1]
        if not r["update_s"] < r["fact_s"] + r["rs_comm_s"] + r["rs_copy_s"]:
            break
        b -= 1
    if b == len(rows):
        return None
    total = sum(r["flops"] for r in rows)
    before = sum(r["flops"] for r in rows[:b])
    return {"iteration": b, "percent_iterations": 100.0 * b / len(rows),
            "percent_flops": 100.0 * before / total, "definition": DEFINITION}


def test(n, nb, **kw):
    rows = iterations(n, nb, **kw)
    solve = 0.002 * (n / 4096.0) ** 2
    time_s = rows[-1]["elapsed_s"] + solve
    ops = 2.0 / 3.0 * n ** 3 + 1.5 * n ** 2
    phases = {k: sum(r[k + "_s"] for r in rows) for k in ("fact", "update")}
    return {
        "bcast": "1ringM", "depth": 1, "n": n, "nb": nb, "nbmin": 4, "ndiv": 2,
        "p": 1, "q": 2, "pfact": "Right", "rfact": "Crout", "pmap": "row",
        "swap": "Mix", "swap_threshold": 64,
        "schedule": {"fact_overlap": True, "fact_threads": 1, "swap_first": 0.125,
                     "swap_growth": 2.0, "swap_pipeline": False},
        "phases_s": {"fact": phases["fact"],
                     "bcast": sum(r["bcast_s"] for r in rows),
                     "swap": sum(r["rs_comm_s"] + r["rs_copy_s"] for r in rows),
                     "update": phases["update"], "solve": solve},
        "time_s": time_s, "gflops": ops / time_s * 1e-9,
        "residual": 0.0042, "variant": "WR11C2R4", "verdict": "PASSED",
        "iterations": rows, "balance_point": balance_point(rows),
    }


def record(tests, argv):
    return {
        "argv": argv, "command": "lu", "hplx_version": "0.1.0",
        "input": {"source": "<command line>", "threshold": 16.0},
        "machine": MACHINE,
        "notes": ["synthetic fixture written by tests/report/data/make_fixtures.py"],
        "schema": "hplx.run", "schema_version": 2,
        "started_at": "2026-11-21T12:00:00Z",
        "summary": {"failed": 0, "passed": len(tests), "skipped": 0},
        "tests": tests,
    }


def write(name, rec):
    with open(name, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    # One test, 40 iterations.
    write("run-v2.json", record([test(5120, 128)],
                                ["hplx", "lu", "--n", "5120", "--nb", "128", "--json", "run-v2.json"]))
    # A sweep over N and NB (small, few iterations each).
    sweep = [test(n, nb) for nb in (64, 128) for n in (1024, 2048, 3072)]
    write("run-v2-sweep.json", record(sweep, ["hplx", "lu", "sweep.dat", "--json", "run-v2-sweep.json"]))
