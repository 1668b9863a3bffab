#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 31's "done when" as a picture: per strategy, each run's median max objects (a dot) and
its range (a bar, smallest..largest search), both divided by the mean of the two runs' medians,
one panel per device call. Two runs agree on a strategy when each dot lies on the other run's bar;
a strategy where one does not is drawn in red and counted in the panel's title. A file that is
missing, garbled, cut short or inconsistent is refused with one line naming it; nothing is drawn.

usage: repeat_ranges.py OUT.png LABEL=bench_repeat_compare.txt [LABEL=...]
Each file is what bench/bench_repeat_device.sh writes: a header, then per strategy
"name median1 min1..max1 median2 min2..max2 verdict". Needs matplotlib (pip install matplotlib).
"""
import sys


class BadInput(Exception):
    """A comparison file or argument this script cannot draw, with what was wrong."""


def parse_run(median, span, where):
    """(median, low, high) of one run's "median" and "low..high" fields."""
    low, dots, high = span.partition("..")
    try:
        values = float(median), float(low), float(high)
    except ValueError:
        values = None
    if not dots or values is None or min(values) < 0:
        raise BadInput(f"{where}: expected a median and a range low..high of objects, "
                       f"got '{median} {span}'")
    if not values[1] <= values[2]:
        raise BadInput(f"{where}: range {span} has its low above its high")
    return values


def rows(path):
    """[(strategy, (median, low, high) of run 1, the same of run 2)], in the file's order.
    Raises BadInput for a file that is missing, garbled, empty, cut short (its summary line
    "N strategies compared, K outside" counts N rows) or whose verdicts disagree with its
    numbers."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise BadInput(f"{path}: cannot read it ({e.strerror})")
    out, summary = [], None
    for number, line in enumerate(lines, 1):
        f, where = line.split(), f"{path}:{number}"
        if not f or f[0] == "strategy":
            continue  # the header
        if line.endswith(" outside") and "strategies compared," in line:
            if len(f) != 5 or not (f[0].isdigit() and f[3].isdigit()):
                raise BadInput(f"{where}: expected 'N strategies compared, K outside', got '{line}'")
            summary = (int(f[0]), int(f[3]))
            continue
        if len(f) != 6 or f[5] not in ("within", "OUTSIDE"):
            raise BadInput(f"{where}: expected 'strategy median1 low1..high1 median2 "
                           f"low2..high2 within|OUTSIDE', got '{line}'")
        r1, r2 = parse_run(f[1], f[2], where), parse_run(f[3], f[4], where)
        if within(r1, r2) != (f[5] == "within"):
            raise BadInput(f"{where}: says {f[5]}, but its medians and ranges say otherwise")
        out.append((f[0], r1, r2))
    if summary is None:
        raise BadInput(f"{path}: no summary line 'N strategies compared, K outside' "
                       "(a run cut short by its timeout?)")
    outside = sum(not within(r1, r2) for _, r1, r2 in out)
    if not out or summary != (len(out), outside):
        raise BadInput(f"{path}: {len(out)} strategies with {outside} outside, but its summary "
                       f"says {summary[0]} with {summary[1]} (a run with no table: timed out?)")
    return out


def within(a, b):
    """Each run's median inside the other's range: the issue's criterion."""
    return b[1] <= a[0] <= b[2] and a[1] <= b[0] <= a[2]


def main(argv):
    out, panels = argv[1], []
    if not out.endswith(".png"):
        raise BadInput(f"the first argument is the picture to write, OUT.png (got '{out}')")
    for arg in argv[2:]:
        label, eq, path = arg.partition("=")
        if not eq or not label or not path:
            raise BadInput(f"expected LABEL=bench_repeat_compare.txt, got '{arg}'")
        panels.append((label, rows(path)))
    try:
        import matplotlib
    except ImportError:
        raise BadInput("needs matplotlib (pip install matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 2.6 * len(panels)), squeeze=False)
    for ax, (label, data) in zip(axes[:, 0], panels):
        outside = 0
        for i, (name, r1, r2) in enumerate(data):
            # A strategy over budget at --start has median 0 in both runs: scale by its ranges.
            scale = (r1[0] + r2[0]) / 2 or max(r1[2], r2[2]) or 1.0
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
    try:
        main(sys.argv)
    except BadInput as e:
        sys.exit(f"repeat_ranges.py: {e}")
