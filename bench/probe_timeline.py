#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The probes of time-stamped `bindery bench` progress logs (bench/bench_noise_device.sh writes
them): per strategy, milliseconds of frame per thousand objects over the run's time, one panel per
log, so that a host that falls into a slow state and back shows as two levels (issue 31,
docs/BENCHMARKS.md "Where the host's noise comes from"). Probes below half the strategy's
median count in the log are left out (there the frame's fixed costs dominate the ratio).
Also prints, per log and strategy, the smallest, median and largest ms per thousand objects and
their ratio.

usage: probe_timeline.py OUT.png LABEL=noise_X.log [LABEL=...]
Each log line is "<unix seconds> <progress line>". Needs matplotlib (pip install matplotlib).
"""
import re
import statistics
import sys

PROBE = re.compile(r"(\S+): (\d+) objects -> ([\d.]+) ms per frame")


def probes(path):
    """{strategy: [(seconds since the first line, objects, ms per 1000 objects)]}"""
    out, t0 = {}, None
    for line in open(path):
        stamp, _, text = line.partition(" ")
        t = float(stamp)
        t0 = t if t0 is None else t0
        m = PROBE.search(text)
        if m:
            n, ms = int(m.group(2)), float(m.group(3))
            out.setdefault(m.group(1), []).append((t - t0, n, ms * 1000.0 / n))
    for name, rows in out.items():
        typical = statistics.median(n for _, n, _ in rows)
        out[name] = [r for r in rows if r[1] >= typical / 2]
    return out


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    runs = [(label, probes(path)) for label, path in (a.split("=", 1) for a in argv[2:])]
    for label, per in runs:
        for name, rows in per.items():
            v = [r[2] for r in rows]
            print(f"{label:10} {name:18} {len(v):3} probes  ms/1000 objects: min {min(v):.3f} "
                  f"median {statistics.median(v):.3f} max {max(v):.3f}  max/min {max(v) / min(v):.2f}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Past six strategies the default ten colours repeat and the legend covers the data: twenty
    # colours, the legend beside the panels.
    names = sorted({name for _, per in runs for name in per})
    many = len(names) > 6
    colors = {n: plt.get_cmap("tab20")(i % 20) for i, n in enumerate(names)} if many else {}
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.9 * len(runs)), sharex=True)
    axes = axes if len(runs) > 1 else [axes]
    for ax, (label, per) in zip(axes, runs):
        for name, rows in sorted(per.items()):
            t = [r[0] for r in rows]
            base = statistics.median(r[2] for r in rows)
            ax.plot(t, [r[2] / base for r in rows], "o-", ms=3, lw=0.8, label=name,
                    **({"color": colors[name]} if many else {}))
        ax.set_ylabel(label, rotation=0, ha="right", va="center")
        ax.axhline(1.0, color="0.8", lw=0.5)
        ax.set_ylim(0.4, 1.6)
    axes[0].set_title("frame ms per object of each probe / that strategy's median in the run")
    axes[-1].set_xlabel("seconds into the run")
    fig.tight_layout()  # before a legend outside the panels, which would squeeze them
    if many:
        axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        fig.savefig(argv[1], dpi=110, bbox_inches="tight")
    else:
        axes[0].legend(loc="upper right", fontsize=8, ncol=2)
        fig.savefig(argv[1], dpi=110)


if __name__ == "__main__":
    main(sys.argv)
