#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine run behind docs/BENCHMARKS.md, "Object table: CPU per moved object" (issue 30),
# one call on the carried binaries (bash bench/make_carry.sh here, then carry [".gl",
# ".benchcarry"]), on a 16-core host with the H200: bench/object_table_bench (one thread at 10k,
# 100k, 1M objects, 0.1-100% moved, contiguous / sorted / random ids, memcpy of the same bytes
# and a store-only loop into staging beside it; 1, 2, 4, 8, 16 writer threads at 1M objects;
# the store widths of 32 and 64 bytes and the 1 KB batch, which cost what 16 does, are left out),
# then the city of 1,000,000 objects with 100,000 cars moved by the renderer's matrix threads
# (cpuNsPerMovedObject, the frame's CPU), and the static city's CPU per frame at 10,000, 100,000
# and 1,000,000 objects.
# Usage: OUT=... bash bench/object_table_device.sh [all|bench|scenes]   (bench: the benchmark
# program alone; scenes: the city runs alone; one device call each when both do not fit one)
# Prints the benchmark's JSON (and the city's JSON line); results also in
# $OUT/object_table.tar.gz.
FINAL=${OUT:-out/object_table_device}
mkdir -p "$FINAL"
OUT=/tmp/object_table_device source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
part=${1:-all}
echo "== cores: $(nproc)"
if [[ $part != scenes ]]; then
echo "== object_table_bench"
timeout 400 .benchcarry/bin/object_table_bench --benchmark_counters_tabular=true \
  --benchmark_filter='-BM_StoreToStaging/.*/store_bytes:(32|64|2)/' \
  --benchmark_format=json --benchmark_out="$OUTDIR/object_table.json" \
  >"$OUTDIR/object_table.txt" 2>"$OUTDIR/object_table.log"
echo "rc=$?"
echo "object_table_bench done at $(date +%T)"
fi
if [[ $part != bench ]]; then
run city_1m_moving 150 render --strategy gpu-driven --size 1280x720 --backend vulkan \
  --scene city --objects 1000000 --meshes 10000 --materials 1000 --textures 256 --moving 0.1 \
  --frames 30
grep '^{' "$OUTDIR/city_1m_moving.txt" | tail -n 1
for n in 10000 100000 1000000; do
  run "city_static_$n" 120 render --strategy gpu-driven --size 1280x720 --backend vulkan \
    --scene city --objects "$n" --meshes 10000 --materials 1000 --textures 256 --moving 0 \
    --frames 120
done
fi
tar -czf "$FINAL/object_table.tar.gz" -C "$OUTDIR" .
