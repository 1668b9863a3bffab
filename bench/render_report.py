#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise bench/render_sweep.sh results (docs/benchmarks/render.md).

usage: render_report.py [--chart PNG] LABEL=results.jsonl [LABEL=results.jsonl ...]

Prints markdown tables: per (scene, objects, size, strategy) the median over passes of each run's
per-frame medians (cpu, math, gpu, frame; ms), wait = frame - math - cpu (submit to idle: the
GPU's work plus the implementation's post-submit work, computed from the medians), the min..max over passes of cpu and frame, the CPU
cost per draw (cpu median / draws, ns) and, per pass, the ratio naive / dynamic-offsets of runs
made one after the other in the same pass (median and range over passes). With --chart, draws
frame ms (top row) and cpu ms (bottom row) against objects per strategy and size, one column per
machine (needs matplotlib).
"""
import json
import statistics
import sys
from collections import defaultdict


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            j = json.loads(line)
            r = j.get("report")
            if not r:
                rows.append({"failed": True, "cmd": j["cmd"], "rc": j["rc"], "pass": j["pass"]})
                continue
            t = r["timing_ms"]
            rows.append({
                "failed": False,
                "pass": j["pass"],
                "scene": r["scene"],
                "strategy": r["strategy"],
                "objects": r["objects"],
                "size": "x".join(str(v) for v in r["size"]),
                "frames": r["frames"],
                "draws": r["perFrame"]["draws"],
                "cpu": t["cpu_median"],
                "math": t["math_median"],
                "gpu": t["gpu_median"],
                "frame": t["frame_median"],
                "wall": j["wall_s"],
                "load": j.get("loadavg1"),
                "adapter": r["adapter"]["name"],
                "driver": r["adapter"]["driver"],
                "align": r["limits"]["minUniformBufferOffsetAlignment"],
                "stride": r["objectStrideBytes"],
                "setBindGroup": r["perFrame"]["setBindGroup"],
                "writeBuffer": r["perFrame"]["writeBuffer"],
                "bytesUploaded": r["perFrame"]["bytesUploaded"],
                "bindGroupsCreated": r["init"]["bindGroupsCreated"],
            })
    return rows


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, nd=2):
    if x is None:
        return "n/a"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.{nd}f}"


def scene_key(r):
    return (r["scene"], r["objects"], r["size"])


def summarise(label, rows):
    ok = [r for r in rows if not r["failed"]]
    bad = [r for r in rows if r["failed"]]
    groups = defaultdict(list)
    for r in ok:
        groups[scene_key(r) + (r["strategy"],)].append(r)
    a = ok[0]
    passes = sorted({r["pass"] for r in ok})
    print(f"### {label}: {a['adapter']} ({a['driver']}), minUniformBufferOffsetAlignment {a['align']}, "
          f"{len(ok)} runs in {len(passes)} passes" + (f", {len(bad)} failed/skipped" if bad else ""))
    print()
    print("| scene | objects (draws) | size | strategy | frames | cpu ms | math ms | gpu ms | frame ms | "
          "wait ms | cpu ms min..max | frame ms min..max | cpu ns/draw |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    order = sorted(groups, key=lambda k: (k[0] != "cubes", k[1], k[2] != "1x1", k[3] != "naive"))
    for k in order:
        g = groups[k]
        cpu = med([r["cpu"] for r in g])
        frame = med([r["frame"] for r in g])
        draws = g[0]["draws"]
        name = "cubes" if k[0] == "cubes" else "glTF engine x100"
        print(f"| {name} | {k[1]} ({draws}) | {k[2]} | {k[3]} | {g[0]['frames']} | {fmt(cpu)} | "
              f"{fmt(med([r['math'] for r in g]))} | {fmt(med([r['gpu'] for r in g]))} | {fmt(frame)} | "
              f"{fmt(med([r['frame'] - r['math'] - r['cpu'] for r in g]))} | "
              f"{fmt(min(r['cpu'] for r in g))}..{fmt(max(r['cpu'] for r in g))} | "
              f"{fmt(min(r['frame'] for r in g))}..{fmt(max(r['frame'] for r in g))} | "
              f"{cpu * 1e6 / draws:.0f} |")
    print()
    # Ratios naive / dynamic-offsets, pass by pass (adjacent runs).
    print("| scene | objects | size | cpu naive/dyn (median, range over passes) | "
          "frame naive/dyn | gpu naive/dyn |")
    print("|---|---|---|---|---|---|")
    by_pass = {(scene_key(r), r["strategy"], r["pass"]): r for r in ok}
    skeys = sorted({scene_key(r) for r in ok}, key=lambda k: (k[0] != "cubes", k[1], k[2] != "1x1"))
    for sk in skeys:
        ratios = defaultdict(list)
        for p in passes:
            n = by_pass.get((sk, "naive", p))
            d = by_pass.get((sk, "dynamic-offsets", p))
            if not n or not d:
                continue
            for m in ("cpu", "frame", "gpu"):
                if n[m] is not None and d[m]:
                    ratios[m].append(n[m] / d[m])
        if not ratios:
            continue

        def cell(m):
            xs = ratios[m]
            if not xs:
                return "n/a"
            return f"{statistics.median(xs):.1f}x ({min(xs):.1f}..{max(xs):.1f})" if len(xs) > 1 \
                else f"{xs[0]:.1f}x"
        name = "cubes" if sk[0] == "cubes" else "glTF engine x100"
        print(f"| {name} | {sk[1]} | {sk[2]} | {cell('cpu')} | {cell('frame')} | {cell('gpu')} |")
    print()
    for r in bad:
        print(f"- not measured (rc {r['rc']}, pass {r['pass']}): `{r['cmd']}`")
    if bad:
        print()
    return groups


def chart(path, summaries):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = (("frame", "frame ms"), ("cpu", "cpu ms (uploads + encode + submit)"))
    fig, axes = plt.subplots(len(metrics), len(summaries), figsize=(6.2 * len(summaries), 8.6),
                             squeeze=False)
    colors = {"naive": "tab:red", "dynamic-offsets": "tab:blue"}
    styles = {"640x480": "-", "1x1": "--"}
    for row, (metric, ylabel) in enumerate(metrics):
        for ax, (label, groups) in zip(axes[row], summaries):
            adapter = None
            for strategy in ("naive", "dynamic-offsets"):
                for size in ("640x480", "1x1"):
                    pts = sorted((k[1], g) for k, g in groups.items()
                                 if k[0] == "cubes" and k[2] == size and k[3] == strategy)
                    if not pts:
                        continue
                    xs = [p[0] for p in pts]
                    ys = [med([r[metric] for r in p[1]]) for p in pts]
                    lo = [y - min(r[metric] for r in p[1]) for y, p in zip(ys, pts)]
                    hi = [max(r[metric] for r in p[1]) - y for y, p in zip(ys, pts)]
                    adapter = pts[0][1][0]["adapter"]
                    ax.errorbar(xs, ys, yerr=[lo, hi], color=colors[strategy], linestyle=styles[size],
                                marker="o", ms=4, capsize=3, label=f"{strategy}, {size}")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("objects (cubes, one draw each)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{label}: {adapter} - {metric} ms", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
    fig.suptitle("bindery render, naive vs dynamic-offsets: per-frame median, median over passes "
                 "(bars: min..max over passes)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"wrote {path}", file=sys.stderr)


def main(argv):
    chart_path = None
    if len(argv) >= 2 and argv[0] == "--chart":
        chart_path = argv[1]
        argv = argv[2:]
    summaries = []
    for arg in argv:
        label, path = arg.split("=", 1)
        summaries.append((label, summarise(label, load(path))))
    if chart_path:
        chart(chart_path, summaries)


if __name__ == "__main__":
    main(sys.argv[1:])
