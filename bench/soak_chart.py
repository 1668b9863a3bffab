#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Chart of `bindery soak` runs: for each strategy, resident memory (MiB) and the live WebGPU
objects (bindery's count and the implementation's) over the frames, one column per run. A dashed
line marks the end of the warm-up. Flat lines are what a soak wants to see.

usage: soak_chart.py OUT.png LABEL=soak.txt [LABEL=...]
Each soak.txt is what `bindery soak` printed on stdout (its last line is the JSON).
Needs matplotlib (pip install matplotlib).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        lines = [line for line in f if line.strip()]
    return json.loads(lines[-1])


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out = argv[1]
    runs = []
    for arg in argv[2:]:
        label, path = arg.split("=", 1)
        runs.append((label, load(path)))
    fig, axes = plt.subplots(2, len(runs), figsize=(7 * len(runs), 8), squeeze=False)
    for col, (label, doc) in enumerate(runs):
        mem, objs = axes[0][col], axes[1][col]
        for r in doc["results"]:
            if "samples" not in r:
                continue
            frames = [s["frames_done"] for s in r["samples"]]
            mem.plot(frames, [s["resident_bytes"] / 2**20 for s in r["samples"]],
                     label=r["strategy"], linewidth=1.2)
            objs.plot(frames, [sum(s["live_objects"].values()) for s in r["samples"]],
                      label=r["strategy"], linewidth=1.2)
        for ax in (mem, objs):
            ax.axvline(doc["warmup"], color="grey", linestyle="--", linewidth=0.8)
            ax.set_xlabel("frames")
            ax.grid(alpha=0.3)
        mem.set_title(f"{label}: {doc['objects']} cubes, {doc['size'][0]}x{doc['size'][1]}, "
                      f"{doc['adapter'].get('name', '')}", fontsize=10)
        mem.set_ylabel("resident memory (MiB)")
        objs.set_ylabel("webgpu.h objects owned by bindery")
        objs.set_yscale("log")
        mem.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv)
