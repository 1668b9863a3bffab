#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sweep `bindery render` over per-draw-data strategies, object counts and target sizes, plus the
# glTF engine, and write one JSON line per run. Used for docs/benchmarks/render.md, both on the
# CPU-only machine (Mesa lavapipe) and on an NVIDIA H200 through the device tool.
#
# Every setting is an environment variable (defaults in brackets):
#   BINDERY     the bindery binary                       [build-bench/bindery]
#   OUTDIR      where results go                         [$OUT, else out/render_sweep]
#   LABEL       machine label stored in every record     [$(hostname)]
#   STRATEGIES  strategies                               [naive dynamic-offsets]
#   SIZES       target sizes                             [1x1 640x480]
#   SWEEP       "OBJECTS:FRAMES ..." for the cube scene  [1000:60 10000:60 30000:60 100000:30]
#   MODEL       glTF model ("" skips it)                 [2CylinderEngine.glb from assimp]
#   INSTANCES   --instances for the model                [100]
#   GLTF_FRAMES frames for the model                     [60]
#   REPEATS     passes over the whole sweep              [1]
#   RUN_TIMEOUT seconds one run may take (then killed)   [120]
#   DEADLINE    seconds after which no new run starts    [480]
#   BACKEND     --backend                                [vulkan]
#   REQUIRE_ADAPTER  regex the adapter name must match, else exit 3 before the sweep  [""]
#
# Outputs in OUTDIR: info.json (bindery info), results.jsonl (one object per run:
# {"label","pass","cmd","rc","wall_s","loadavg1" (1-minute load average before the run; added after
# the H200 run of docs/benchmarks/render.md), "report":<the render JSON last line or null>}),
# sweep.log (everything the runs printed).
# Each run: bindery render --quiet --time 1 --frames F --backend B ... (frozen animation, all
# objects rewritten every frame, each frame waits for the GPU; the report holds per-frame medians).
set -u
BINDERY=${BINDERY:-build-bench/bindery}
OUTDIR=${OUTDIR:-${OUT:-out/render_sweep}}
LABEL=${LABEL:-$(hostname)}
STRATEGIES=${STRATEGIES:-naive dynamic-offsets}
SIZES=${SIZES:-1x1 640x480}
SWEEP=${SWEEP:-1000:60 10000:60 30000:60 100000:30}
MODEL=${MODEL-/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb}
INSTANCES=${INSTANCES:-100}
GLTF_FRAMES=${GLTF_FRAMES:-60}
REPEATS=${REPEATS:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
DEADLINE=${DEADLINE:-480}
BACKEND=${BACKEND:-vulkan}
REQUIRE_ADAPTER=${REQUIRE_ADAPTER:-}

mkdir -p "$OUTDIR"
RESULTS=$OUTDIR/results.jsonl
LOG=$OUTDIR/sweep.log
: >"$RESULTS"
: >"$LOG"
START=$(date +%s)

log() { echo "$*" | tee -a "$LOG" >&2; }

log "render_sweep: label=$LABEL bindery=$BINDERY backend=$BACKEND repeats=$REPEATS"
log "render_sweep: sweep='$SWEEP' strategies='$STRATEGIES' sizes='$SIZES' model='$MODEL' x$INSTANCES"
log "render_sweep: $(uname -srm); $(nproc) cores; $(date -u +%FT%TZ)"
if ! "$BINDERY" info --backend "$BACKEND" >"$OUTDIR/info.json" 2>>"$LOG"; then
  log "render_sweep: bindery info failed"
  exit 2
fi
ADAPTER=$(grep -m1 '"name"' "$OUTDIR/info.json" | sed 's/.*"name": *"\(.*\)".*/\1/')
log "render_sweep: adapter: $ADAPTER"
if [ -n "$REQUIRE_ADAPTER" ] && ! echo "$ADAPTER" | grep -Eq "$REQUIRE_ADAPTER"; then
  log "render_sweep: adapter '$ADAPTER' does not match '$REQUIRE_ADAPTER'; stopping"
  exit 3
fi

# run PASS ARGS...: one render, one JSON line.
run() {
  local pass=$1
  shift
  local now=$(date +%s)
  if [ $((now - START)) -ge "$DEADLINE" ]; then
    log "SKIP (deadline ${DEADLINE}s reached): $*"
    printf '{"label":"%s","pass":%d,"cmd":"%s","rc":-1,"wall_s":null,"report":null}\n' \
      "$LABEL" "$pass" "bindery render $*" >>"$RESULTS"
    return
  fi
  local tmp
  tmp=$(mktemp)
  local t0 t1 rc load
  load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)
  t0=$(date +%s.%N)
  timeout "$RUN_TIMEOUT" "$BINDERY" render --quiet --time 1 --backend "$BACKEND" "$@" >"$tmp" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local wall
  wall=$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")
  { echo "=== pass $pass: bindery render --quiet --time 1 --backend $BACKEND $* (rc $rc, ${wall}s)"; cat "$tmp"; } >>"$LOG"
  local last
  last=$(tail -n 1 "$tmp")
  case "$last" in \{*\}) ;; *) last=null ;; esac
  [ "$rc" -eq 0 ] || last=null
  printf '{"label":"%s","pass":%d,"cmd":"%s","rc":%d,"wall_s":%s,"loadavg1":%s,"report":%s}\n' \
    "$LABEL" "$pass" "bindery render --quiet --time 1 --backend $BACKEND $*" "$rc" "$wall" "$load" "$last" >>"$RESULTS"
  echo "pass $pass rc=$rc wall=${wall}s: $* :: $(grep -E '^(cpu|gpu|frame) ms' "$tmp" | awk '{printf "%s median %s; ", $1, $4}')" >&2
  rm -f "$tmp"
}

for pass in $(seq 1 "$REPEATS"); do
  for entry in $SWEEP; do
    n=${entry%%:*}
    frames=${entry##*:}
    for size in $SIZES; do
      for s in $STRATEGIES; do
        run "$pass" --scene cubes --objects "$n" --frames "$frames" --size "$size" --strategy "$s"
      done
    done
  done
  if [ -n "$MODEL" ]; then
    for size in $SIZES; do
      for s in $STRATEGIES; do
        run "$pass" --scene gltf --model "$MODEL" --instances "$INSTANCES" --frames "$GLTF_FRAMES" \
          --size "$size" --strategy "$s"
      done
    done
  fi
done
log "render_sweep: done in $(( $(date +%s) - START ))s, $(wc -l <"$RESULTS") records in $RESULTS"
