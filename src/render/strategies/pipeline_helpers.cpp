// SPDX-License-Identifier: MIT
// The render pipeline state every strategy shares (pipeline_helpers.hpp).
#include "pipeline_helpers.hpp"

#include "bindery/data/scene_data.hpp"
#include "bindery/render/renderer.hpp"  // default_max_bind_groups()

#include <fmt/format.h>

#include <cstddef>
#include <iterator>

namespace bindery::strategies {

namespace {
const WGPUVertexAttribute kVertexAttributes[] = {
    {nullptr, WGPUVertexFormat_Float32x3, offsetof(Vertex, position), 0},
    {nullptr, WGPUVertexFormat_Float32x3, offsetof(Vertex, normal), 1},
    {nullptr, WGPUVertexFormat_Float32x2, offsetof(Vertex, texcoord), 2},
    {nullptr, WGPUVertexFormat_Unorm8x4, offsetof(Vertex, color), 3},
};
}  // namespace

void check_bind_group_budget(const Device& device, uint64_t count, std::string_view what,
                             std::string_view advice) {
  const uint64_t budget = default_max_bind_groups(device.adapter());
  if (count > budget)
    throw Error(ErrorKind::ImplementationLimit,
                fmt::format("{}: {} bind groups exceed what {} can hold ({}: each bind group is a "
                            "memory mapping, bounded by vm.max_map_count); {}",
                            what, count, device.adapter().name, budget, advice));
}

Reflection reflect_checked(std::string_view wgsl) {
  Reflection r = reflect_wgsl(wgsl);
  r.throw_if_errors();
  return r;
}

WGPUVertexBufferLayout vertex_buffer_layout() {
  WGPUVertexBufferLayout l = WGPU_VERTEX_BUFFER_LAYOUT_INIT;
  l.stepMode = WGPUVertexStepMode_Vertex;
  l.arrayStride = sizeof(Vertex);
  l.attributeCount = std::size(kVertexAttributes);
  l.attributes = kVertexAttributes;
  return l;
}

namespace {

// Finishes `d` (its vertex stage and primitive state set) for the scene pipelines' target:
// depth24plus with less and depth writes, one colour target in kColorFormat, the fragment
// entry point `fragment_entry` of the vertex stage's module; creates it.
gpu::RenderPipeline scene_target_pipeline(const Device& device, WGPURenderPipelineDescriptor& d,
                                          const char* label, const char* fragment_entry) {
  d.label = gpu::sv(label);
  d.primitive.topology = WGPUPrimitiveTopology_TriangleList;
  WGPUDepthStencilState ds = WGPU_DEPTH_STENCIL_STATE_INIT;
  ds.format = kDepthFormat;
  ds.depthWriteEnabled = WGPUOptionalBool_True;
  ds.depthCompare = WGPUCompareFunction_Less;
  d.depthStencil = &ds;
  WGPUColorTargetState target = WGPU_COLOR_TARGET_STATE_INIT;
  target.format = kColorFormat;
  target.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = d.vertex.module;
  fs.entryPoint = gpu::sv(fragment_entry);
  fs.targetCount = 1;
  fs.targets = &target;
  d.fragment = &fs;
  auto p = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &d));
  with_context(fmt::format("creating render pipeline '{}'", label), [&] { device.check(); });
  return p;
}

}  // namespace

gpu::RenderPipeline create_scene_pipeline(const Device& device, WGPUShaderModule module,
                                          WGPUPipelineLayout layout, const char* label,
                                          const char* vertex_entry, bool pulls_vertices) {
  WGPUVertexBufferLayout vbl = vertex_buffer_layout();
  WGPURenderPipelineDescriptor d = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  d.layout = layout;
  d.vertex.module = module;
  d.vertex.entryPoint = gpu::sv(vertex_entry);
  d.vertex.bufferCount = pulls_vertices ? 0 : 1;
  d.vertex.buffers = &vbl;
  d.primitive.cullMode = WGPUCullMode_Back;
  d.primitive.frontFace = WGPUFrontFace_CCW;
  return scene_target_pipeline(device, d, label, "fs");
}

gpu::RenderPipeline create_screen_space_pipeline(const Device& device, WGPUShaderModule module,
                                                 WGPUPipelineLayout layout, const char* label,
                                                 const char* vertex_entry,
                                                 const char* fragment_entry) {
  WGPURenderPipelineDescriptor d = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  d.layout = layout;
  d.vertex.module = module;
  d.vertex.entryPoint = gpu::sv(vertex_entry);
  d.primitive.cullMode = WGPUCullMode_None;
  return scene_target_pipeline(device, d, label, fragment_entry);
}

gpu::RenderBundleEncoder create_scene_bundle_encoder(const Device& device, const char* label) {
  const WGPUTextureFormat color = kColorFormat;
  WGPURenderBundleEncoderDescriptor d = WGPU_RENDER_BUNDLE_ENCODER_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.colorFormatCount = 1;
  d.colorFormats = &color;
  d.depthStencilFormat = kDepthFormat;
  d.sampleCount = 1;
  return gpu::RenderBundleEncoder::acquire(wgpuDeviceCreateRenderBundleEncoder(device.get(), &d));
}

}  // namespace bindery::strategies
