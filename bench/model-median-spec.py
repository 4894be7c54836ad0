#!/usr/bin/env python3
"""The per-key median of several `hplx model calibrate` specs, written as one
spec: on a shared machine one calibration can catch a busy minute, so
bench/model-vs-measured.sh calibrates several times across the campaign and
predicts with the median of every measured number.
    bench/model-median-spec.py OUT.toml machine-c1.toml machine-c2.toml ..."""
import statistics
import sys
import tomllib


def median_of(values):
    first = values[0]
    if isinstance(first, dict):
        return {k: median_of([v[k] for v in values if k in v]) for k in first}
    if isinstance(first, bool) or isinstance(first, str):
        return first
    if isinstance(first, (int, float)):
        m = statistics.median(values)
        return int(m) if isinstance(first, int) and float(m).is_integer() else m
    return first


def value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, dict):
        return "{ " + ", ".join(f'"{k}" = {value(x)}' for k, x in v.items()) + " }"
    return str(v)


def write(out, spec, sources):
    lines = [f"# Per-key median of {len(sources)} calibrations: {' '.join(sources)}"]
    def table(name, t):
        scalars = {k: v for k, v in t.items() if not (isinstance(v, dict) and k in SUBTABLES)}
        lines.append(f"\n[{name}]")
        for k, v in scalars.items():
            lines.append(f"{k} = {value(v)}")
        for k, v in t.items():
            if isinstance(v, dict) and k in SUBTABLES:
                table(f"{name}.{k}", v)
    for name, t in spec.items():
        table(name, t)
    open(out, "w").write("\n".join(lines) + "\n")


SUBTABLES = {"link"}  # [node.link]; every other dict is an inline table

if __name__ == "__main__":
    out, sources = sys.argv[1], sys.argv[2:]
    specs = [tomllib.load(open(f, "rb")) for f in sources]
    write(out, median_of(specs), sources)
