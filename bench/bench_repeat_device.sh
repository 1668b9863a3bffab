#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine run for issue 31 (docs/BENCHMARKS.md, "How the tables are taken"): `bindery
# bench` twice in one call, each run REPEAT interleaved searches per strategy (default 15: the
# guided search's fifteen repeats of all twelve strategies take about 220 s a run at --probe-ms
# 100, so two runs fit one 600 s call; at 15 even a host that held still leaves all twelve
# within in only about 95% of call pairs, at 7 in 19%: docs/BENCHMARKS.md), then, per strategy,
# whether each run's median max objects lies within the other run's
# printed range (the issue's "done when"). On the carried binary (bench/device_env.sh says what
# to carry: `bash bench/make_carry.sh`, then carry [".gl", ".benchcarry"]).
# Results in $OUTDIR: bench_repeat_{1,2}.txt (table + JSON line), .log (progress, each line led by
# its time in Unix seconds: bench/probe_timeline.py reads it), .json (the JSON
# line alone), bench_repeat_compare.txt (the comparison, also printed), vmstat.txt (the machine
# every 5 s over both runs: `st` is the share of time the hypervisor gave the CPUs to others).
# Usage: [BENCH_EXTRA="--max 1000000 --probe-ms 100"] [BENCH_RUN_S=290] OUT=$OUT \
#          bash bench/bench_repeat_device.sh [STRATEGIES] [SIZE] [REPEAT]
#   BENCH_EXTRA replaces the default options, not adds to them: give --probe-ms 100 again with
#   another --max, or the probes take 200 ms and a run of all at 15 repeats outlasts BENCH_RUN_S.
#   (default all and 640x480; if two runs of all do not fit one call, run two halves, e.g.
#   naive,split-uniforms,buffer-offsets,buffer-offsets-mapped,dynamic-offsets,mapped-staging
#   and render-bundles,storage-instancing,gpu-culling,gpu-driven,bundles-gpu,immediates)
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
STRATEGIES=${1:-all}
SIZE=${2:-640x480}
REPEAT=${3:-15}
# The rest of the bench's options (issue 31's later runs: --search, --probe-ms, --max), and the
# time each run may take (two must fit one 600 s call).
EXTRA=${BENCH_EXTRA:---max 1000000 --probe-ms 100}
RUN_S=${BENCH_RUN_S:-290}
# --raw-floor (the ratio's median and range) where dynamic-offsets is measured.
RAW_FLOOR=$([[ "$STRATEGIES" == all || ",$STRATEGIES," == *,dynamic-offsets,* ]] && echo --raw-floor)
# CPU time stolen by the hypervisor (the 8th number of /proc/stat's cpu line), in percent of all.
cpu_times() { awk '/^cpu / { t = 0; for (f = 2; f <= NF; ++f) t += $f; print $9, t }' /proc/stat; }
vmstat -n 5 >"$OUTDIR/vmstat.txt" 2>&1 &
vmstat_pid=$!
for i in 1 2; do
  read -r steal0 total0 < <(cpu_times)
  echo "== run $i: bindery bench --strategies $STRATEGIES --size $SIZE --start 1000 $EXTRA --repeat $REPEAT $RAW_FLOOR"
  start=$(date +%s)
  # shellcheck disable=SC2086  # EXTRA is a list of options
  timeout "$RUN_S" "$B" bench --strategies "$STRATEGIES" --size "$SIZE" --start 1000 $EXTRA \
    --repeat "$REPEAT" $RAW_FLOOR --backend vulkan >"$OUTDIR/bench_repeat_$i.txt" \
    2> >(while IFS= read -r l; do echo "$(date +%s.%N) $l"; done >"$OUTDIR/bench_repeat_$i.log")
  echo "rc=$? in $(($(date +%s) - start)) s"
  read -r steal1 total1 < <(cpu_times)
  echo "steal: $(awk -v s=$((steal1 - steal0)) -v t=$((total1 - total0)) 'BEGIN { printf "%.2f", t ? 100 * s / t : 0 }')% of CPU time during run $i"
  grep -v '^{' "$OUTDIR/bench_repeat_$i.txt"
  grep '^{' "$OUTDIR/bench_repeat_$i.txt" >"$OUTDIR/bench_repeat_$i.json"
done
kill "$vmstat_pid" 2>/dev/null
# A row: strategy, median ("< N" when over budget at --start: 0), range "min..max". Each run's
# median must lie within the other run's range.
rows() {
  awk '{ for (f = 2; f <= NF; ++f) if ($f ~ /^[0-9]+\.\.[0-9]+$/) {
           split($f, r, /\.\./); m = ($2 == "<") ? 0 : $2; print $1, m, r[1], r[2]; break } }' "$1"
}
{
  echo "strategy median1 range1 median2 range2 verdict"
  join <(rows "$OUTDIR/bench_repeat_1.txt" | sort) <(rows "$OUTDIR/bench_repeat_2.txt" | sort) |
    awk '{ ok = ($2 >= $6 && $2 <= $7 && $5 >= $3 && $5 <= $4) ? "within" : "OUTSIDE";
           bad += (ok != "within"); n += 1
           print $1, $2, $3 ".." $4, $5, $6 ".." $7, ok }
         END { printf "%d strategies compared, %d outside\n", n, bad }'
} | tee "$OUTDIR/bench_repeat_compare.txt"
