#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Device-machine runs behind docs/BENCHMARKS.md, "GPU-driven rendering for any scene" (issue 20),
# on the carried binary (bash bench/make_carry.sh here, then carry [".gl", ".benchcarry"]):
#   ladder  the draw-path ladder: gpu-driven over the city with as many meshes as objects (every
#           visible object its own sub-draw) at 1k, 10k, 100k and 1M, once per draw path; the
#           JSON's per-pass GPU times ("phase1", "phase2") over its subDraws give GPU time per
#           sub-draw, and its bins the empty ones (fixed-count paths draw every bin)
#   city    the city at 1280x720: 1,000,000 objects, 10,000 meshes, 1,000 materials, 256
#           textures, 10% moved by the application per frame; occlusion on and off (frustum only);
#           nothing moving; 10,000 objects for the flat-cost check
#   meshes  200,000 distinct meshes, 1-10 copies each (1,000,000 objects)
#   gltf    the engine model x1000 at 1280x720: gpu-driven against dynamic-offsets and
#           storage-instancing (the CPU strategies' 6.6 fps), and gpu-culling (frustum only, the
#           CPU's matrices) on the same parts
#   backend the 1M city through the binding-array material backend (every texture as it is)
#   dawn    the ladder's rungs Dawn takes (bundle, loop) on the Dawn build, when carried
#           (BINDERY_CARRY_DAWN=build-dawn bash bench/make_carry.sh)
# Usage: bash bench/gpu_driven_parts_device.sh   (about 10 minutes). Results: $OUT/*.txt.
source "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
V=--backend
for n in 1000 10000 100000 1000000; do
  for path in multi-draw-indirect-count multi-draw-indirect bundle loop; do
    [ "$path" = loop ] && [ "$n" -gt 100000 ] && continue  # a million CPU draws: minutes
    run "ladder_${n}_${path}" 60 render --scene city --objects $n --meshes $((n < 200000 ? n : 200000)) \
      --moving 0 --size 1280x720 --frames 10 --draw-path $path --strategy gpu-driven $V vulkan
  done
done
run city_1m_occlusion 120 render --scene city --objects 1000000 --meshes 10000 --materials 1000 \
  --textures 256 --moving 0.1 --size 1280x720 --frames 60 --strategy gpu-driven $V vulkan
run city_1m_frustum 120 render --scene city --objects 1000000 --meshes 10000 --materials 1000 \
  --textures 256 --moving 0.1 --size 1280x720 --frames 60 --occlusion off --strategy gpu-driven $V vulkan
run city_1m_static 120 render --scene city --objects 1000000 --meshes 10000 --materials 1000 \
  --textures 256 --moving 0 --size 1280x720 --frames 60 --strategy gpu-driven $V vulkan
run city_10k_static 60 render --scene city --objects 10000 --meshes 10000 --materials 1000 \
  --textures 256 --moving 0 --size 1280x720 --frames 60 --strategy gpu-driven $V vulkan
run meshes_200k 120 render --scene city --objects 1000000 --meshes 200000 --materials 1000 \
  --textures 256 --moving 0.1 --size 1280x720 --frames 30 --strategy gpu-driven $V vulkan
run gltf_gpu_driven 120 render --model .benchcarry/models/2CylinderEngine.glb --instances 1000 \
  --size 1280x720 --frames 30 --strategy gpu-driven $V vulkan
run gltf_gpu_driven_frustum 120 render --model .benchcarry/models/2CylinderEngine.glb \
  --instances 1000 --size 1280x720 --frames 30 --occlusion off --strategy gpu-driven $V vulkan
run gltf_gpu_culling 120 render --model .benchcarry/models/2CylinderEngine.glb --instances 1000 \
  --size 1280x720 --frames 30 --strategy gpu-culling $V vulkan
run city_1m_binding_array 120 render --scene city --objects 1000000 --meshes 10000 --materials 1000 \
  --textures 256 --moving 0.1 --size 1280x720 --frames 60 --material-backend binding-array \
  --strategy gpu-driven $V vulkan
run gltf_dynamic_offsets 120 render --model .benchcarry/models/2CylinderEngine.glb --instances 1000 \
  --size 1280x720 --frames 10 --strategy dynamic-offsets $V vulkan
run gltf_storage_instancing 120 render --model .benchcarry/models/2CylinderEngine.glb \
  --instances 1000 --size 1280x720 --frames 10 --strategy storage-instancing $V vulkan
D=.benchcarry/dawn/bin/bindery
if [ -x "$D" ]; then
  B=$D
  for n in 1000 10000 100000; do
    for path in bundle loop; do
      run "dawn_ladder_${n}_${path}" 90 render --scene city --objects $n --meshes $n --moving 0 \
        --size 1280x720 --frames 10 --draw-path $path --strategy gpu-driven $V vulkan
    done
  done
  run dawn_city_1m_occlusion 120 render --scene city --objects 1000000 --meshes 10000 \
    --materials 1000 --textures 256 --moving 0.1 --size 1280x720 --frames 60 \
    --strategy gpu-driven $V vulkan
fi
exit 0
