#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite (CPU and device) under AddressSanitizer + UndefinedBehaviorSanitizer with
# LeakSanitizer on: configures and builds bindery with clang into ${BINDERY_ASAN_BUILD_DIR:-build-asan}
# (-DBINDERY_SANITIZE=address,undefined, warnings as errors, the libFuzzer targets too: fuzz/run.sh
# uses the same folder), then runs ctest. Any finding stops its test with a report and fails it.
#   scripts/sanitize.sh [ctest args...]        e.g. -L cpu, -R plan
#   SANITIZE_BUILD_ONLY=1 scripts/sanitize.sh  just configure and build
# wgpu-native and the Vulkan driver (Mesa lavapipe) are not instrumented; scripts/lsan.supp is
# where a leak inside them (never in bindery) would be suppressed; it has no entry today, and LSan
# reports WebGPU objects bindery fails to release. Tests that read BINDERY_TEST_SCALE (set to
# "small" here: the random-input CLI tests) do less; the rest runs as in the normal build (the
# whole suite takes about 40 s under the sanitizers on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BINDERY_BUILD_DIR=${BINDERY_ASAN_BUILD_DIR:-$root/build-asan}
export BINDERY_CMAKE_ARGS="-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
  -DBINDERY_SANITIZE=address,undefined -DBINDERY_BUILD_FUZZ=ON -DBINDERY_WERROR=ON
  ${BINDERY_CMAKE_ARGS:-}"
# detect_leaks: LeakSanitizer at exit. halt_on_error / abort_on_error: the first report ends the
# process with a failing status. The test discovery at build time runs the test programs too, so
# the options apply from here on.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
export BINDERY_TEST_SCALE=${BINDERY_TEST_SCALE:-small}
bash "$root/scripts/build.sh"
[[ "${SANITIZE_BUILD_ONLY:-0}" == 1 ]] && exit 0
cd "$BINDERY_BUILD_DIR"
# LeakSanitizer's own tracer (the thread that stops the others to scan them at exit) can crash
# under load in clang 14's runtime ("Tracer caught signal 11 ... LeakSanitizer has encountered a
# fatal error", google/sanitizers#1353): the test's body passed, the leak check never ran. Only
# then are the failed tests run once more, alone, and that run decides; a leak report
# ("detected memory leaks") or any other failure is never retried.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@" 2>&1 | tee "$log"; then exit 0; fi
if grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
   ! grep -q -E 'detected memory leaks|ERROR: AddressSanitizer|runtime error:' "$log"; then
  echo "sanitize: LeakSanitizer's tracer crashed at a test's exit; the failed tests once more, alone:"
  ctest --output-on-failure --timeout 900 --rerun-failed
else
  exit 1
fi
