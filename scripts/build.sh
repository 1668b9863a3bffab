#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sets up (scripts/setup.sh), configures and builds bindery into ${BINDERY_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BINDERY_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh"
# Configure every time (about a second) so that BINDERY_BUILD_TYPE / BINDERY_CMAKE_ARGS apply.
# ccache (installed by setup.sh) makes rebuilds in fresh clones and worktrees cheap; paths under
# the repository are hashed relative to it, and the working directory is left out of the hash
# (ccache hashes it for -g builds otherwise), so that clones share cache entries.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${BINDERY_BUILD_TYPE:-RelWithDebInfo} \
  "${launcher[@]}" ${BINDERY_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" --parallel "$(nproc)" "$@"
