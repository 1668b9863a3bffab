// SPDX-License-Identifier: MIT
// The article's animation on the GPU: object inputs, dispatch grid, availability
// (object_animation.hpp).
#include "object_animation.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery::strategies {

AnimateGrid animate_grid(uint32_t invocations) {
  const uint32_t groups = static_cast<uint32_t>(
      (uint64_t(invocations) + kAnimateWorkgroupSize - 1) / kAnimateWorkgroupSize);
  if (groups == 0) return {};
  return {std::min(groups, kAnimateMaxWorkgroupsX),
          (groups + kAnimateMaxWorkgroupsX - 1) / kAnimateMaxWorkgroupsX};
}

std::optional<std::string> gpu_animation_unavailable(const Device& device, const Scene& scene) {
  for (const Object& o : scene.objects)
    if (!o.animated)
      return fmt::format("animates the article's cubes on the GPU; the {} scene's objects are "
                         "placed or moved by the application (use gpu-driven)",
                         scene.name);
  const AnimateGrid grid = animate_grid(static_cast<uint32_t>(scene.objects.size()));
  if (grid.y > device.limits().maxComputeWorkgroupsPerDimension)
    return fmt::format("{} objects need more workgroups than maxComputeWorkgroupsPerDimension",
                       scene.objects.size());
  return std::nullopt;
}

gpu::Buffer upload_object_inputs(const Device& device, const Scene& scene,
                                 const StructLayout& reflected, std::string_view who) {
  check_struct_matches<ObjectInputGpu>(reflected);
  const uint64_t count = std::max<uint64_t>(scene.objects.size(), 1);
  const uint64_t bytes = count * sizeof(ObjectInputGpu);
  gpu::Buffer buffer = device.create_buffer("object inputs", bytes, WGPUBufferUsage_Storage,
                                            /*mapped_at_creation=*/true);
  auto* out = static_cast<ObjectInputGpu*>(wgpuBufferGetMappedRange(buffer.get(), 0, bytes));
  if (!out)
    throw Error(ErrorKind::OutOfMemory,
                fmt::format("{}: mapping {} bytes of object inputs failed", who, bytes));
  *out = {};
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const Object& o = scene.objects[i];
    out[i] = {o.axis,  o.speed,    o.radius,   o.rotation_speed, o.scale,
              o.phase, o.phase_z1, o.phase_z2, o.material,       o.mesh};
  }
  wgpuBufferUnmap(buffer.get());
  return buffer;
}

}  // namespace bindery::strategies
