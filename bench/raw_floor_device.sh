#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine run for issue 10 (docs/BENCHMARKS.md, "The per-draw floor"): `bindery bench
# --raw-floor` (dynamic-offsets through bindery against the same calls on raw webgpu.h, 5
# alternating rounds at dynamic-offsets' largest count within 60 fps) next to the immediates
# strategy, at 640x480 and 1x1, on the carried binary (bench/device_env.sh says what to carry).
# When the carry also holds the immediates device test (bench/make_carry.sh copies it when built),
# its image and counter tests run first on this adapter. Results: $OUTDIR/raw_floor_*.txt/.log.
# Usage: bash bench/raw_floor_device.sh [STRATEGIES]   (default dynamic-offsets,immediates; the
# immediates test and soak run only when immediates is among them)
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
STRATEGIES=${1:-dynamic-offsets,immediates}
with_immediates=$([[ ",$STRATEGIES," == *,immediates,* ]] && echo 1 || echo 0)
T=.benchcarry/bin/immediates_device_test
if [ -x "$T" ] && [ "$with_immediates" = 1 ]; then
  echo "== $T"
  timeout 120 "$T" --gtest_filter='Immediates.RendersTheImageOfDynamicOffsets:Immediates.NoWriteBufferBytesPerObject:Immediates.EncoderState*:RawFloor.RawLoopIssuesTheCallsOfDynamicOffsets' \
    >"$OUTDIR/immediates_device_test.txt" 2>&1
  echo "rc=$?"
  tail -n 3 "$OUTDIR/immediates_device_test.txt"
fi
for size in 640x480 1x1; do
  echo "== bindery bench --strategies $STRATEGIES --raw-floor --size $size"
  timeout 240 "$B" bench --strategies "$STRATEGIES" --raw-floor --size "$size" \
    --frames 5 --max 2000000 --backend vulkan \
    >"$OUTDIR/raw_floor_$size.txt" 2>"$OUTDIR/raw_floor_$size.log"
  echo "rc=$?"
  head -n 3 "$OUTDIR/raw_floor_$size.txt"
done
# The strategies merged after the soak of docs/BENCHMARKS.md ("Soak") ran: the same soak.
if [ "$with_immediates" = 1 ]; then
  run soak_h200_immediates 120 soak --strategies immediates --frames 10000 --check-every 500 \
    --warmup 1000 --size 640x480 --backend vulkan
fi
