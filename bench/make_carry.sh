#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fills .benchcarry/ (git-ignored through .git/info/exclude) with what the device-machine scripts
# run: the bindery binary and the benchmark programs of ${BINDERY_BUILD_DIR:-build}, every shared
# library they load that is not part of the C/C++ runtime (wgpu-native, fmt, spng, tinygltf,
# stb, oneTBB), zlib as a fallback for images without it, and the glTF model of the sweep.
# Usage: bash bench/make_carry.sh   (then carry [".gl", ".benchcarry"]; bench/device_env.sh)
# With BINDERY_CARRY_DAWN=<the Dawn build folder, e.g. build-dawn> it also fills .benchcarry/dawn/
# (issue 13): that build's bindery as bin/bindery.bin, run by the wrapper bin/bindery under the
# carried Debian forky loader with every library it loads (Dawn, abseil, glibc 2.43, libstdc++ 16,
# the Vulkan loader it opens, and the bookworm libraries), since its PT_INTERP and RPATH name this
# machine's third_party/dawn-sysroot. bench/dawn_device.sh runs both binaries.
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
if [ -n "${BINDERY_CARRY_DAWN:-}" ]; then
  dawn_build=$(cd "$BINDERY_CARRY_DAWN" && pwd)
  sysroot_lib=$root/third_party/dawn-sysroot/root/usr/lib/x86_64-linux-gnu
  ldso=$sysroot_lib/ld-linux-x86-64.so.2
  [ -x "$ldso" ] || { echo "make_carry: $ldso missing (scripts/setup_dawn.sh)" >&2; exit 1; }
  mkdir -p "$dest/dawn/bin" "$dest/dawn/lib"
  cp "$dawn_build/bindery" "$dest/dawn/bin/bindery.bin"
  strip --strip-debug "$dest/dawn/bin/bindery.bin"
  # Every library the forky loader resolves for it (through its RPATH into the sysroot), the
  # loader itself, and the Vulkan loader Dawn opens at run time.
  "$ldso" --list "$dawn_build/bindery" | awk '$3 ~ /^\// {print $3}' | sort -u |
    while read -r lib; do cp -L "$lib" "$dest/dawn/lib/"; done
  cp -L "$ldso" "$sysroot_lib/libvulkan.so.1" "$dest/dawn/lib/"
  cat >"$dest/dawn/bin/bindery" <<'WRAPPER'
#!/bin/sh
# The Dawn build's bindery under the carried forky loader (bench/make_carry.sh).
d=$(cd "$(dirname "$0")/.." && pwd)
exec "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" "$d/bin/bindery.bin" "$@"
WRAPPER
  chmod +x "$dest/dawn/bin/bindery"
fi
# With BINDERY_CARRY_PERF=1, Linux perf (this machine's linux-perf) and the libraries it loads
# beyond the C/C++ runtime, for bench/city_static_profile_device.sh.
if [ "${BINDERY_CARRY_PERF:-0}" = 1 ]; then
  perf=$(command -v perf) || { echo "make_carry: perf missing (apt-get install linux-perf)" >&2; exit 1; }
  mkdir -p "$dest/perf/lib"
  cp -L "$perf" "$dest/perf/perf"
  ldd "$perf" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*) ;;
      *) cp -L "$lib" "$dest/perf/lib/" ;;
    esac
  done
fi
# With BINDERY_CARRY_FP=<a build folder configured with -fno-omit-frame-pointer, e.g. build-fp>,
# that build's bindery as fp/bindery, for the call graphs of bench/city_static_profile_device.sh.
if [ -n "${BINDERY_CARRY_FP:-}" ]; then
  mkdir -p "$dest/fp"
  cp "$BINDERY_CARRY_FP/bindery" "$dest/fp/bindery"
  strip --strip-debug "$dest/fp/bindery"
fi
model=/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb
[ -f "$model" ] && cp "$model" "$dest/models/"
du -sh "$dest"
