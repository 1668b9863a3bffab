#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where the CPU time of a static frame goes (issue 30's last bullet; issue 20 before it): the city
# with nothing moving at 10,000 and 1,000,000 objects, sampled by Linux perf with call graphs
# unwound by DWARF (.eh_frame, which strip --strip-debug keeps), so that wgpu-native and the
# drivers, built without frame pointers, unwind too; on a frame-pointer build when one is carried
# (.benchcarry/fp/bindery), else on the carried release build.
# Here: bash scripts/build.sh --target bindery object_table_bench (optionally also
# BINDERY_BUILD_DIR=build-fp BINDERY_CMAKE_ARGS="-DCMAKE_CXX_FLAGS=-fno-omit-frame-pointer
# -DCMAKE_C_FLAGS=-fno-omit-frame-pointer" bash scripts/build.sh --target bindery), then
# BINDERY_CARRY_PERF=1 [BINDERY_CARRY_FP=build-fp] bash bench/make_carry.sh; on the device, carry
# [".gl", ".benchcarry"]: bash bench/city_static_profile_device.sh. Writes
# $OUT/city_static_profile.tgz: each size's render output (table + JSON) and perf's reports: by
# thread, library and function; the main thread's time by the functions it lies under
# (inclusive); its call graph.
set -u
final=${OUT:-out}
OUT=$(mktemp -d)/city_static_profile
source bench/device_env.sh
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.benchcarry/perf/lib
P=$PWD/.benchcarry/perf/perf
FP=.benchcarry/fp/bindery
[ -x "$FP" ] || FP=$B
echo "profiled binary: $FP" | tee "$OUTDIR/profiled_binary.txt"
city=(render --scene city --meshes 10000 --materials 1000 --textures 256 --moving 0
      --size 1280x720 --strategy gpu-driven --backend vulkan)
# Frames: about ten times what a second draws, so that the first progress line (a tenth of the
# frames) comes after the upload and about a second of steady frames; perf then samples the
# process for 8 s of the nine tenths left.
declare -A frames=([10000]=20000 [1000000]=3000)
{ echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)"; "$P" --version; } \
  >"$OUTDIR/perf_env.txt" 2>&1
for n in 10000 1000000; do
  echo "== city, $n objects, nothing moving, frame-pointer build, under perf (call graphs)"
  "$FP" "${city[@]}" --objects "$n" --frames "${frames[$n]}" >"$OUTDIR/perf_run_$n.txt" \
    2>"$OUTDIR/perf_run_$n.log" &
  pid=$!
  for _ in $(seq 1200); do grep -q '^frame ' "$OUTDIR/perf_run_$n.log" && break; sleep 0.1; done
  timeout 30 "$P" record -e cpu-clock -F 500 --call-graph dwarf,16384 -p "$pid" \
    -o "$OUTDIR/perf_$n.data" -- sleep 8 >"$OUTDIR/perf_record_$n.log" 2>&1
  echo "perf rc=$?"
  timeout 120 tail --pid="$pid" -f /dev/null || kill "$pid"
  wait "$pid"; echo "bindery rc=$?"
  grep -v '^{' "$OUTDIR/perf_run_$n.txt" | head -n 20
  R=("$P" report -i "$OUTDIR/perf_$n.data" --stdio)
  # Flat: thread, library, function (self time).
  "${R[@]}" --no-children --sort pid,dso,symbol -g none 2>/dev/null | head -n 120 \
    >"$OUTDIR/perf_flat_$n.txt"
  # The main thread (tid = pid): the share of its samples under each function (inclusive).
  "${R[@]}" --tid "$pid" --children --sort symbol -g none --percent-limit 1 2>/dev/null |
    head -n 150 >"$OUTDIR/perf_main_inclusive_$n.txt"
  # The main thread's call graph, callers first, branches of 2% and more.
  "${R[@]}" --tid "$pid" --no-children --sort dso -g caller,2,callee,function,percent \
    --percent-limit 2 2>/dev/null | head -n 400 >"$OUTDIR/perf_main_graph_$n.txt"
  head -n 60 "$OUTDIR/perf_main_inclusive_$n.txt"
  rm -f "$OUTDIR/perf_$n.data"
done
mkdir -p "$final"
tar czf "$final/city_static_profile.tgz" -C "$(dirname "$OUTDIR")" city_static_profile
