#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fills .benchcarry/ (git-ignored through .git/info/exclude) with what the device-machine scripts
# run: the bindery binary and the benchmark programs of ${BINDERY_BUILD_DIR:-build}, every shared
# library they load that is not part of the C/C++ runtime (wgpu-native, fmt, spng, tinygltf,
# stb, oneTBB), zlib as a fallback for images without it, and the glTF model of the sweep.
# Usage: bash bench/make_carry.sh   (then carry [".gl", ".benchcarry"]; bench/device_env.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BINDERY_BUILD_DIR:-$root/build}
dest=$root/.benchcarry
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/lib-fallback" "$dest/models"
cp "$build/bindery" "$dest/bin/"
for b in "$build"/bench/*_bench; do [ -x "$b" ] && cp "$b" "$dest/bin/"; done
# The immediates and encode-threads device tests, when built: bench/raw_floor_device.sh and
# bench/encode_threads_device.sh run their image and counter tests on the device's adapter.
for t in immediates_device_test encode_threads_device_test; do
  [ -x "$build/tests/$t" ] && cp "$build/tests/$t" "$dest/bin/"
done
strip --strip-debug "$dest"/bin/*  # debug info is most of their size; the carry is capped
for bin in "$dest"/bin/*; do
  ldd "$bin" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
    libz.so*) cp -L "$lib" "$dest/lib-fallback/" ;;
    *) cp -L "$lib" "$dest/lib/" ;;
  esac
done
model=/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb
[ -f "$model" ] && cp "$model" "$dest/models/"
du -sh "$dest"
