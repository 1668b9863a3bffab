#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds bindery's libFuzzer targets (fuzz/*_fuzz.cpp: wgsl, plan, gltf, resolver; bodies in
# fuzz/targets.hpp) with clang, ASan and UBSan in the sanitizer build folder
# (scripts/sanitize.sh, ${BINDERY_ASAN_BUILD_DIR:-build-asan}) and runs each for a bounded time.
#   fuzz/run.sh [SECONDS] [TARGET...]     default 60 s per target, every target
#   FUZZ_BUILD_ONLY=1 fuzz/run.sh          just build
# Seed corpus per target: fuzz/corpus/<target>/ plus the repository's own inputs of that format
# (shaders, examples/plan, tests/data); dictionary fuzz/<target>.dict. The working corpus and any
# finding (crash-*, leak-*, timeout-*, oom-*) go to BUILD/fuzz/<target>/. A finding stops with a
# non-zero exit naming the file: reproduce with BUILD/fuzz/<target>_fuzz FILE, fix, and add the file
# to tests/data/fuzz/<target>/ (tests/package/fuzz_regression_test.cpp replays every file there).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(wgsl plan gltf resolver)
export BINDERY_ASAN_BUILD_DIR=${BINDERY_ASAN_BUILD_DIR:-$root/build-asan}
build=$BINDERY_ASAN_BUILD_DIR
SANITIZE_BUILD_ONLY=1 bash "$root/scripts/sanitize.sh" >/dev/null
[[ "${FUZZ_BUILD_ONLY:-0}" == 1 ]] && exit 0

# Leaks are findings too; the fuzzers never create a WebGPU device, so nothing is suppressed.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
for t in "${targets[@]}"; do
  out="$build/fuzz/$t"
  mkdir -p "$out/corpus"
  cp -n "$root/fuzz/corpus/$t"/* "$out/corpus/" 2>/dev/null || true
  case "$t" in
    wgsl) find "$root/shaders" "$root/examples" -name '*.wgsl' -exec cp -t "$out/corpus" {} + ;;
    plan) find "$root/examples/plan" "$root/tests/data/plan" -name '*.json' -exec cp -t "$out/corpus" {} + ;;
    gltf | resolver) ;;
  esac
  [[ -d "$root/tests/data/fuzz/$t" ]] && cp -n "$root/tests/data/fuzz/$t"/* "$out/corpus/" 2>/dev/null || true
  echo "== fuzz $t: ${seconds} s, seeds $(ls "$out/corpus" | wc -l)"
  if ! "$build/fuzz/${t}_fuzz" "$out/corpus" -dict="$root/fuzz/$t.dict" \
      -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$out/" -print_final_stats=1 > "$out/log.txt" 2>&1; then
    status=1
    echo "fuzz $t: FINDING (log: $out/log.txt)"
    grep -E "ERROR|SUMMARY|artifact_prefix|Test unit written" "$out/log.txt" | head -n 8
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" "$out/log.txt" | tail -n 3 || true
done
exit $status
