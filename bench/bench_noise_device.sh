#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine run for issue 31 (docs/BENCHMARKS.md, "Where the host's noise comes from"): the
# same short `bindery bench` (dynamic-offsets and naive, the CPU-bound strategies) under several
# thread placements, each probe's progress line time-stamped and, every 0.1 s, which CPU each of
# bindery's busy threads ran on; plus the machine's CPU topology. The probes' CPU ns per object
# tell whether the host's noise is one slow state the process falls into (two modes) or a spread,
# and whether a placement removes it.
# Results in $OUTDIR: cpu.txt (lscpu, SMT siblings, NUMA nodes, load), noise_CONFIG.{txt,log}
# (table + JSON; time-stamped progress), psr_CONFIG.txt (time, thread id, CPU, %CPU, name).
# Usage: OUT=$OUT bash bench/bench_noise_device.sh [placement|memory]   (carry [".gl",
# ".benchcarry"]; memory needs BINDERY_CARRY_PERF=1 bash bench/make_carry.sh)
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
{
  echo "== lscpu"; lscpu
  echo "== SMT siblings"; cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list | sort -u
  echo "== NUMA nodes"; for n in /sys/devices/system/node/node*; do echo "$n: $(cat "$n/cpulist")"; done
  echo "== cpufreq"; cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>&1
  grep MHz /proc/cpuinfo | sort | uniq -c | head
  echo "== load"; cat /proc/loadavg; ps -eo pid,pcpu,comm --sort=-pcpu | head -15
} >"$OUTDIR/cpu.txt" 2>&1
args=(bench --strategies dynamic-offsets,naive --size 640x480 --start 1000 --max 200000 --repeat 4
      --backend vulkan)
# sample PID NAME: every 0.1 s, the CPU of each thread of PID that used CPU since the last look.
sample() {
  while kill -0 "$1" 2>/dev/null; do
    ps -L -o tid=,psr=,pcpu=,comm= -p "$1" 2>/dev/null | awk -v t="$(date +%s.%N)" '$3 > 1 { print t, $0 }'
    sleep 0.1
  done >"$OUTDIR/psr_$2.txt"
}
# one NAME PREFIX...: the bench under PREFIX (taskset and the like), progress time-stamped.
one() {
  local name=$1
  shift
  echo "== $name: $* bindery ${args[*]}"
  local start=$(date +%s)
  local extra=()
  [ "$name" = threads1 ] && extra=(--threads 1)
  "$@" "$B" "${args[@]}" "${extra[@]}" >"$OUTDIR/noise_$name.txt" \
    2> >(while IFS= read -r l; do echo "$(date +%s.%N) $l"; done >"$OUTDIR/noise_$name.log") &
  local pid=$!
  sample "$pid" "$name" &
  wait "$pid"
  echo "rc=$? in $(($(date +%s) - start)) s"
  grep -v '^{' "$OUTDIR/noise_$name.txt" | head -n 4
}
# placement: the bench under several thread placements (one run each, then the default again).
placement() {
  local siblings0 firsts
  siblings0=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
  # One CPU of each physical core (the first of its SMT siblings).
  firsts=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
    l=$(cat "$c/topology/thread_siblings_list"); echo "${l%%[,-]*}"; done | sort -un | paste -sd,)
  echo "SMT siblings of cpu0: $siblings0; one CPU per core: $firsts"
  one default env
  one threads1 env
  one cores taskset -c "$firsts"
  one cpu0 taskset -c 0
  one core0 taskset -c "$siblings0"
  one default2 env
}
# memory: transparent huge pages never / always, alternating, each run under `perf stat -I 500`
# (cycles, instructions, dTLB and LLC misses every half second: does the slow state run more
# instructions, or the same ones slower?).
memory() {
  local thp=/sys/kernel/mm/transparent_hugepage/enabled perf=.benchcarry/perf/perf
  echo "THP: $(cat $thp)"
  args=(bench --strategies dynamic-offsets --size 640x480 --start 20000 --max 200000 --repeat 6
        --backend vulkan)
  for mode in never always never always; do
    echo "$mode" >"$thp" || echo "cannot set THP $mode"
    LD_LIBRARY_PATH=$LD_LIBRARY_PATH:.benchcarry/perf/lib one "thp_${mode}_$((++k))" \
      "$perf" stat -I 500 -x, -o "$OUTDIR/perf_${mode}_$k.csv" \
      -e task-clock,cycles,instructions,dTLB-load-misses,LLC-load-misses,page-faults,context-switches,cpu-migrations --
  done
  echo madvise >"$thp"
}
"${1:-placement}"
