#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 20's missed target "CPU per frame at most 0.3 ms, flat from 10,000 to 1,000,000 objects"
# (the city with nothing moving): where the CPU time of a static frame goes at both sizes, from
# Linux perf on the device machine (every thread of the process, cpu-clock samples at 2 kHz).
# Here: BINDERY_CARRY_PERF=1 bash bench/make_carry.sh; on the device, carry [".gl",
# ".benchcarry"]: bash bench/city_static_profile_device.sh. Writes $OUT/city_static_profile.tgz:
# each size's render output (table + JSON) and perf's report by thread, library and function.
set -u
final=${OUT:-out}
OUT=$(mktemp -d)/city_static_profile
source bench/device_env.sh
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.benchcarry/perf/lib
P=$PWD/.benchcarry/perf/perf
city=(render --scene city --meshes 10000 --materials 1000 --textures 256 --moving 0
      --size 1280x720 --strategy gpu-driven --backend vulkan)
# Under perf: enough frames that the steady frames dominate, sampled only after the scene's
# generation and upload (-D, ms): 20,000 frames after 8 s at 10,000 objects (about 1,000 fps);
# 500 frames after 30 s at 1,000,000 (about 9 fps).
declare -A frames=([10000]=20000 [1000000]=500) delay=([10000]=8000 [1000000]=30000)
{ echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)"; "$P" --version; } \
  >"$OUTDIR/perf_env.txt" 2>&1
for n in 10000 1000000; do
  echo "== city, $n objects, nothing moving: plain, then under perf"
  timeout 300 "$B" "${city[@]}" --objects "$n" --frames 60 >"$OUTDIR/static_$n.txt" \
    2>"$OUTDIR/static_$n.log"
  echo "rc=$?"
  grep -v '^{' "$OUTDIR/static_$n.txt" | head -n 20
  timeout 400 "$P" record -e cpu-clock -F 2000 -D "${delay[$n]}" -o "$OUTDIR/perf_$n.data" -- \
    "$B" "${city[@]}" --objects "$n" --frames "${frames[$n]}" --quiet >"$OUTDIR/perf_run_$n.txt" \
    2>"$OUTDIR/perf_run_$n.log"
  echo "perf rc=$?"
  "$P" report -i "$OUTDIR/perf_$n.data" --stdio --sort comm,dso,symbol 2>&1 | head -n 200 \
    >"$OUTDIR/perf_report_$n.txt"
  head -n 40 "$OUTDIR/perf_report_$n.txt"
  rm -f "$OUTDIR/perf_$n.data"
done
mkdir -p "$final"
tar czf "$final/city_static_profile.tgz" -C "$(dirname "$OUTDIR")" city_static_profile
