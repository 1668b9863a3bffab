#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bar chart of `bindery bench` results: the most objects each strategy draws within the frame
budget, one group of bars per strategy, one bar per (machine, size); where a configuration was
run more than once the bar is the median and the whisker spans min..max.

usage: bench_chart.py OUT.png LABEL=run.json[,run.json...] [LABEL=...]
Each run.json is the last line `bindery bench` prints. Needs matplotlib (pip install matplotlib).
"""
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out = argv[1]
    series = []  # (label, {strategy: [max_objects per run]})
    strategies = []
    for arg in argv[2:]:
        label, files = arg.split("=", 1)
        per = {}
        for f in files.split(","):
            doc = json.load(open(f))
            for r in doc["results"]:
                per.setdefault(r["strategy"], []).append(r["max_objects"])
                if r["strategy"] not in strategies:
                    strategies.append(r["strategy"])
        series.append((label, per))

    fig, ax = plt.subplots(figsize=(10, 5))
    width = 0.8 / len(series)
    for k, (label, per) in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for i, s in enumerate(strategies):
            v = per.get(s)
            if not v:
                continue
            m = statistics.median(v)
            xs.append(i + (k - (len(series) - 1) / 2) * width)
            ys.append(m)
            lo.append(m - min(v))
            hi.append(max(v) - m)
        ax.bar(xs, ys, width, label=label, yerr=[lo, hi], capsize=3)
    ax.set_xticks(range(len(strategies)))
    ax.set_xticklabels(strategies)
    ax.set_yscale("log")
    ax.set_ylabel("cubes within a 16.7 ms frame (log scale)")
    ax.set_title("bindery bench: most objects per 60 fps frame, by strategy")
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv)
