#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 31's "done when" as a picture: per strategy, each run's median max objects (a dot) and
its range (a bar, smallest..largest search), both divided by the mean of the two runs' medians,
one panel per device call. Two runs agree on a strategy when each dot lies on the other run's bar;
a strategy where one does not is drawn in red and counted in the panel's title.

usage: repeat_ranges.py OUT.png LABEL=bench_repeat_compare.txt [LABEL=...]
Each file is what bench/bench_repeat_device.sh writes: a header, then per strategy
"name median1 min1..max1 median2 min2..max2 verdict". Needs matplotlib (pip install matplotlib).
"""
import sys


def rows(path):
    """[(strategy, (median, low, high) of run 1, the same of run 2)], in the file's order."""
    out = []
    for line in open(path):
        f = line.split()
        if len(f) != 6 or ".." not in f[2]:
            continue  # the header and the summary line
        runs = []
        for median, span in ((f[1], f[2]), (f[3], f[4])):
            low, high = span.split("..")
            runs.append((float(median), float(low), float(high)))
        out.append((f[0], runs[0], runs[1]))
    return out


def within(a, b):
    """Each run's median inside the other's range: the issue's criterion."""
    return b[1] <= a[0] <= b[2] and a[1] <= b[0] <= a[2]


def main(argv):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out, panels = argv[1], [a.split("=", 1) for a in argv[2:]]
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 2.6 * len(panels)), squeeze=False)
    for ax, (label, path) in zip(axes[:, 0], panels):
        data = rows(path)
        outside = 0
        for i, (name, r1, r2) in enumerate(data):
            scale = (r1[0] + r2[0]) / 2
            ok = within(r1, r2)
            outside += not ok
            for dx, (median, low, high), marker in ((-0.15, r1, "o"), (0.15, r2, "s")):
                color = "tab:blue" if ok else "tab:red"
                ax.plot([i + dx, i + dx], [low / scale, high / scale], color=color, lw=3, alpha=0.5)
                ax.plot(i + dx, median / scale, marker, color=color)
        ax.set_xticks(range(len(data)))
        ax.set_xticklabels([d[0] for d in data], rotation=30, ha="right", fontsize=8)
        ax.axhline(1.0, color="0.8", lw=0.8)
        ax.set_ylabel("/ mean median")
        ax.set_title(f"{label}: run 1 (o) and run 2 (s), {outside} of {len(data)} outside", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv)
