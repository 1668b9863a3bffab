#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs behind docs/BENCHMARKS.md, "Render bundles with GPU-computed matrices"
# (issue 10 part 3), on the carried binary (bash bench/make_carry.sh here, then carry
# [".gl", ".benchcarry"]):
#   1. bindery bench: dynamic-offsets, render-bundles and bundles-gpu, 640x480 and 1x1
#   2. one render of bundles-gpu at 200,000 cubes, 640x480, for the per-pass GPU times
# Usage: bash bench/bundles_gpu_device.sh   (about 5 minutes). Results: $OUT/*.txt.
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
S=dynamic-offsets,render-bundles,bundles-gpu
run bench_640x480 200 bench --strategies $S --size 640x480 --frames 5 --max 4000000 --backend vulkan
run bench_1x1 150 bench --strategies $S --size 1x1 --frames 5 --max 4000000 --backend vulkan
run render_200k 60 render --strategy bundles-gpu --objects 200000 --frames 30 --size 640x480 \
  --backend vulkan
tail -n 1 "$OUTDIR/render_200k.txt" | head -c 3000
echo
