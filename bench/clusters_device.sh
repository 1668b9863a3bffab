#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs behind docs/BENCHMARKS.md, "Clusters and level of detail" (issue 28), one
# call on the carried binary (bash bench/make_carry.sh here, then carry [".gl", ".benchcarry"]),
# 1280x720, wgpu-native on the H200, each scene with the per-object path (--clusters off) and the
# cluster path side by side in one run:
#   engine glTF x100 / x1000 / x10,000: clusters off, on at 1 px; x100 and x1000 on at 0 px (full
#   detail through clusters), x100 also at 8x8 (what a triangle costs each path's front end); the city of 1,000,000 objects (10,000 meshes, 1,000 materials, 256 textures,
#   100,000 moved, occlusion on): off, on, on with nothing moving.
# Usage: OUT=... bash bench/clusters_device.sh [off]   (off: only the --clusters off runs)
# Results: $OUT/clusters.tar.gz (tables + JSON).
FINAL=${OUT:-out/clusters_device}
mkdir -p "$FINAL"
OUT=/tmp/clusters_device source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
only_off=${1:-}
if [ "$only_off" = off ]; then  # only the runs whose name ends in _off or _off_8x8
  eval "$(declare -f run | sed '1s/^run/device_env_run/')"
  run() { case "$1" in *_off | *_off_8x8) device_env_run "$@" ;; esac; }
fi
E=.benchcarry/models/2CylinderEngine.glb
R=(render --strategy gpu-driven --size 1280x720 --backend vulkan)
CITY=(--scene city --objects 1000000 --meshes 10000 --materials 1000 --textures 256)
for n in 1000 100 10000; do
  frames=30
  [ "$n" = 10000 ] && frames=12
  run "engine_x${n}_off" 150 "${R[@]}" --model "$E" --instances "$n" --frames "$frames" \
    --clusters off
  run "engine_x${n}_on" 150 "${R[@]}" --model "$E" --instances "$n" --frames "$frames" \
    --clusters on --lod-error 1
done
# What a triangle costs each draw path at full detail: the per-object path (indexed multi-draw,
# the pool's vertex buffer) and the cluster path (one index buffer, vertices pulled from
# storage), at 1280x720 and at 8x8 (the front end alone).
run engine_x100_off_8x8 120 "${R[@]/1280x720/8x8}" --model "$E" --instances 100 --frames 30 \
  --clusters off
run engine_x100_on_tau0 120 "${R[@]}" --model "$E" --instances 100 --frames 30 --clusters on \
  --lod-error 0
run engine_x100_on_tau0_8x8 120 "${R[@]/1280x720/8x8}" --model "$E" --instances 100 --frames 30 \
  --clusters on --lod-error 0
run engine_x1000_on_tau0 150 "${R[@]}" --model "$E" --instances 1000 --frames 20 --clusters on \
  --lod-error 0
run city_1m_off 150 "${R[@]}" "${CITY[@]}" --moving 0.1 --frames 30 --clusters off
run city_1m_on 150 "${R[@]}" "${CITY[@]}" --moving 0.1 --frames 30 --clusters on --lod-error 1
run city_1m_static_on 150 "${R[@]}" "${CITY[@]}" --moving 0 --frames 30 --clusters on \
  --lod-error 1
tar -czf "$FINAL/clusters.tar.gz" -C "$OUTDIR" .
