#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine run behind docs/BENCHMARKS.md, "Soak" (issue 9), on the carried binary
# (bash bench/make_carry.sh here, then carry [".gl", ".benchcarry"]): bindery soak over every
# strategy, 10,000 frames each, 1,000 cubes at 640x480, a sample every 500 frames after 1,000
# warm-up frames (about 4 minutes).
# Usage: bash bench/soak_device.sh   Results: $OUT/*.txt (tables + JSON last lines).
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
run soak_h200 420 soak --frames 10000 --check-every 500 --warmup 1000 --size 640x480 \
  --backend vulkan
tail -n 3 "$OUTDIR/soak_h200.log"
