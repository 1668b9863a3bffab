// SPDX-License-Identifier: MIT
#include "shared_groups.hpp"

#include "bindery/data/align.hpp"
#include "bindery/data/layout_builder.hpp"

#include <algorithm>

namespace bindery::strategies {

FrameGroup::FrameGroup(const Device& device, const StructLayout& global, SharedBindGroups groups)
    : device_(device),
      global_(global),
      view_projection_(global.field("viewProjection")),
      light_(global.field("lightWorldPosition")),
      eye_(global.field("viewWorldPosition")),
      bytes_(global.size) {
  // minBindingSize = the reflected struct size (WGSL SizeOf).
  layout_ = create_bind_group_layout(
      device, {"frame",
               {{0, BindingKind::uniform_buffer, kStageVertex | kStageFragment, false, global.size,
                 "glb"}}});
  buffer_ = device.create_buffer("frame uniforms", global.size,
                                 WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  if (groups == SharedBindGroups::none) return;
  const WGPUBindGroupEntry e = buffer_group_entry(0, buffer_.get(), 0, global.size);
  group_ = create_bind_group(device, "frame", layout_.get(), {&e, 1});
}

std::span<const std::byte> FrameGroup::pack(const FrameValues& values) {
  StructView g(global_, std::span<std::byte>(bytes_));
  g.set(view_projection_, values.view_projection);
  g.set(light_, values.light_world_position);
  g.set(eye_, values.view_world_position);
  return bytes_;
}

void FrameGroup::update(const FrameValues& values) {
  pack(values);
  device_.write_buffer(buffer_.get(), 0, bytes_.data(), bytes_.size());
}

MaterialGroups::MaterialGroups(const Device& device, const Scene& scene, const GpuScene& gpu,
                               const StructLayout& material, SharedBindGroups groups)
    : size_(material.size) {
  layout_ = create_bind_group_layout(
      device,
      {"material",
       {{0, BindingKind::sampled_texture, kStageFragment, false, 0, "diffuseTexture"},
        {1, BindingKind::sampler, kStageFragment, false, 0, "diffuseSampler"},
        {2, BindingKind::uniform_buffer, kStageFragment, false, material.size, "material"}}});
  std::vector<uint32_t> used;
  group_of_.assign(scene.materials.size(), UINT32_MAX);
  for (const Object& o : scene.objects)
    if (group_of_[o.material] == UINT32_MAX) {
      group_of_[o.material] = static_cast<uint32_t>(used.size());
      used.push_back(o.material);
    }
  if (groups == SharedBindGroups::create)
    check_bind_group_budget(device, used.size(), "material groups (one per material used)",
                            kPerMaterialGroupsAdvice);
  // A binding offset must be a multiple of minUniformBufferOffsetAlignment, like a dynamic one.
  const uint64_t stride = dynamic_uniform_stride(material.size, device.limits());
  stride_ = stride;
  const size_t count = std::max<size_t>(used.size(), 1);
  buffer_ = device.create_buffer("material uniforms", stride * count,
                                 WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  std::vector<std::byte> bytes(stride * count);
  const FieldRef color = material.field("color"), shininess = material.field("shininess");
  const FieldRef alpha_cutoff = material.field("alphaCutoff");
  for (size_t g = 0; g < used.size(); ++g) {
    const Material& m = scene.materials[used[g]];
    StructView v(material, std::span<std::byte>(bytes).subspan(g * stride, material.size));
    v.set(color, m.color);
    v.set(shininess, m.shininess);
    v.set(alpha_cutoff, shader_alpha_cutoff(m));
    if (groups == SharedBindGroups::none) continue;
    const WGPUBindGroupEntry e[] = {
        texture_group_entry(0, gpu.views[m.texture].get()),
        sampler_group_entry(1, gpu.samplers[m.sampler].get()),
        buffer_group_entry(2, buffer_.get(), g * stride, material.size)};
    groups_.push_back(create_bind_group(device, "material", layout_.get(), e));
  }
  if (!bytes.empty()) device.write_buffer(buffer_.get(), 0, bytes.data(), bytes.size());
}

}  // namespace bindery::strategies
