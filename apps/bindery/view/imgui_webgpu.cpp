// SPDX-License-Identifier: MIT
// Dear ImGui's draw lists on webgpu.h: ImDrawVert (position, uv, RGBA8 colour) straight into a
// vertex buffer, 16-bit indices, one bind group (scale/translate uniform, sampler, font atlas),
// alpha blending, a scissor rectangle per command.
#include "imgui_webgpu.hpp"

#include "bindery/data/layout_builder.hpp"

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace bindery::view {
namespace {

static_assert(sizeof(ImDrawIdx) == 2, "the pipeline reads 16-bit indices");
static_assert(sizeof(ImDrawVert) == 20, "position, uv, packed colour");

constexpr const char* kShader = R"(
struct Transform {
  scale: vec2f,
  translate: vec2f,
}
@group(0) @binding(0) var<uniform> transform: Transform;
@group(0) @binding(1) var atlas_sampler: sampler;
@group(0) @binding(2) var atlas: texture_2d<f32>;

struct VertexOut {
  @builtin(position) position: vec4f,
  @location(0) uv: vec2f,
  @location(1) color: vec4f,
}

@vertex fn vs(@location(0) position: vec2f, @location(1) uv: vec2f,
              @location(2) color: vec4f) -> VertexOut {
  var out: VertexOut;
  out.position = vec4f(position * transform.scale + transform.translate, 0.0, 1.0);
  out.uv = uv;
  out.color = color;
  return out;
}

@fragment fn fs(in: VertexOut) -> @location(0) vec4f {
  return in.color * textureSample(atlas, atlas_sampler, in.uv);
}
)";

uint64_t round4(uint64_t n) {
  return (n + 3) & ~uint64_t(3);
}

}  // namespace

ImGuiRenderer::ImGuiRenderer(const Device& device, WGPUTextureFormat format) : device_(device) {
  WGPUDevice d = device.get();
  gpu::ShaderModule shader = device.create_shader_module("imgui", kShader);

  WGPUVertexAttribute attributes[3] = {};
  attributes[0] = {nullptr, WGPUVertexFormat_Float32x2, offsetof(ImDrawVert, pos), 0};
  attributes[1] = {nullptr, WGPUVertexFormat_Float32x2, offsetof(ImDrawVert, uv), 1};
  attributes[2] = {nullptr, WGPUVertexFormat_Unorm8x4, offsetof(ImDrawVert, col), 2};
  WGPUVertexBufferLayout layout = WGPU_VERTEX_BUFFER_LAYOUT_INIT;
  layout.arrayStride = sizeof(ImDrawVert);
  layout.stepMode = WGPUVertexStepMode_Vertex;
  layout.attributeCount = 3;
  layout.attributes = attributes;

  WGPUBlendState blend = WGPU_BLEND_STATE_INIT;
  blend.color = {WGPUBlendOperation_Add, WGPUBlendFactor_SrcAlpha,
                 WGPUBlendFactor_OneMinusSrcAlpha};
  blend.alpha = {WGPUBlendOperation_Add, WGPUBlendFactor_One, WGPUBlendFactor_OneMinusSrcAlpha};
  WGPUColorTargetState target = WGPU_COLOR_TARGET_STATE_INIT;
  target.format = format;
  target.blend = &blend;
  target.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState fragment = WGPU_FRAGMENT_STATE_INIT;
  fragment.module = shader.get();
  fragment.entryPoint = gpu::sv("fs");
  fragment.targetCount = 1;
  fragment.targets = &target;
  WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  pd.label = gpu::sv("imgui");
  pd.vertex.module = shader.get();
  pd.vertex.entryPoint = gpu::sv("vs");
  pd.vertex.bufferCount = 1;
  pd.vertex.buffers = &layout;
  pd.primitive.topology = WGPUPrimitiveTopology_TriangleList;
  pd.primitive.cullMode = WGPUCullMode_None;
  pd.fragment = &fragment;
  pipeline_ = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(d, &pd));

  // The font atlas, RGBA8.
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
  td.label = gpu::sv("imgui font atlas");
  td.size = {uint32_t(width), uint32_t(height), 1};
  td.format = WGPUTextureFormat_RGBA8Unorm;
  td.usage = WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst;
  font_ = gpu::Texture::acquire(wgpuDeviceCreateTexture(d, &td));
  WGPUTexelCopyTextureInfo dst = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
  dst.texture = font_.get();
  WGPUTexelCopyBufferLayout src = WGPU_TEXEL_COPY_BUFFER_LAYOUT_INIT;
  src.bytesPerRow = uint32_t(width) * 4;
  src.rowsPerImage = uint32_t(height);
  wgpuQueueWriteTexture(device.queue(), &dst, pixels, size_t(width) * height * 4, &src, &td.size);
  font_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(font_.get(), nullptr));
  WGPUSamplerDescriptor sd = WGPU_SAMPLER_DESCRIPTOR_INIT;
  sd.magFilter = WGPUFilterMode_Linear;
  sd.minFilter = WGPUFilterMode_Linear;
  sampler_ = gpu::Sampler::acquire(wgpuDeviceCreateSampler(d, &sd));
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(font_view_.get()));

  // First vertex and index buffers now (grown by doubling in draw()), so that the panel's first
  // frame creates no object inside a render run.
  reserve(vertices_, vertex_capacity_, 64 * 1024, WGPUBufferUsage_Vertex, "imgui vertices");
  reserve(indices_, index_capacity_, 16 * 1024, WGPUBufferUsage_Index, "imgui indices");
  uniforms_ = device.create_buffer("imgui transform", 16,
                                   WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  const WGPUBindGroupEntry entries[3] = {buffer_group_entry(0, uniforms_.get(), 0, 16),
                                         sampler_group_entry(1, sampler_.get()),
                                         texture_group_entry(2, font_view_.get())};
  gpu::BindGroupLayout bgl =
      gpu::BindGroupLayout::acquire(wgpuRenderPipelineGetBindGroupLayout(pipeline_.get(), 0));
  WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  bd.label = gpu::sv("imgui");
  bd.layout = bgl.get();
  bd.entryCount = 3;
  bd.entries = entries;
  bind_group_ = gpu::BindGroup::acquire(wgpuDeviceCreateBindGroup(d, &bd));
  device.check();
}

void ImGuiRenderer::reserve(gpu::Buffer& buffer, uint64_t& capacity, uint64_t bytes,
                            WGPUBufferUsage usage, const char* label) {
  if (bytes <= capacity) return;
  capacity = std::max<uint64_t>(round4(bytes), capacity * 2);
  buffer = device_.create_buffer(label, capacity, usage | WGPUBufferUsage_CopyDst);
}

void ImGuiRenderer::draw(const ImDrawData& data, WGPURenderPassEncoder pass) {
  const float fb_w = data.DisplaySize.x * data.FramebufferScale.x;
  const float fb_h = data.DisplaySize.y * data.FramebufferScale.y;
  if (data.TotalVtxCount == 0 || fb_w <= 0 || fb_h <= 0) return;

  // Every list's vertices, then every list's indices, each in one upload (sizes padded to 4).
  std::vector<ImDrawVert> vertices;
  std::vector<ImDrawIdx> indices;
  vertices.reserve(size_t(data.TotalVtxCount));
  indices.reserve(size_t(data.TotalIdxCount) + 1);
  for (int n = 0; n < data.CmdListsCount; ++n) {
    const ImDrawList* list = data.CmdLists[n];
    vertices.insert(vertices.end(), list->VtxBuffer.Data,
                    list->VtxBuffer.Data + list->VtxBuffer.Size);
    indices.insert(indices.end(), list->IdxBuffer.Data,
                   list->IdxBuffer.Data + list->IdxBuffer.Size);
  }
  if (indices.size() % 2) indices.push_back(0);  // writeBuffer sizes are multiples of 4
  const uint64_t vbytes = vertices.size() * sizeof(ImDrawVert);
  const uint64_t ibytes = indices.size() * sizeof(ImDrawIdx);
  reserve(vertices_, vertex_capacity_, vbytes, WGPUBufferUsage_Vertex, "imgui vertices");
  reserve(indices_, index_capacity_, ibytes, WGPUBufferUsage_Index, "imgui indices");
  // Plain queue writes: the view's uploads stay out of the renderer's per-frame counters.
  wgpuQueueWriteBuffer(device_.queue(), vertices_.get(), 0, vertices.data(), vbytes);
  wgpuQueueWriteBuffer(device_.queue(), indices_.get(), 0, indices.data(), ibytes);

  // Display coordinates (origin DisplayPos, y down) to clip space.
  const float scale[2] = {2.0f / data.DisplaySize.x, -2.0f / data.DisplaySize.y};
  const float transform[4] = {scale[0], scale[1], -1.0f - data.DisplayPos.x * scale[0],
                              1.0f - data.DisplayPos.y * scale[1]};
  wgpuQueueWriteBuffer(device_.queue(), uniforms_.get(), 0, transform, sizeof(transform));

  wgpuRenderPassEncoderSetPipeline(pass, pipeline_.get());
  wgpuRenderPassEncoderSetBindGroup(pass, 0, bind_group_.get(), 0, nullptr);
  wgpuRenderPassEncoderSetVertexBuffer(pass, 0, vertices_.get(), 0, vbytes);
  wgpuRenderPassEncoderSetIndexBuffer(pass, indices_.get(), WGPUIndexFormat_Uint16, 0, ibytes);

  uint32_t vertex_base = 0, index_base = 0;
  for (int n = 0; n < data.CmdListsCount; ++n) {
    const ImDrawList* list = data.CmdLists[n];
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback != nullptr) continue;  // the panel sets none
      // The clip rectangle in framebuffer pixels, clamped to the target.
      const float x0 =
          std::clamp((cmd.ClipRect.x - data.DisplayPos.x) * data.FramebufferScale.x, 0.0f, fb_w);
      const float y0 =
          std::clamp((cmd.ClipRect.y - data.DisplayPos.y) * data.FramebufferScale.y, 0.0f, fb_h);
      const float x1 =
          std::clamp((cmd.ClipRect.z - data.DisplayPos.x) * data.FramebufferScale.x, 0.0f, fb_w);
      const float y1 =
          std::clamp((cmd.ClipRect.w - data.DisplayPos.y) * data.FramebufferScale.y, 0.0f, fb_h);
      if (x1 <= x0 || y1 <= y0 || cmd.ElemCount == 0) continue;
      wgpuRenderPassEncoderSetScissorRect(pass, uint32_t(x0), uint32_t(y0),
                                          uint32_t(x1) - uint32_t(x0), uint32_t(y1) - uint32_t(y0));
      wgpuRenderPassEncoderDrawIndexed(pass, cmd.ElemCount, 1, index_base + cmd.IdxOffset,
                                       int32_t(vertex_base + cmd.VtxOffset), 0);
    }
    vertex_base += uint32_t(list->VtxBuffer.Size);
    index_base += uint32_t(list->IdxBuffer.Size);
  }
  wgpuRenderPassEncoderSetScissorRect(pass, 0, 0, uint32_t(fb_w), uint32_t(fb_h));
}

}  // namespace bindery::view
