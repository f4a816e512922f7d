#!/usr/bin/env python3
"""Markdown tables of the medians bench-compare.sh collected.

  bench_table.py OUT_DIR PROGRAM...

One table per program: each benchmark's CPU time (and counters) before and
after, and after / before.
"""
import json
import os
import sys

# The counters shown; those in seconds are printed in ns or us.
COUNTERS = {"time_per_joint_substep": 1e9, "per_character": 1e9,
            "per_unit": 1e9,
            "cpu_us": 1.0, "core_us": 1.0}
UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# Arguments at the value that a benchmark without them measures: a name with
# one of these suffixes pairs with the same name without it, as a build whose
# benchmark lacks the argument reports it.
DEFAULT_ARGS = ("/prepared:0",)


def medians(path):
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            data = json.load(f)
    except ValueError:
        return {}
    out = {}
    for run in data.get("benchmarks", []):
        if run.get("aggregate_name") != "median":
            continue
        counters = {k: v for k, v in run.items() if k in COUNTERS}
        name = run["run_name"]
        for suffix in DEFAULT_ARGS:
            if name.endswith(suffix):
                name = name[:-len(suffix)]
        out[name] = (run["cpu_time"] * UNIT[run["time_unit"]], counters)
    return out


def cell(value):
    if value is None:
        return "—"
    ns, counters = value
    text = f"{ns:,.1f} ns" if ns < 1e5 else f"{ns / 1e6:,.3f} ms"
    extra = ", ".join(f"{k} {v * COUNTERS[k]:.4g}"
                      for k, v in sorted(counters.items()))
    return f"{text} ({extra})" if extra else text


def main():
    out_dir, programs = sys.argv[1], sys.argv[2:]
    for program in programs:
        before = medians(os.path.join(out_dir, f"before.{program}.json"))
        after = medians(os.path.join(out_dir, f"after.{program}.json"))
        if not before and not after:
            continue
        print(f"\n#### {program}\n")
        print("| benchmark | before | after | after ÷ before |")
        print("|---|---|---|---|")
        for name in list(before) + [n for n in after if n not in before]:
            b, a = before.get(name), after.get(name)
            ratio = f"{a[0] / b[0]:.2f}" if a and b else "—"
            print(f"| `{name}` | {cell(b)} | {cell(a)} | {ratio} |")


if __name__ == "__main__":
    main()
