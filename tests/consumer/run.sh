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
#   4. configures, builds and installs the parts alone (-DBINDERY_BUILD_RENDERER=OFF, build folder
#      BINDERY_PARTS_BUILD_DIR, default the main one's name + "-parts"): none of the renderer's
#      dependencies looked for, none of its targets built, none of its files installed, no .pc
#      written into the build folder, the source tree unchanged; then builds and runs `consumer`
#      against that prefix (find_package without bindery::render, and pkg-config);
#   5. configures the consumer with add_subdirectory() and with FetchContent of this clone
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
parts_build=${BINDERY_PARTS_BUILD_DIR:-$build-parts}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { echo "consumer: $*"; }
launcher=()
if command -v ccache >/dev/null; then  # as scripts/build.sh: clones and folders share entries
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

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
  # The check above can fail: the renderer's consumer does load oneTBB. (grep without -q: -q
  # stops reading at the first match, ldd then dies of SIGPIPE and pipefail fails the step.)
  ldd "$dir/consumer_render" | grep libtbb >/dev/null
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
tr -s ' \n' ' ' <"$tmp/other.log" | grep "another version of webgpu.h" >/dev/null ||
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

say "parts only (-DBINDERY_BUILD_RENDERER=OFF, ${parts_build}): configure, build, install, consume"
# Its own build folder (kept between runs, like the main one, so that a second run is
# incremental). The renderer's dependencies must not even be looked for, the install must hold no
# piece of the renderer, and neither configure, build nor install may change the source tree.
tree_before=$(git -C "$root" status --porcelain 2>/dev/null || true)
cmake -S "$root" -B "$parts_build" -G Ninja "${launcher[@]}" -DBINDERY_BUILD_RENDERER=OFF \
  >"$tmp/parts-configure.log"
if grep -E '^(TBB_DIR|TinyGLTF_DIR|CLI11_DIR|STB_LIBRARY|GTest_DIR|benchmark_DIR):' \
     "$parts_build/CMakeCache.txt"; then
  echo "consumer: the parts-only configure looked for a dependency of the renderer (above)" >&2
  exit 1
fi
cmake --build "$parts_build" >/dev/null
if ninja -C "$parts_build" -t targets all | grep -E '^(bindery_render|bindery_cli|[a-z_]+_test):'; then
  echo "consumer: the parts-only build has targets of the renderer (above)" >&2
  exit 1
fi
rm -f "$parts_build"/bindery.pc "$parts_build"/bindery-render.pc
install_and_check "$parts_build" "$tmp/parts"
if find "$tmp/parts" \( -name 'libbindery_render*' -o -name 'bindery-render.pc' \
     -o -path '*/include/bindery/render' -o -name renderer.hpp \) | grep .; then
  echo "consumer: the parts-only install holds a piece of the renderer (above)" >&2
  exit 1
fi
if ls "$parts_build"/bindery.pc "$parts_build"/bindery-render.pc 2>/dev/null; then
  echo "consumer: cmake --install wrote a .pc file into the build folder (above)" >&2
  exit 1
fi
[ "$(git -C "$root" status --porcelain 2>/dev/null || true)" = "$tree_before" ] ||
  { echo "consumer: the parts-only build or install changed the source tree" >&2; exit 1; }
env -u BINDERY_WEBGPU_DIR cmake -S "$root/tests/consumer" -B "$tmp/parts-package" -G Ninja \
  "${launcher[@]}" -DCMAKE_PREFIX_PATH="$tmp/parts" -DBINDERY_CONSUMER_EXPECT_PARTS_ONLY=ON >/dev/null
cmake --build "$tmp/parts-package" >/dev/null
"$tmp/parts-package/consumer" "$tmp/parts-package/consumer.png"
if ldd "$tmp/parts-package/consumer" | grep -E 'libtinygltf|libtbb|libstb|libbindery_render'; then
  echo "consumer: the parts-only consumer loads a library of the renderer (above)" >&2
  exit 1
fi
# Asking a parts-only install for the renderer fails, saying why (not CMake's bare "set
# bindery_FOUND to FALSE").
mkdir -p "$tmp/parts-render"
printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(wants_render CXX)' \
  'find_package(bindery 0.2 CONFIG REQUIRED COMPONENTS render)' >"$tmp/parts-render/CMakeLists.txt"
if env -u BINDERY_WEBGPU_DIR cmake -S "$tmp/parts-render" -B "$tmp/parts-render/build" \
     -DCMAKE_PREFIX_PATH="$tmp/parts" >"$tmp/parts-render.log" 2>&1; then
  echo "consumer: find_package(bindery COMPONENTS render) found a parts-only install" >&2
  exit 1
fi
tr -s ' \n' ' ' <"$tmp/parts-render.log" | grep "component 'render' (bindery::render) is not in this install" >/dev/null ||
  { cat "$tmp/parts-render.log" >&2; exit 1; }
parts_pc=(env PKG_CONFIG_PATH="$(dirname "$(find "$tmp/parts" -name bindery.pc)")" pkg-config --define-prefix)
# shellcheck disable=SC2046
${CXX:-c++} -std=c++20 "$root/tests/consumer/consumer.cpp" -o "$tmp/consumer_parts_pc" \
  $("${parts_pc[@]}" --cflags --libs bindery)
"$tmp/consumer_parts_pc"

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
