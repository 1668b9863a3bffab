#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: sets up, builds, and runs every test (CPU-only suites and the
# device suites on whatever WebGPU adapter is present; lavapipe on CPU-only machines).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BINDERY_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure --timeout 600 -j "$(nproc)" "$@"
