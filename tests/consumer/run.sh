#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/consumer/run.sh — bindery as an adopter gets it, on a fresh clone or a built tree:
#   1. builds both libraries in the main build folder (scripts/build.sh --target bindery
#      bindery_render) and installs them into a temporary prefix (cmake --install); the exported
#      targets must name no path of the build machine;
#   2. configures tests/consumer/ against the INSTALLED package with no variable at all
#      (find_package(bindery 0.2 CONFIG REQUIRED) finds the wgpu-native installed with bindery),
#      builds `consumer` (bindery::bindery alone: checks that neither its link line nor ldd shows
#      tinygltf, stb or oneTBB, and that its runpath does not point into this clone) and
#      `consumer_render` (bindery::render), and runs both on the WebGPU adapter present (lavapipe
#      on CPU-only machines); then again with WebGPU handed over as an imported target of the
#      consumer's own (BINDERY_WEBGPU_TARGET); checks that a webgpu.h of another version is
#      refused at configure time; moves the prefix and builds and runs the consumer from there;
#   3. compiles the same programs with the flags of the installed bindery.pc / bindery-render.pc
#      (no --define-variable) and runs them;
#   4. configures the consumer with add_subdirectory() and with FetchContent of this clone
#      (configure only: the library itself was built in 1; --full builds and runs both, and also
#      builds, installs and consumes a shared-library build, -DBUILD_SHARED_LIBS=ON).
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

# consume PREFIX DIR [cmake args...]: configures, builds and runs both consumers against the
# package installed in PREFIX (no variable), and checks what the parts-only consumer links.
consume() {
  local prefix=$1 dir=$2
  shift 2
  env -u BINDERY_WEBGPU_DIR cmake -S "$root/tests/consumer" -B "$dir" -G Ninja "${launcher[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" "$@" >/dev/null
  cmake --build "$dir" >/dev/null
  "$dir/consumer" "$dir/consumer.png"
  "$dir/consumer_render" >/dev/null
  if ninja -C "$dir" -t commands consumer | tail -1 | grep -E 'tinygltf|libtbb|-ltbb|libstb|-lstb|bindery_render'; then
    echo "consumer: the bindery::bindery consumer links a library of the renderer (above)" >&2
    exit 1
  fi
  if ldd "$dir/consumer" | grep -E 'libtinygltf|libtbb|libstb|libbindery_render'; then
    echo "consumer: the bindery::bindery consumer loads a library of the renderer (above)" >&2
    exit 1
  fi
  # The check above can fail: the renderer's consumer does load oneTBB.
  ldd "$dir/consumer_render" | grep -q libtbb
  if readelf -d "$dir/consumer" | grep -E 'R(UN)?PATH' | grep -F "$root"; then
    echo "consumer: the consumer's runpath points into the clone $root" >&2
    exit 1
  fi
}

# install BUILD PREFIX: installs a build and checks that its exported targets name no absolute
# path of the build machine (only imported targets and the prefix-relative _IMPORT_PREFIX).
install_and_check() {
  cmake --install "$1" --prefix "$2" >/dev/null
  if grep -nE '(^|[" ;:])/(usr|opt|home|tmp|work|root|srv|var)/' \
       "$2"/lib*/cmake/bindery/binderyTargets*.cmake ||
     grep -nF "$root" "$2"/lib*/cmake/bindery/binderyTargets*.cmake; then
    echo "consumer: the exported targets name absolute paths of the build machine (above)" >&2
    exit 1
  fi
}

say "building the libraries ($build) and installing them into a temporary prefix"
bash "$root/scripts/build.sh" --target bindery bindery_render >/dev/null
install_and_check "$build" "$tmp/prefix"
config=$(find "$tmp/prefix" -name binderyConfig.cmake)
pc_dir=$(dirname "$(find "$tmp/prefix" -name bindery.pc)")
[ -n "$config" ] && [ -f "$pc_dir/bindery.pc" ] && [ -f "$pc_dir/bindery-render.pc" ]

say "find_package(bindery 0.2) from the prefix with no variable: consumer (parts), consumer_render"
consume "$tmp/prefix" "$tmp/package"

say "find_package(bindery 0.2) with BINDERY_WEBGPU_TARGET (the consumer's own imported target)"
cmake -S "$root/tests/consumer" -B "$tmp/own-target" -G Ninja "${launcher[@]}" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DBINDERY_CONSUMER_OWN_WGPU="$webgpu" >/dev/null
cmake --build "$tmp/own-target" --target consumer >/dev/null
"$tmp/own-target/consumer"

say "find_package(bindery 0.2) with a webgpu.h of another version must fail"
mkdir -p "$tmp/other-webgpu/include/webgpu" "$tmp/other-webgpu/lib"
{ cat "$webgpu/include/webgpu/webgpu.h"; echo "// another version"; } \
  >"$tmp/other-webgpu/include/webgpu/webgpu.h"
ln -s "$webgpu/lib/libwgpu_native.so" "$tmp/other-webgpu/lib/libwgpu_native.so"
if cmake -S "$root/tests/consumer" -B "$tmp/other" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" \
     -DBINDERY_WEBGPU_DIR="$tmp/other-webgpu" >"$tmp/other.log" 2>&1; then
  echo "consumer: configuring with another webgpu.h succeeded" >&2
  exit 1
fi
# CMake wraps the message: join its lines before looking for it.
tr -s ' \n' ' ' <"$tmp/other.log" | grep -q "another version of webgpu.h" ||
  { cat "$tmp/other.log" >&2; exit 1; }

say "the prefix moved: find_package(bindery 0.2) from its new place"
mv "$tmp/prefix" "$tmp/moved"
consume "$tmp/moved" "$tmp/moved-package"
pc_dir=$(dirname "$(find "$tmp/moved" -name bindery.pc)")

say "pkg-config: c++ \$(pkg-config --cflags --libs bindery), then bindery-render"
# The prefix line is what cmake --install wrote; pkg-config's --define-prefix (on by default for
# .pc files under PREFIX/lib/pkgconfig) makes the moved prefix work too.
pc=(env PKG_CONFIG_PATH="$pc_dir" pkg-config --define-prefix)
[ "$("${pc[@]}" --modversion bindery)" = "$(sed -n 's/^#define BINDERY_VERSION_STRING "\(.*\)"/\1/p' \
  "$root/include/bindery/core/version.hpp")" ]
if "${pc[@]}" --libs bindery | grep -E 'tinygltf|tbb|stb|bindery_render'; then
  echo "consumer: bindery.pc names a library of the renderer (above)" >&2
  exit 1
fi
# shellcheck disable=SC2046
${CXX:-c++} -std=c++20 "$root/tests/consumer/consumer.cpp" -o "$tmp/consumer_pc" \
  $("${pc[@]}" --cflags --libs bindery)
"$tmp/consumer_pc"
# shellcheck disable=SC2046
${CXX:-c++} -std=c++20 "$root/tests/consumer/consumer_render.cpp" -o "$tmp/consumer_render_pc" \
  $("${pc[@]}" --cflags --libs bindery-render)
"$tmp/consumer_render_pc" >/dev/null

if [ $full = 1 ]; then
  say "shared libraries (-DBUILD_SHARED_LIBS=ON): build, install, consume"
  cmake -S "$root" -B "$tmp/shared-build" -G Ninja "${launcher[@]}" -DBUILD_SHARED_LIBS=ON \
    -DBINDERY_BUILD_TESTS=OFF -DBINDERY_BUILD_BENCH=OFF -DBINDERY_BUILD_EXAMPLES=OFF \
    -DBINDERY_BUILD_CLI=OFF >/dev/null
  cmake --build "$tmp/shared-build" >/dev/null
  install_and_check "$tmp/shared-build" "$tmp/shared"
  consume "$tmp/shared" "$tmp/shared-package"
fi

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
    "$tmp/$mode/consumer_render" >/dev/null
  fi
done
say "ok"
