#!/usr/bin/env bash
# Sets up (scripts/setup.sh), configures and builds bindery into ${BINDERY_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BINDERY_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh"
# Configure every time (about a second) so that BINDERY_BUILD_TYPE / BINDERY_CMAKE_ARGS apply.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${BINDERY_BUILD_TYPE:-RelWithDebInfo} \
  ${BINDERY_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" --parallel "$(nproc)" "$@"
