#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs behind docs/BENCHMARKS.md, "Encoding on several threads" (issue 10 part 4),
# on the carried binary (bash bench/make_carry.sh here, then carry [".gl", ".benchcarry"]).
# Two calls, each under the device tool's 10 minutes:
#   bash bench/encode_threads_device.sh 1   the encode-threads device tests on this adapter (when
#                                           carried), then bindery bench of dynamic-offsets at
#                                           640x480 with --encode-threads 1 and 2
#   bash bench/encode_threads_device.sh 2   the same bench with --encode-threads 4 and 8, then one
#                                           render of 250,000 cubes with 1 and with 8 threads
# Results: $OUT/*.txt (stdout, JSON last line) and *.log (stderr).
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PART=${1:-1}
bench_n() {
  run "bench_640x480_t$1" 140 bench --strategies dynamic-offsets --encode-threads "$1" \
    --size 640x480 --frames 5 --start 16000 --max 2000000 --backend vulkan
}
if [ "$PART" = 1 ]; then
  T=.benchcarry/bin/encode_threads_device_test
  if [ -x "$T" ]; then
    echo "== $T (library tests; the CLI tests need the build tree)"
    timeout 150 "$T" --gtest_filter='EncodeThreads.*' >"$OUTDIR/encode_threads_device_test.txt" 2>&1
    echo "rc=$?"
    tail -n 3 "$OUTDIR/encode_threads_device_test.txt"
  fi
  bench_n 1
  bench_n 2
else
  bench_n 4
  bench_n 8
  for n in 1 8; do
    run "render_250k_t$n" 90 render --strategy dynamic-offsets --objects 250000 --frames 30 \
      --size 640x480 --encode-threads "$n" --backend vulkan
  done
fi
