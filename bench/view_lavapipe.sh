#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/BENCHMARKS.md, "bindery view: a window on lavapipe under Xvfb" (issue 21): 640x480, the
# article's 1,000 cubes, for naive, dynamic-offsets and gpu-driven:
#   - in a window with each present mode (fifo, mailbox, immediate) against `render` offscreen at
#     the same size: frames per second, and what presenting costs per frame (the view's `present`:
#     surface texture acquired, the frame blitted and the panel drawn into it, submitted and
#     presented);
#   - frames in flight 1, 2, 3 (mailbox): the median latency from a frame's first CPU work to the
#     GPU finishing it (input-to-photon is not measurable on Xvfb).
# Medians over the last 120 frames of 150. Needs xvfb-run (scripts/setup.sh installs it).
# Usage: bash bench/view_lavapipe.sh [OUTDIR]   (build/bindery; about 10 minutes)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${BINDERY:-$root/build/bindery}
out=${1:-$root/build/view_lavapipe}
mkdir -p "$out"
common=(--objects 1000 --size 640x480)
view() {  # NAME ARGS...: one window run; its summary line to NAME.txt
  local name=$1
  shift
  echo "view $*" >&2
  timeout 600 xvfb-run -a -s "-screen 0 1024x768x24" "$B" view "${common[@]}" --frames 150 "$@" \
    >"$out/$name.txt" 2>&1 || echo "  exit $?" >&2
}
for s in naive dynamic-offsets gpu-driven; do
  for m in fifo mailbox immediate; do view "window_${s}_$m" --strategy "$s" --present-mode "$m"; done
  echo "render --strategy $s" >&2
  "$B" render "${common[@]}" --frames 150 --strategy "$s" --quiet >"$out/offscreen_$s.json" 2>/dev/null
done
for k in 1 2 3; do
  view "inflight_$k" --strategy dynamic-offsets --present-mode mailbox --frames-in-flight "$k"
done
python3 - "$out" <<'EOF'
import json, re, sys
out = sys.argv[1]
pat = re.compile(r"interval ([\d.]+) ms \(([\d.]+) fps\), present ([\d.]+) ms, cpu ([\d.]+) ms, "
                 r"latency ([\d.]+) ms")
def summary(name):
    try:
        m = pat.search(open(f"{out}/{name}.txt").read())
    except OSError:
        return None
    return tuple(float(x) for x in m.groups()) if m else None
print(f"{'strategy':<18}{'offscreen fps':>14}{'fifo fps':>10}{'mailbox fps':>12}"
      f"{'immediate fps':>15}{'present ms (fifo/mailbox/immediate)':>38}")
for s in ["naive", "dynamic-offsets", "gpu-driven"]:
    try:
        off = json.loads(open(f"{out}/offscreen_{s}.json").read().strip().splitlines()[-1])
        off_fps = f"{off['throughputFps']:.1f}"
    except (OSError, ValueError, IndexError, KeyError):
        off_fps = "-"
    rows = [summary(f"window_{s}_{m}") for m in ["fifo", "mailbox", "immediate"]]
    fps = [f"{r[1]:.1f}" if r else "-" for r in rows]
    present = " / ".join(f"{r[2]:.1f}" if r else "-" for r in rows)
    print(f"{s:<18}{off_fps:>14}{fps[0]:>10}{fps[1]:>12}{fps[2]:>15}{present:>38}")
print()
print(f"{'frames in flight':<18}{'fps':>8}{'latency ms':>12}{'cpu ms':>9}{'present ms':>12}")
for k in [1, 2, 3]:
    r = summary(f"inflight_{k}")
    if r:
        print(f"{k:<18}{r[1]:>8.1f}{r[4]:>12.1f}{r[3]:>9.2f}{r[2]:>12.1f}")
    else:
        print(f"{k:<18}{'failed':>8}")
EOF
