#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine wrapper for bench/render_sweep.sh (docs/benchmarks/render.md): sets up headless
# Vulkan (bench/device_env.sh), then runs the sweep with the carried binary.
# Extra environment (REPEATS, SWEEP, DEADLINE, ...) is passed to render_sweep.sh.
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
export BINDERY=$B MODEL=${MODEL:-.benchcarry/models/2CylinderEngine.glb} LABEL=${LABEL:-h200}
export REQUIRE_ADAPTER=NVIDIA OUTDIR
bash bench/render_sweep.sh
rc=$?
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$ENVLOG" 2>&1
exit $rc
