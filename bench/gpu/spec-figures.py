#!/usr/bin/env python3
"""A GPU's figures for hplx sim's spec (docs/SIM.md "One H200"), from a
device call's own files:

  [device.fact_probe]     hplx_fact_probe's record (--fact FILE): FACT of
                          one panel alone and beside the DGEMM, fused leaf,
                          by JB and rows
  update_share_of_dgemm   hplx lu records (--lu FILE ...): the update's
                          events (per-iteration device_update_s) against the
                          spec's DGEMM model at the update's shape (peak
                          dgemm_gflops, dgemm_half_dim: --spec FILE)

  bench/gpu/spec-figures.py --spec examples/systems/h200.toml \\
      --fact RUN/fact-probe.json --lu RUN/lu-full.json RUN/lu-ab-device.json

Prints the TOML lines to put in the spec's [device] table, with where each
came from. Exit status 2 on a file that is not such a record.
"""
import argparse
import json
import sys
import tomllib


def fail(what):
    print(f"spec-figures: error: {what}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def fact_table(record, path):
    shapes = [s for s in record.get("shapes", []) if s.get("leaf") == "fused"]
    if record.get("probe") != "device_fact" or not shapes:
        fail(f"{path}: not a hplx_fact_probe record with fused-leaf shapes")
    jbs = sorted({s["jb"] for s in shapes})
    rows = sorted({s["m"] for s in shapes})
    at = {(s["jb"], s["m"]): s for s in shapes}
    missing = [f"JB {j} M {m}" for j in jbs for m in rows if (j, m) not in at]
    if missing:
        fail(f"{path}: the table has holes ({', '.join(missing)}); allowed: every JB at every M")

    def table(key):
        return "[" + ", ".join(
            "[" + ", ".join(f"{at[(j, m)][key]:.2f}" for m in rows) + "]" for j in jbs) + "]"

    return [
        f"# hplx_fact_probe ({path}, {record.get('variant', '?')}, the DGEMM on "
        f"{record.get('gemm_data', 'constant')} operands)",
        "[device.fact_probe]",
        f"jb = [{', '.join(str(j) for j in jbs)}]",
        f"rows = [{', '.join(str(m) for m in rows)}]",
        f"alone_ms = {table('fact_alone_ms_median')}",
        f"beside_ms = {table('fact_beside_ms_median')}",
    ]


def update_share(spec_path, lu_paths):
    try:
        with open(spec_path, "rb") as f:
            device = tomllib.load(f)["device"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as e:
        fail(f"{spec_path}: {e}")
    peak, half = device.get("dgemm_gflops"), device.get("dgemm_half_dim", 0)
    if not peak:
        fail(f"{spec_path}: no device.dgemm_gflops")

    def s(d):
        return d / (d + half)

    lines, model_total, measured_total = [], 0.0, 0.0
    for path in lu_paths:
        tests = load_json(path).get("tests", [])
        if not tests or "iterations" not in tests[0]:
            fail(f"{path}: not a hplx lu record with its iterations")
        model = measured = 0.0
        for it in tests[0]["iterations"]:
            m, jb, t = it["n_trailing"], it["jb"], it.get("device_update_s", 0)
            if m <= 0 or t <= 0:
                continue
            # The trailing m x (m + 1) columns (b with them), at the model's rate.
            model += 2.0 * m * (m + 1) * jb / (peak * 1e9 * s(m) * s(m + 1) * s(jb))
            measured += t
        if measured <= 0:
            fail(f"{path}: no iteration has device_update_s (a device run's record is needed)")
        lines.append(f"#   {path}: N = {tests[0]['n']}, {model / measured:.3f}")
        model_total += model
        measured_total += measured
    return [f"# the update's events against the DGEMM model of {spec_path}, by record:"] + lines + [
        f"update_share_of_dgemm = {model_total / measured_total:.2f}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", help="the spec whose DGEMM model the update is compared with")
    ap.add_argument("--fact", help="hplx_fact_probe's JSON record")
    ap.add_argument("--lu", nargs="+", default=[], help="hplx lu JSON records of device runs")
    a = ap.parse_args()
    if not a.fact and not a.lu:
        fail("nothing to read; allowed: --fact FILE and/or --spec SPEC --lu FILE...")
    if a.lu and not a.spec:
        fail("--lu needs --spec (the DGEMM model the update is compared with)")
    out = []
    if a.lu:
        out += update_share(a.spec, a.lu)
    if a.fact:
        out += fact_table(load_json(a.fact), a.fact)
    print("\n".join(out))


if __name__ == "__main__":
    main()
