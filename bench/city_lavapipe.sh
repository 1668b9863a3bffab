#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/BENCHMARKS.md, "The city on lavapipe" (issue 20): the city at 20,000 objects and 1,000
# meshes (640x480, 10% of the objects moved by the application each frame) through every
# strategy that draws it and through every draw-path rung of gpu-driven, on this machine's
# lavapipe. Strategies are run round-robin, ROUNDS times each, so that a change of the machine's
# load falls on all of them; the table gives each one's median throughput and its ratio to the
# best CPU strategy.
# Usage: bash bench/city_lavapipe.sh [OUTDIR] [ROUNDS]   (build/bindery; about 10 minutes)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${BINDERY:-$root/build/bindery}
out=${1:-$root/build/city_lavapipe}
rounds=${2:-3}
mkdir -p "$out"
city=(--scene city --objects 20000 --meshes 1000 --size 640x480 --frames 12 --quiet)
runs=(naive split-uniforms buffer-offsets buffer-offsets-mapped dynamic-offsets mapped-staging
      render-bundles storage-instancing immediates gpu-culling
      gpu-driven:multi-draw-indirect-count gpu-driven:multi-draw-indirect gpu-driven:bundle
      gpu-driven:loop gpu-driven:binding-array)
for r in $(seq 1 "$rounds"); do
  for run in "${runs[@]}"; do
    strategy=${run%%:*}
    extra=()
    case "$run" in
      *:binding-array) extra=(--material-backend binding-array) ;;
      *:*) extra=(--draw-path "${run#*:}") ;;
    esac
    echo "round $r/$rounds: $run" >&2
    "$B" render "${city[@]}" --strategy "$strategy" "${extra[@]}" \
      >"$out/${run//:/_}_$r.json" 2>"$out/${run//:/_}_$r.log" || echo "  $run: exit $?" >&2
  done
done
python3 - "$out" "$rounds" "${runs[@]}" <<'EOF'
import json, statistics, sys
out, rounds, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cpu = {"naive", "split-uniforms", "buffer-offsets", "buffer-offsets-mapped", "dynamic-offsets",
       "mapped-staging", "render-bundles", "storage-instancing", "immediates"}
rows = {}
for run in runs:
    fps, gpu, drawn = [], [], None
    for r in range(1, rounds + 1):
        try:
            lines = open(f"{out}/{run.replace(':', '_')}_{r}.json").read().strip().splitlines()
            j = json.loads(lines[-1])
        except (OSError, ValueError, IndexError):
            continue
        fps.append(j["throughputFps"])
        gpu.append(j["timing_ms"].get("gpu_median", 0.0))
        if "culling" in j: drawn = j["culling"]["drawn"]
    if fps: rows[run] = (statistics.median(fps), statistics.median(gpu), drawn, len(fps))
best_cpu = max((v[0] for k, v in rows.items() if k in cpu), default=0.0)
print(f"{'strategy':<40}{'fps':>8}{'GPU ms':>9}{'drawn':>8}{'x best CPU':>12}{'runs':>6}")
for run in runs:
    if run not in rows:
        print(f"{run:<40}{'failed or unavailable':>43}")
        continue
    f, g, d, n = rows[run]
    ratio = f / best_cpu if best_cpu else float("nan")
    print(f"{run:<40}{f:>8.2f}{g:>9.2f}{(d if d is not None else 'all')!s:>8}{ratio:>12.2f}{n:>6}")
EOF
