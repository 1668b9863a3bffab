#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs behind docs/BENCHMARKS.md, "Compute rasterizer" (issue 29), one call on the
# carried binary (bash bench/make_carry.sh, then bench/make_sphere_glb.py for the spheres below
# into .benchcarry/models/, carry [".gl", ".benchcarry"]), 1280x720, wgpu-native on the H200,
# gpu-driven with clusters, hardware and compute rasterizer side by side in one run:
#   what a triangle costs by size: UV spheres of 2k..512k triangles x 100 at full detail
#   (--lod-error 0, occlusion off: every front and back face reaches a rasterizer), --png for the
#   covered pixels;
#   the scenes: the engine glTF x1000 / x10,000 at 1 px, the city of 1,000,000 objects moving and
#   static, each with --rasterizer hardware, compute and auto.
# Usage: OUT=... bash bench/raster_device.sh [spheres|sizes|engine|city|quick]  (default: all; one part per
# call keeps each call inside the device's 10 minutes). Results: $OUT/raster.tar.gz (tables,
# JSON, PNGs).
FINAL=${OUT:-out/raster_device}
mkdir -p "$FINAL"
OUT=/tmp/raster_device source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
M=.benchcarry/models
R=(render --strategy gpu-driven --size 1280x720 --backend vulkan --clusters on)
part=${1:-all}
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }
# quick runs only its own list (below)
want spheres && for t in 2000 8000 32000 128000 512000; do
  for r in hardware compute; do
    run "sphere${t}_x100_${r}" 150 "${R[@]}" --model "$M/sphere$t.glb" --instances 100 \
      --frames 20 --lod-error 0 --occlusion off --rasterizer "$r" \
      --png "$OUTDIR/sphere${t}_x100_${r}.png"
  done
done
# sizes: fewer copies, larger triangles (4..100 pixels); one mesh filling the view at 1 px error
# (1M triangles carried, 10M written on the device where it has python3)
if [ "$part" = sizes ]; then
  for tn in 2000:4 2000:16 8000:16 32000:16; do
    t=${tn%:*} n=${tn#*:}
    for r in hardware compute; do
      run "sphere${t}_x${n}_${r}" 60 "${R[@]}" --model "$M/sphere$t.glb" --instances "$n" \
        --frames 20 --lod-error 0 --occlusion off --rasterizer "$r" \
        --png "$OUTDIR/sphere${t}_x${n}_${r}.png"
    done
  done
  big=("$M/sphere1000000.glb")
  if command -v python3 >/dev/null; then
    python3 bench/make_sphere_glb.py 10000000 /tmp/sphere10000000.glb && big+=(/tmp/sphere10000000.glb)
  fi
  for m in "${big[@]}"; do
    name=$(basename "$m" .glb)
    for r in hardware compute; do
      run "${name}_x1_${r}" 150 "${R[@]}" --model "$m" --frames 20 --lod-error 1 --rasterizer "$r" \
        --png "$OUTDIR/${name}_x1_${r}.png"
    done
  done
fi
CITY=(--scene city --objects 1000000 --meshes 10000 --materials 1000 --textures 256)
want engine && for r in hardware compute auto; do
  run "engine_x1000_$r" 150 "${R[@]}" --model "$M/2CylinderEngine.glb" --instances 1000 \
    --frames 30 --lod-error 1 --rasterizer "$r"
  run "engine_x10000_$r" 150 "${R[@]}" --model "$M/2CylinderEngine.glb" --instances 10000 \
    --frames 12 --lod-error 1 --rasterizer "$r"
done
# quick: the scenes in order of what they decide, each once, for a short device budget
if [ "$part" = quick ]; then
  E=(--model "$M/2CylinderEngine.glb" --lod-error 1)
  run engine_x1000_compute 70 "${R[@]}" "${E[@]}" --instances 1000 --frames 30 --rasterizer compute
  run engine_x1000_hardware 70 "${R[@]}" "${E[@]}" --instances 1000 --frames 30 --rasterizer hardware
  run city_1m_compute 90 "${R[@]}" "${CITY[@]}" --moving 0.1 --frames 30 --lod-error 1 --rasterizer compute
  run engine_x10000_compute 70 "${R[@]}" "${E[@]}" --instances 10000 --frames 12 --rasterizer compute
  run city_1m_static_compute 90 "${R[@]}" "${CITY[@]}" --moving 0 --frames 30 --lod-error 1 --rasterizer compute
fi
want city && for r in hardware compute auto; do
  run "city_1m_$r" 150 "${R[@]}" "${CITY[@]}" --moving 0.1 --frames 30 --lod-error 1 \
    --rasterizer "$r"
  run "city_1m_static_$r" 150 "${R[@]}" "${CITY[@]}" --moving 0 --frames 30 --lod-error 1 \
    --rasterizer "$r"
done
tar -czf "$FINAL/raster.tar.gz" -C "$OUTDIR" .
