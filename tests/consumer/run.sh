#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/consumer/run.sh — bindery as an adopter gets it, on a fresh clone or a built tree:
#   1. builds the library in the main build folder (scripts/build.sh --target bindery) and
#      installs it into a temporary prefix (cmake --install);
#   2. configures and builds tests/consumer/ against the INSTALLED package
#      (find_package(bindery 0.2 CONFIG REQUIRED), BINDERY_WEBGPU_DIR pointing at wgpu-native)
#      and runs it on the WebGPU adapter present (lavapipe on CPU-only machines);
#      then again with WebGPU handed over as an imported target of the consumer's own
#      (BINDERY_WEBGPU_TARGET), and checks that without any WebGPU the configure fails with the
#      message that names BINDERY_WEBGPU_DIR / BINDERY_WEBGPU_TARGET;
#   3. compiles the same program with the flags of the installed bindery.pc and runs it;
#   4. configures the consumer with add_subdirectory() and with FetchContent of this clone
#      (configure only: the library itself was built in 1; --full builds and runs both).
# Exits non-zero on the first failure. Temporary files are removed at exit.
#   bash tests/consumer/run.sh [--full]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BINDERY_BUILD_DIR:-$root/build}
full=0
[ "${1:-}" = --full ] && full=1
webgpu=${BINDERY_WEBGPU_DIR:-$root/third_party/wgpu-native}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { echo "consumer: $*"; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

say "building the library ($build) and installing it into a temporary prefix"
bash "$root/scripts/build.sh" --target bindery >/dev/null
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
config=$(find "$tmp/prefix" -name binderyConfig.cmake)
pc_dir=$(dirname "$(find "$tmp/prefix" -name bindery.pc)")
[ -n "$config" ] && [ -f "$pc_dir/bindery.pc" ]

say "find_package(bindery 0.2) from the prefix, WebGPU from $webgpu"
cmake -S "$root/tests/consumer" -B "$tmp/package" -G Ninja "${launcher[@]}" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DBINDERY_WEBGPU_DIR="$webgpu" >/dev/null
cmake --build "$tmp/package" >/dev/null
"$tmp/package/consumer" "$tmp/package.png"

say "find_package(bindery 0.2) with BINDERY_WEBGPU_TARGET (the consumer's own imported target)"
cmake -S "$root/tests/consumer" -B "$tmp/own-target" -G Ninja "${launcher[@]}" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DBINDERY_CONSUMER_OWN_WGPU="$webgpu" >/dev/null
cmake --build "$tmp/own-target" >/dev/null
"$tmp/own-target/consumer"

say "find_package(bindery 0.2) without WebGPU must fail naming BINDERY_WEBGPU_DIR"
if env -u BINDERY_WEBGPU_DIR cmake -S "$root/tests/consumer" -B "$tmp/no-webgpu" -G Ninja \
     -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/no-webgpu.log" 2>&1; then
  echo "consumer: configuring without WebGPU succeeded" >&2
  exit 1
fi
grep -q "BINDERY_WEBGPU_DIR" "$tmp/no-webgpu.log" || { cat "$tmp/no-webgpu.log" >&2; exit 1; }

say "pkg-config: c++ \$(pkg-config --cflags --libs bindery)"
pc=(env PKG_CONFIG_PATH="$pc_dir" pkg-config --define-variable=webgpu_dir="$webgpu")
[ "$("${pc[@]}" --modversion bindery)" = "$(sed -n 's/^#define BINDERY_VERSION_STRING "\(.*\)"/\1/p' \
  "$root/include/bindery/core/version.hpp")" ]
# shellcheck disable=SC2046
${CXX:-c++} -std=c++20 "$root/tests/consumer/consumer.cpp" -o "$tmp/consumer_pc" \
  $("${pc[@]}" --cflags --libs bindery)
"$tmp/consumer_pc"

say "add_subdirectory() and FetchContent of this clone ($([ $full = 1 ] && echo "configure, build, run" || echo "configure only"))"
# FetchContent clones this checkout at its HEAD commit (uncommitted changes are not in it).
modes=(subdirectory)
if head=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
  modes+=(fetchcontent)
else
  say "not a git checkout: FetchContent skipped"
fi
for mode in "${modes[@]}"; do
  cmake -S "$root/tests/consumer" -B "$tmp/$mode" -G Ninja "${launcher[@]}" --no-warn-unused-cli \
    -DBINDERY_CONSUMER_MODE=$mode -DBINDERY_SOURCE_DIR="$root" \
    -DBINDERY_GIT_REPOSITORY="$root" -DBINDERY_GIT_TAG="${head:-}" \
    -DBINDERY_WEBGPU_DIR="$webgpu" >/dev/null
  if [ $full = 1 ]; then
    cmake --build "$tmp/$mode" >/dev/null
    "$tmp/$mode/consumer"
  fi
done
say "ok"
