// SPDX-License-Identifier: MIT
#include "compute_helpers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery::gpu_driven::detail {

std::string wgsl_block(std::string_view text, std::string_view first, std::string_view end_marker,
                       uint32_t from_group, uint32_t group) {
  const size_t begin = text.find(first);
  const size_t end = text.find(end_marker);
  std::string out(text.substr(begin, end - begin));
  const std::string from = fmt::format("@group({})", from_group);
  const std::string to = fmt::format("@group({})", group);
  for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
    out.replace(at, from.size(), to);
  return out;
}

gpu::ComputePipeline make_compute(const Device& device, WGPUShaderModule module,
                                  WGPUPipelineLayout layout, const char* entry) {
  const CallScope scope(device);
  WGPUComputePipelineDescriptor d = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  d.label = gpu::sv(entry);
  d.layout = layout;
  d.compute.module = module;
  d.compute.entryPoint = gpu::sv(entry);
  return gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device.get(), &d));
}

Grid grid_for(uint64_t invocations, uint32_t workgroup_size, uint32_t max_x) {
  const uint64_t groups = (invocations + workgroup_size - 1) / workgroup_size;
  if (groups == 0) return {};
  max_x = std::max(max_x, 1u);
  return {static_cast<uint32_t>(std::min<uint64_t>(groups, max_x)),
          static_cast<uint32_t>((groups + max_x - 1) / max_x)};
}

void dispatch(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline, WGPUBindGroup group,
              Grid grid) {
  if (grid.x == 0) return;
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, grid.x, grid.y, 1);
}

StandInPyramid stand_in_pyramid(const Device& device, const char* label) {
  WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
  td.label = gpu::sv(label);
  td.size = {1, 1, 1};
  td.format = WGPUTextureFormat_R32Float;
  td.usage = WGPUTextureUsage_TextureBinding;
  StandInPyramid p;
  p.texture = gpu::Texture::acquire(wgpuDeviceCreateTexture(device.get(), &td));
  p.view = gpu::TextureView::acquire(wgpuTextureCreateView(p.texture.get(), nullptr));
  return p;
}

}  // namespace bindery::gpu_driven::detail
