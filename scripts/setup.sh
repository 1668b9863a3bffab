#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bindery setup: installs everything the build, the tests and the benchmarks need on a fresh
# Debian bookworm machine, and nothing by hand. Idempotent: a second run checks and returns in
# about a second.
#
#   - Debian packages: compiler toolchain, glm, CLI11, fmt, GoogleTest, Google Benchmark,
#     libspng, tinygltf, oneTBB, assimp-testmodels (real glTF models), Vulkan loader, ccache,
#     doxygen (the API reference, scripts/docs.sh), and for `bindery view`: GLFW, Dear ImGui
#     (libimgui-dev: headers, a static library with its GLFW platform backend), Xlib and XRandR
#     headers (GLFW's native-window header includes both), and
#     Xvfb + xauth (a display for its tests on machines without a screen).
#     clang 14 with its sanitizer and libFuzzer runtimes (libclang-rt-14-dev).
#   - Mesa lavapipe (Vulkan on the CPU) 25.x from bookworm-backports: bookworm's own 22.3 lacks
#     features WebGPU implementations need.
#   - wgpu-native: the shared library and its matching webgpu.h / wgpu.h, taken from the PyPI
#     wheel `wgpu` at one pinned version and checked against its sha256, unpacked into the
#     git-ignored third_party/wgpu-native/. The API header is never copied into the repo.
#   - Dawn, only when the Dawn build is asked for (BINDERY_CMAKE_ARGS holds -DBINDERY_WEBGPU=dawn,
#     or BINDERY_SETUP_DAWN=1): scripts/setup_dawn.sh, Debian forky's packages in a private sysroot.
#
# `bash scripts/setup.sh --parts`: only what the parts alone need to build
# (-DBINDERY_BUILD_RENDERER=OFF): toolchain, cmake, ninja, pkg-config, glm, fmt, libspng,
# nlohmann-json and the Vulkan loader, and wgpu-native; no Vulkan driver (your GPU's, or
# mesa-vulkan-drivers >= 25 for lavapipe) and nothing of the renderer, CLI, tests or benchmarks.
#
# A failure stops with one line that says what to install or what went wrong.
set -euo pipefail
parts_only=0
case "${1:-}" in
  --parts) parts_only=1 ;;
  "") ;;
  *) echo "setup: unknown argument '$1' (the only one is --parts)" >&2; exit 2 ;;
esac

WGPU_PY_VERSION=0.32.0
WGPU_WHEEL=wgpu-${WGPU_PY_VERSION}-py3-none-manylinux_2_28_x86_64.whl
WGPU_WHEEL_SHA256=6499a31b5a29a10b4f1089fea4a0806411f42605fa86b6c0b543a07ca0de8568

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/third_party/wgpu-native"

die() { echo "setup: $*" >&2; exit 1; }
say() { echo "setup: $*"; }

[ "$(uname -m)" = x86_64 ] || die "x86_64 is required (the pinned wgpu-native wheel is ${WGPU_WHEEL})"

# --- Debian packages -------------------------------------------------------------------------
packages=(build-essential cmake ninja-build pkg-config git unzip python3
          libglm-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
          libspng-dev libtinygltf-dev nlohmann-json3-dev libstb-dev assimp-testmodels
          libvulkan1 clang libclang-rt-14-dev ccache libtbb-dev doxygen
          libglfw3-dev libimgui-dev libx11-dev libxrandr-dev xvfb xauth
          libmeshoptimizer-dev)
backports_packages=(mesa-vulkan-drivers)
if [ $parts_only = 1 ]; then
  packages=(build-essential cmake ninja-build pkg-config unzip python3
            libglm-dev libfmt-dev libspng-dev nlohmann-json3-dev libvulkan1)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
mesa_ok=0
mesa_version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
case "$mesa_version" in 2[5-9].*|[3-9][0-9].*) mesa_ok=1 ;; esac
[ $parts_only = 1 ] && mesa_ok=1  # no driver for the parts alone (see above)

if [ ${#missing[@]} -gt 0 ] || [ $mesa_ok -eq 0 ]; then
  command -v apt-get >/dev/null || die "apt-get not found: install ${missing[*]} mesa-vulkan-drivers(>=25) by other means"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "root or sudo is needed to install: ${missing[*]} mesa-vulkan-drivers"
    sudo="sudo"
  fi
  list=/etc/apt/sources.list.d/bindery-bookworm-backports.list
  if [ $parts_only = 0 ] && ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding bookworm-backports (for Mesa lavapipe 25)"
    echo "deb http://deb.debian.org/debian bookworm-backports main" | $sudo tee "$list" >/dev/null
  fi
  say "installing: ${missing[*]} mesa-vulkan-drivers/bookworm-backports"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null || die "apt-get update failed"
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
  if [ $parts_only = 0 ]; then
    $sudo apt-get install -y -q --no-install-recommends -t bookworm-backports \
      "${backports_packages[@]}" >/dev/null \
      || die "apt-get install -t bookworm-backports mesa-vulkan-drivers failed (need Mesa >= 25)"
    mesa_version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)
    case "$mesa_version" in 2[5-9].*|[3-9][0-9].*) ;; *) die "mesa-vulkan-drivers is $mesa_version; >= 25 from bookworm-backports is required" ;; esac
  fi
fi

# --- wgpu-native from the PyPI wheel ---------------------------------------------------------
stamp="$dest/.version"
if [ "$(cat "$stamp" 2>/dev/null)" != "$WGPU_PY_VERSION $WGPU_WHEEL_SHA256" ]; then
  command -v python3 >/dev/null || die "python3 with pip is required to fetch the wgpu wheel"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  say "fetching wgpu-native from PyPI wheel wgpu==${WGPU_PY_VERSION}"
  python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
      --python-version 3.11 "wgpu==${WGPU_PY_VERSION}" -d "$tmp" \
    || die "pip download wgpu==${WGPU_PY_VERSION} failed (needs python3 -m pip and access to PyPI)"
  [ -f "$tmp/$WGPU_WHEEL" ] || die "expected $WGPU_WHEEL, got: $(ls "$tmp")"
  got=$(sha256sum "$tmp/$WGPU_WHEEL" | cut -d' ' -f1)
  [ "$got" = "$WGPU_WHEEL_SHA256" ] || die "sha256 mismatch for $WGPU_WHEEL: got $got, want $WGPU_WHEEL_SHA256"
  rm -rf "$dest"
  mkdir -p "$dest/lib" "$dest/include/webgpu"
  unzip -q -o "$tmp/$WGPU_WHEEL" 'wgpu/resources/*' -d "$tmp/x" || die "cannot unpack $WGPU_WHEEL"
  cp "$tmp/x/wgpu/resources/libwgpu_native-release.so" "$dest/lib/libwgpu_native.so"
  cp "$tmp/x/wgpu/resources/webgpu.h" "$tmp/x/wgpu/resources/wgpu.h" "$dest/include/webgpu/"
  echo "$WGPU_PY_VERSION $WGPU_WHEEL_SHA256" > "$stamp"
fi

# --- Dawn (only for the -DBINDERY_WEBGPU=dawn build) ------------------------------------------
case " ${BINDERY_CMAKE_ARGS:-} " in
  *"BINDERY_WEBGPU=dawn"*) BINDERY_SETUP_DAWN=1 ;;
esac
if [ "${BINDERY_SETUP_DAWN:-0}" = 1 ]; then
  bash "$root/scripts/setup_dawn.sh" || exit 1
fi

say "ready (Mesa $mesa_version, wgpu-native from wgpu==$WGPU_PY_VERSION)"
