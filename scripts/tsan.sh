#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The object table's concurrency tests under ThreadSanitizer (issue 30): configures bindery with
# clang into ${BINDERY_TSAN_BUILD_DIR:-build-tsan} (-DBINDERY_SANITIZE=thread, warnings as
# errors), builds only those tests (and what they link), then runs them with ctest. Any report
# fails the run (halt_on_error). A few minutes on 2 cores (the first build; ccache after that).
#   scripts/tsan.sh [ctest args...]
# wgpu-native, the Vulkan driver (Mesa lavapipe) and the system's GoogleTest are not
# instrumented; scripts/tsan.supp is where a report inside them (never in bindery) would be
# suppressed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BINDERY_BUILD_DIR=${BINDERY_TSAN_BUILD_DIR:-$root/build-tsan}
export BINDERY_CMAKE_ARGS="-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
  -DBINDERY_SANITIZE=thread -DBINDERY_WERROR=ON ${BINDERY_CMAKE_ARGS:-}"
# halt_on_error / exitcode: the first report ends the process with a failing status.
# second_deadlock_stack: both stacks of a lock-order report.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$root/scripts/tsan.supp}
tests=(object_table_threads_device_test object_table_device_test)
bash "$root/scripts/build.sh" --target "${tests[@]}"
cd "$BINDERY_BUILD_DIR"
ctest --output-on-failure --timeout 600 -j "$(nproc)" -R '^ObjectTable(Threads|Device)\.' "$@"
