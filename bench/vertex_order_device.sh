#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs for --vertex-order (issue 28: every mesh the pool takes is reordered for the
# post-transform vertex cache), one call on the carried binary, wgpu-native on the H200:
#   a UV sphere of 128,000 triangles (bench/make_sphere_glb.py) in row order and with its
#   triangles shuffled (the cache-hostile order: about 3 vertices shaded per triangle), x100
#   copies (12.8 million triangles a frame), gpu-driven's per-object path (--clusters off),
#   occlusion off (every copy drawn, back faces reach the rasterizer's culling), each drawn with
#   --vertex-order source and optimized, at 8x8 (the front end alone: what a triangle costs the
#   vertex stage) and at 1280x720.
# Prepare here: bash bench/make_carry.sh, then
#   python3 bench/make_sphere_glb.py 128000 .benchcarry/models/sphere128000.glb
#   python3 bench/make_sphere_glb.py 128000 .benchcarry/models/sphere128000_shuffled.glb --order shuffled
# (where the device has python3 the script writes any that are missing itself), carry
# [".gl", ".benchcarry"].
# Usage: OUT=... bash bench/vertex_order_device.sh
# Results: $OUT/vertex_order.jsonl (each run's JSON line with "run": its name first),
# $OUT/vertex_order.txt (GPU ms and ns per triangle per run: the sphere's exact triangle count,
# 127,806, x100), $OUT/vertex_order.tar.gz (tables, JSON, logs).
FINAL=${OUT:-out/vertex_order_device}
mkdir -p "$FINAL"
OUT=/tmp/vertex_order_device source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
M=.benchcarry/models
T=128000
N=100
# make_sphere_glb.py's count for T: 2 x segments x (rings - 1)
TRIS=$(awk -v t=$T 'BEGIN { s = int(sqrt(t)); if (s < 8) s = 8; r = int(t / (2 * s)) + 1;
  if (r < 4) r = 4; print 2 * s * (r - 1) }')
for order in rows shuffled; do
  f=$M/sphere${T}.glb
  [ "$order" = shuffled ] && f=$M/sphere${T}_shuffled.glb
  if [ ! -f "$f" ] && command -v python3 >/dev/null; then
    mkdir -p "$M"
    python3 bench/make_sphere_glb.py "$T" "$f" --order "$order"
  fi
  [ -f "$f" ] || { echo "missing $f (see the header)"; exit 4; }
done
R=(render --strategy gpu-driven --clusters off --occlusion off --backend vulkan --instances "$N"
   --frames 30)
names=()
for model in rows shuffled; do
  f=$M/sphere${T}.glb
  [ "$model" = shuffled ] && f=$M/sphere${T}_shuffled.glb
  for size in 8x8 1280x720; do
    for vo in source optimized; do
      name="sphere${T}_${model}_x${N}_${size}_${vo}"
      run "$name" 150 "${R[@]}" --model "$f" --size "$size" --vertex-order "$vo"
      names+=("$name")
    done
  done
done
: >"$FINAL/vertex_order.jsonl"
{
  printf '%-48s %10s %14s\n' run gpu_ms ns_per_triangle
  for name in "${names[@]}"; do
    line=$(grep '^{' "$OUTDIR/$name.txt" | tail -n 1)
    [ -n "$line" ] || { printf '%-48s %10s\n' "$name" failed; continue; }
    echo "{\"run\":\"$name\",${line#\{}" >>"$FINAL/vertex_order.jsonl"
    gpu=$(echo "$line" | grep -o '"gpu_median":[0-9.eE+-]*' | cut -d: -f2)
    awk -v n="$name" -v g="$gpu" -v t=$((TRIS * N)) \
      'BEGIN { printf "%-48s %10.3f %14.3f\n", n, g, g * 1e6 / t }'
  done
} | tee "$FINAL/vertex_order.txt"
tar -czf "$FINAL/vertex_order.tar.gz" -C "$OUTDIR" .
