#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine run for issue 13 (docs/BENCHMARKS.md, "wgpu-native and Dawn side by side"):
# `bindery bench` from the wgpu-native build and from the Dawn build of the same commit, one after
# the other on the same adapter, at one target size per call (each bench takes up to 4 minutes):
#   BINDERY_CARRY_DAWN=build-dawn bash bench/make_carry.sh     # here: both binaries, ~46 MB
#   bash bench/dawn_device.sh 640x480                           # device call 1, carry [".gl", ".benchcarry"]
#   bash bench/dawn_device.sh 1x1                               # device call 2
# bench/device_env.sh checks that the wgpu-native binary sees the NVIDIA adapter; the Dawn binary
# (.benchcarry/dawn/bin/bindery, run under its carried loader) must name the same adapter in its
# `bindery info`. Results: $OUTDIR/bench_{wgpu-native,dawn}_SIZE.txt/.log, $OUTDIR/info_*.json.
size=${1:-640x480}
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
D=.benchcarry/dawn/bin/bindery
[ -x "$D" ] || { echo "no $D: BINDERY_CARRY_DAWN=build-dawn bash bench/make_carry.sh"; exit 3; }
"$B" info --backend vulkan >"$OUTDIR/info_wgpu-native.json" 2>>"$ENVLOG"
"$D" info --backend vulkan >"$OUTDIR/info_dawn.json" 2>>"$ENVLOG"
echo "dawn sees: $(grep -m1 -A1 '"adapter"' "$OUTDIR/info_dawn.json" | tail -n 1)"
if ! grep -q NVIDIA "$OUTDIR/info_dawn.json"; then
  echo "the Dawn build does not see the NVIDIA adapter; see $OUTDIR/info_dawn.json and env.txt"
  cat "$OUTDIR/info_dawn.json"
  exit 3
fi
for impl in wgpu-native dawn; do
  bin=$B
  [ "$impl" = dawn ] && bin=$D
  echo "== $impl: bindery bench --size $size --frames 5 --max 2000000 --backend vulkan"
  timeout 280 "$bin" bench --size "$size" --frames 5 --max 2000000 --backend vulkan \
    >"$OUTDIR/bench_${impl}_$size.txt" 2>"$OUTDIR/bench_${impl}_$size.log"
  echo "rc=$?"
  grep -v '^{' "$OUTDIR/bench_${impl}_$size.txt" | head -n 20
done
