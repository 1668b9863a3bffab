#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs behind docs/BENCHMARKS.md's "Geometry at the cost of the screen" section
# (issues 28 and 29 at one commit): gpu-driven with clusters at 1 px of error, 1280x720,
# wgpu-native on the H200, the rasterizers side by side in one call per part. Carry [".gl",
# ".benchcarry"] after `bash bench/make_carry.sh` (the dawn part: `BINDERY_CARRY_DAWN=build-dawn
# bash bench/make_carry.sh`); the spheres are written on the device by bench/make_sphere_glb.py.
# Usage: OUT=... bash bench/lod_device.sh engine|city|sizes|mesh|dawn   (one part per device call,
# each inside its 10 minutes). Results: $OUT/lod_PART.tar.gz (each run's table and JSON line,
# stderr, PNGs where written).
part=${1:?engine, city, sizes, mesh or dawn}
FINAL=${OUT:-out/lod_device}
mkdir -p "$FINAL"
OUT=/tmp/lod_device source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
M=.benchcarry/models
R=(render --strategy gpu-driven --size 1280x720 --backend vulkan --clusters on --lod-error 1)
E=(--model "$M/2CylinderEngine.glb")
CITY=(--scene city --objects 1000000 --meshes 10000 --materials 1000 --textures 256)
case "$part" in
  engine)
    # x100 .. x10,000 with each rasterizer; the per-object path at x1000 for scale.
    for n in 100 1000 10000; do
      frames=30; [ "$n" = 10000 ] && frames=12
      for r in hardware compute auto; do
        run "engine_x${n}_$r" 100 "${R[@]}" "${E[@]}" --instances "$n" --frames "$frames" \
          --rasterizer "$r"
      done
    done
    run engine_x1000_off 60 render --strategy gpu-driven --size 1280x720 --backend vulkan \
      --clusters off "${E[@]}" --instances 1000 --frames 10
    ;;
  city)
    for r in hardware compute auto; do
      run "city_1m_$r" 110 "${R[@]}" "${CITY[@]}" --moving 0.1 --frames 20 --rasterizer "$r"
    done
    for r in hardware compute; do
      run "city_1m_static_$r" 110 "${R[@]}" "${CITY[@]}" --moving 0 --frames 20 --rasterizer "$r"
    done
    ;;
  sizes)
    # What a triangle costs each rasterizer from about 4 to 100 pixels: UV spheres at full detail,
    # occlusion off (every triangle reaches a rasterizer), few copies.
    for t in 2000 8000 32000; do
      python3 bench/make_sphere_glb.py "$t" "/tmp/sphere$t.glb" >/dev/null
    done
    for tn in 2000:1 2000:4 2000:16 8000:16 32000:16; do
      t=${tn%:*} n=${tn#*:}
      for r in hardware compute; do
        run "sphere${t}_x${n}_${r}" 60 render --strategy gpu-driven --size 1280x720 \
          --backend vulkan --clusters on --lod-error 0 --occlusion off --model "/tmp/sphere$t.glb" \
          --instances "$n" --frames 20 --rasterizer "$r" --png "$OUTDIR/sphere${t}_x${n}_${r}.png"
      done
    done
    ;;
  mesh)
    # One mesh of 1 and of 10 million triangles filling the view at 1 px (the 10 million as
    # bands, one primitive each: bindery's glTF accessors hold at most 16,777,216 elements).
    for t in 1000000 10000000; do
      python3 bench/make_sphere_glb.py "$t" "/tmp/sphere$t.glb" >/dev/null
      for r in hardware compute auto; do
        run "sphere${t}_x1_$r" 120 "${R[@]}" --model "/tmp/sphere$t.glb" --frames 20 \
          --rasterizer "$r" --png "$OUTDIR/sphere${t}_x1_$r.png"
      done
    done
    ;;
  dawn)
    # The city through Dawn (its core rung: no 64-bit atomics) and wgpu-native, the same command.
    D=.benchcarry/dawn/bin/bindery
    [ -x "$D" ] || { echo "no $D: BINDERY_CARRY_DAWN=build-dawn bash bench/make_carry.sh"; exit 3; }
    for impl in wgpu-native dawn; do
      bin=$B
      [ "$impl" = dawn ] && bin=$D
      for r in hardware auto; do
        echo "== $impl city $r"
        timeout 120 "$bin" "${R[@]}" "${CITY[@]}" --moving 0.1 --frames 20 --rasterizer "$r" \
          >"$OUTDIR/city_1m_${r}_$impl.txt" 2>"$OUTDIR/city_1m_${r}_$impl.log"
        echo "rc=$?"
        grep -v '^{' "$OUTDIR/city_1m_${r}_$impl.txt" | head -n 20
      done
    done
    ;;
  *) echo "unknown part $part"; exit 2 ;;
esac
tar -czf "$FINAL/lod_$part.tar.gz" -C "$OUTDIR" .
