// SPDX-License-Identifier: MIT
// GpuDrivenScene: the GPU-driven stages composed into one scene (gpu_driven_scene.hpp).
#include "bindery/gpu_driven/gpu_driven_scene.hpp"

#include "bindery/core/error.hpp"
#include "bindery/data/layout_builder.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery::gpu_driven {
namespace {

void validate_depth(const std::string& label, const DepthTargetDesc& depth, const char* call) {
  if (!depth.texture)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {}: GpuDrivenSceneDesc::depth.texture is null while "
                            "GpuDrivenSceneDesc::culling.occlusion is true (the depth pyramid "
                            "reduces phase 1's depth)",
                            label, call));
  if (depth.width == 0 || depth.height == 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {}: GpuDrivenSceneDesc::depth is {} x {} texels; both must be "
                            "at least 1",
                            label, call, depth.width, depth.height));
}

void validate_desc(const GpuDrivenSceneDesc& desc) {
  if (desc.culling.occlusion) validate_depth(desc.label, desc.depth, "GpuDrivenScene");
  const ObjectGroupDesc& g = desc.object_group;
  if (!g.layout && g.extra_entries.size() != g.extra_layout_entries.size())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: GpuDrivenSceneDesc::object_group.extra_entries holds {} entries "
                            "and extra_layout_entries {}; each extra binding needs one of each",
                            desc.label, g.extra_entries.size(), g.extra_layout_entries.size()));
  auto check_binding = [&](uint32_t binding, const char* field) {
    if (binding == g.first_binding || binding == g.first_binding + 1)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: GpuDrivenSceneDesc::object_group.{} names binding {}, which "
                              "the object records (first_binding {}) or the remap ({}) take",
                              desc.label, field, binding, g.first_binding, g.first_binding + 1));
  };
  for (const WGPUBindGroupLayoutEntry& e : g.extra_layout_entries)
    check_binding(e.binding, "extra_layout_entries");
  for (const WGPUBindGroupEntry& e : g.extra_entries) check_binding(e.binding, "extra_entries");
}

// Begins a compute pass of `desc`, records `body` into it and ends it.
template <typename Body>
void compute_pass(WGPUCommandEncoder encoder, const WGPUComputePassDescriptor& desc, Body&& body) {
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &desc);
  body(pass);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
}

void render_pass(WGPUCommandEncoder encoder, const WGPURenderPassDescriptor& desc,
                 const SceneDrawCallback& draw, ScenePhase phase) {
  gpu::RenderPassEncoder pass =
      gpu::RenderPassEncoder::acquire(wgpuCommandEncoderBeginRenderPass(encoder, &desc));
  draw(pass.get(), phase);
  wgpuRenderPassEncoderEnd(pass.get());
}

bool loads_everything(const WGPURenderPassDescriptor& d) {
  if (d.colorAttachmentCount == 0 && !d.depthStencilAttachment) return false;
  for (size_t i = 0; i < d.colorAttachmentCount; ++i)
    if (d.colorAttachments[i].view && d.colorAttachments[i].loadOp == WGPULoadOp_Clear)
      return false;
  return !d.depthStencilAttachment || d.depthStencilAttachment->depthLoadOp != WGPULoadOp_Clear;
}

}  // namespace

TargetPasses::TargetPasses(WGPUTextureView color, WGPUTextureView depth, WGPUColor clear_color,
                           float depth_clear)
    : has_depth_(depth != nullptr) {
  for (int phase = 0; phase < 2; ++phase) {
    const bool clear = phase == 0;
    WGPURenderPassColorAttachment& ca = color_[phase];
    ca = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
    ca.view = color;
    ca.loadOp = clear ? WGPULoadOp_Clear : WGPULoadOp_Load;
    ca.storeOp = WGPUStoreOp_Store;
    ca.clearValue = clear_color;
    WGPURenderPassDepthStencilAttachment& da = depth_[phase];
    da = WGPU_RENDER_PASS_DEPTH_STENCIL_ATTACHMENT_INIT;
    da.view = depth;
    da.depthLoadOp = clear ? WGPULoadOp_Clear : WGPULoadOp_Load;
    da.depthStoreOp = WGPUStoreOp_Store;
    da.depthClearValue = depth_clear;
  }
}

ScenePasses TargetPasses::passes() const {
  ScenePasses p;
  WGPURenderPassDescriptor* render[2] = {&p.phase1, &p.phase2};
  for (int phase = 0; phase < 2; ++phase) {
    render[phase]->colorAttachmentCount = 1;
    render[phase]->colorAttachments = &color_[phase];
    render[phase]->depthStencilAttachment = has_depth_ ? &depth_[phase] : nullptr;
  }
  return p;
}

GpuDrivenScene::GpuDrivenScene(const Device& device, ObjectTable& objects, const MeshPool& meshes,
                               GpuDrivenSceneDesc desc)
    : device_(device),
      objects_(objects),
      meshes_(meshes),
      desc_((validate_desc(desc), std::move(desc))) {
  if (desc_.read_counts) counts_.emplace(device, Culling::kStatsBytes, desc_.label + " counts");
  with_context(fmt::format("creating GpuDrivenScene '{}'", desc_.label), [&] {
    draws_ = std::make_unique<IndirectDraws>(device_, objects_, meshes_, desc_.draws);
    create_culling();
    const ObjectGroupDesc& g = desc_.object_group;
    object_layout_ = g.layout;
    if (!object_layout_) {
      std::vector<WGPUBindGroupLayoutEntry> entries =
          IndirectDraws::object_layout_entries(g.first_binding, g.visibility);
      entries.insert(entries.end(), g.extra_layout_entries.begin(), g.extra_layout_entries.end());
      own_layout_ = create_bind_group_layout(device_, desc_.label + " objects", entries);
      object_layout_ = own_layout_.get();
    }
    refresh_object_group();
  });
}

GpuDrivenScene::~GpuDrivenScene() = default;

void GpuDrivenScene::create_culling() {
  culling_.reset();
  pyramid_.reset();
  if (desc_.culling.occlusion)
    pyramid_ = std::make_unique<DepthPyramid>(device_, desc_.depth.texture, desc_.depth.width,
                                              desc_.depth.height);
  culling_ = std::make_unique<Culling>(device_, objects_, meshes_, *draws_, pyramid_.get(),
                                       desc_.culling);
}

void GpuDrivenScene::refresh_object_group() {
  const uint64_t generation = draws_->object_group_generation();
  if (object_group_ && generation == object_generation_) return;
  const ObjectGroupDesc& g = desc_.object_group;
  std::vector<WGPUBindGroupEntry> entries = draws_->object_group_entries(g.first_binding);
  entries.insert(entries.end(), g.extra_entries.begin(), g.extra_entries.end());
  object_group_ = create_bind_group(device_, desc_.label + " objects", object_layout_, entries);
  object_generation_ = generation;
  ++object_group_rebuilds_;
}

ObjectFlushStats GpuDrivenScene::prepare(WGPUCommandEncoder encoder,
                                         const glm::mat4& view_projection) {
  const ObjectFlushStats flushed = objects_.flush(encoder);
  culling_->prepare(view_projection);
  refresh_object_group();
  return flushed;
}

void GpuDrivenScene::record_passes(WGPUCommandEncoder encoder, const ScenePasses& passes,
                                   const SceneDrawCallback& draw,
                                   const SceneComputeCallback& before_cull) {
  if (!draw)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: record_passes: the draw callback is empty", desc_.label));
  if (desc_.culling.output != CullingOutput::bins)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: record_passes: GpuDrivenSceneDesc::culling.output is the instance "
                            "list (the cluster path's input); the frame's draws need "
                            "CullingOutput::bins. Record the cluster stages through culling()",
                            desc_.label));
  if (occlusion() && !loads_everything(passes.phase2))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: record_passes: ScenePasses::phase2 must load every attachment "
                            "(loadOp Load: it draws over phase 1's colour and depth)",
                            desc_.label));
  compute_pass(encoder, passes.cull, [&](WGPUComputePassEncoder pass) {
    if (before_cull) before_cull(pass);
    culling_->phase1(pass);
  });
  render_pass(encoder, passes.phase1, draw, ScenePhase::phase1);
  if (occlusion()) {
    compute_pass(encoder, passes.pyramid, [&](WGPUComputePassEncoder pass) { pyramid_->build(pass); });
    compute_pass(encoder, passes.cull2, [&](WGPUComputePassEncoder pass) { culling_->phase2(pass); });
    render_pass(encoder, passes.phase2, draw, ScenePhase::phase2);
  }
  if (counts_) {
    culling_->copy_stats(encoder, counts_->buffer(), 0);
    counted_objects_ = objects_.size();
    counted_ = true;
  }
}

ObjectFlushStats GpuDrivenScene::record_frame(WGPUCommandEncoder encoder,
                                              const glm::mat4& view_projection,
                                              const ScenePasses& passes,
                                              const SceneDrawCallback& draw,
                                              const SceneComputeCallback& before_cull) {
  const ObjectFlushStats flushed = prepare(encoder, view_projection);
  record_passes(encoder, passes, draw, before_cull);
  return flushed;
}

void GpuDrivenScene::copy_counts(WGPUCommandEncoder encoder, WGPUBuffer dst,
                                 uint64_t offset) const {
  culling_->copy_stats(encoder, dst, offset);
}

CullingStats GpuDrivenScene::counts_from(const std::byte* bytes, uint32_t objects) {
  return Culling::read_stats(bytes, objects);
}

CullingStats GpuDrivenScene::read_counts() const {
  if (!counts_)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: read_counts: GpuDrivenSceneDesc::read_counts is false (no "
                            "readback buffer; copy_counts() into a buffer of your own)",
                            desc_.label));
  if (!counted_) return CullingStats{};
  const std::vector<std::byte> bytes = counts_->read();
  return Culling::read_stats(bytes.data(), counted_objects_);
}

void GpuDrivenScene::set_depth_target(const DepthTargetDesc& depth) {
  if (!occlusion())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: set_depth_target: GpuDrivenSceneDesc::culling.occlusion is "
                            "false, so no pyramid reads a depth target",
                            desc_.label));
  validate_depth(desc_.label, depth, "set_depth_target");
  desc_.depth = depth;
  with_context(fmt::format("{}: set_depth_target", desc_.label), [&] { create_culling(); });
}

}  // namespace bindery::gpu_driven
