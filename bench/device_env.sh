#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sourced by the device-machine scripts (render_sweep_device.sh, bench_device.sh, dawn_device.sh):
# sets up headless Vulkan on a bare NVIDIA machine from carried files and checks that
# `bindery info` sees the NVIDIA adapter. Run from the repository root with carry
# [".gl", ".benchcarry"]:
#   .gl/*.deb          Vulkan loader + GLVND debs (device README), unpacked into /
#   .benchcarry/bin/bindery, .benchcarry/lib/*.so (wgpu-native, fmt, spng, tinygltf, stb),
#   .benchcarry/lib-fallback/*.so (zlib, used only where the image has none),
#   .benchcarry/models/2CylinderEngine.glb
# Afterwards: $B is the bindery binary, $OUTDIR the output folder, $ENVLOG the environment log.
set -u
OUTDIR=${OUT:-out/render_sweep_device}
mkdir -p "$OUTDIR"
ENVLOG=$OUTDIR/env.txt
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export LD_LIBRARY_PATH=$PWD/.benchcarry/lib:$PWD/.benchcarry/lib-fallback
ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=.benchcarry/bin/bindery
{
  echo "== uname"; uname -a
  echo "== nvidia-smi"; nvidia-smi
  echo "== ICD files"; ls -la /usr/share/vulkan/icd.d /etc/vulkan/icd.d "$(dirname $ICD)" 2>&1
  echo "== $ICD"; cat "$ICD" 2>&1
  echo "== ldconfig vulkan/nvidia"; ldconfig -p | grep -Ei 'vulkan|GLX_nvidia|nvidia-gl'
  echo "== ldd"; ldd "$B"
} >"$ENVLOG" 2>&1

adapter() { "$B" info --backend vulkan 2>>"$ENVLOG" | grep -A1 '"adapter"' | grep -m1 '"name"'; }
A=$(adapter)
echo "== info without VK_DRIVER_FILES: $A" >>"$ENVLOG"
if ! echo "$A" | grep -q NVIDIA && [ -f "$ICD" ]; then
  export VK_DRIVER_FILES=$ICD __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  A=$(adapter)
  echo "== info with VK_DRIVER_FILES=$ICD: $A" >>"$ENVLOG"
fi
echo "adapter: $A (VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset})"
if ! echo "$A" | grep -q NVIDIA; then
  echo "no NVIDIA Vulkan adapter; see env.txt"
  cat "$ENVLOG"
  exit 3
fi

# run NAME SECONDS ARGS...: one bindery command with a time limit; stdout to $OUTDIR/NAME.txt,
# stderr to NAME.log; prints the exit status and the table (the JSON last line is left out).
run() {
  local name=$1 secs=$2
  shift 2
  echo "== $name: bindery $*"
  timeout "$secs" "$B" "$@" >"$OUTDIR/$name.txt" 2>"$OUTDIR/$name.log"
  echo "rc=$?"
  grep -v '^{' "$OUTDIR/$name.txt" | head -n 30
}
