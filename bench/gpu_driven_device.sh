#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs behind docs/BENCHMARKS.md, "GPU-driven rendering at scale" (one call, on
# the carried binary: bash bench/make_carry.sh here, then carry [".gl", ".benchcarry"]):
#   1. bindery bench over every strategy, article scene, 640x480 (frames in flight 2; the table
#      also holds each strategy's serial figure)
#   2. gpu-driven at the article's scene up to 10,000,000 cubes, and with --spread 8
#   3. one render each of gpu-driven at 1,000,000 (article) and 10,000,000 (--spread 8) cubes,
#      for the per-pass GPU times
#   4. the CPU-side maths on all cores vs one (storage-instancing, 1,000,000 cubes)
#   5. the tracker benchmark on the H200 host
# Usage: bash bench/gpu_driven_device.sh 1   (runs 1 and 5, about 4 minutes)
#        bash bench/gpu_driven_device.sh 2   (runs 2 to 4, about 6 minutes)
# Results: $OUT/*.txt (tables + JSON last lines).
part=${1:-1}
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
if [ "$part" = 1 ]; then
run bench_all 240 bench --size 640x480 --frames 5 --max 4000000 --backend vulkan
echo "== tracker_bench"
timeout 60 .benchcarry/bin/tracker_bench --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true >"$OUTDIR/tracker_bench.txt" 2>&1
echo "rc=$?"
tail -n 12 "$OUTDIR/tracker_bench.txt"
exit 0
fi
run bench_driven 120 bench --strategies gpu-driven --size 640x480 --frames 5 --start 250000 \
  --max 10000000 --backend vulkan
run bench_driven_spread8 120 bench --strategies gpu-driven --spread 8 --size 640x480 --frames 5 \
  --start 1000000 --max 10000000 --backend vulkan
run render_1m 60 render --strategy gpu-driven --objects 1000000 --frames 30 --backend vulkan
run render_10m_spread8 90 render --strategy gpu-driven --objects 10000000 --spread 8 --frames 20 \
  --backend vulkan
run render_1m_occlusion_off 60 render --strategy gpu-driven --objects 1000000 --frames 30 \
  --occlusion off --backend vulkan
run math_1_thread 60 render --strategy storage-instancing --objects 1000000 --frames 10 \
  --threads 1 --backend vulkan
run math_all_threads 60 render --strategy storage-instancing --objects 1000000 --frames 10 \
  --threads 0 --backend vulkan
