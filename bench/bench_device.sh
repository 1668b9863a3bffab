#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine run of `bindery bench` (docs/BENCHMARKS.md, "Objects per frame budget"): the most
# cubes each strategy draws within a 60 fps budget, at 640x480 and at 1x1 (render off), on the
# carried binary (bench/device_env.sh says what to carry). Results: $OUTDIR/bench_*.txt / .json.
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
for size in 640x480 1x1; do
  echo "== bindery bench --size $size"
  timeout 240 "$B" bench --size "$size" --frames 5 --max 2000000 --backend vulkan \
    >"$OUTDIR/bench_$size.txt" 2>"$OUTDIR/bench_$size.log"
  echo "rc=$?"
  head -n 4 "$OUTDIR/bench_$size.txt"
done
