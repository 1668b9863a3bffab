// SPDX-License-Identifier: MIT
// --strategy gpu-driven: the article's animation, frustum culling, two-phase occlusion culling
// and indirect draws, all on the GPU (seed 003's "further ideas": GPU culling, indirect draws,
// double buffering; the GPU-driven pipelines of Haar & Aaltonen, SIGGRAPH 2015, and Wihlidal,
// GDC 2016). Shaders: shaders/gpu_driven_cull.wgsl, depth_pyramid.wgsl, cubes_gpu_driven.wgsl.
//
// Once, at creation: every object's animation inputs (ObjectInput: axis, speeds, radius, scale,
// the reduced phases, material, batch) into a storage buffer; every mesh into one merged vertex +
// index buffer, each mesh one batch (= one indirect draw) with its bounds; materials into a
// storage array; textures into one 2D array texture. Per frame the CPU writes one DrivenFrame
// uniform (time, view-projection, light, eye, counts) and nothing per object, then records:
//   compute "cull":    begin_frame (reset draws and counters), cull_phase1 (animate, frustum,
//                      compact the objects visible last frame into per-batch instance windows)
//   render  "phase1":  one multiDrawIndexedIndirectCount (wgpu-native's MultiDrawIndirectCount
//                      feature) or one drawIndexedIndirect per batch
// and with occlusion culling:
//   compute "pyramid": the depth buffer's max-reduction mip chain
//   compute "cull2":   begin_phase2, cull_phase2 (indirect dispatch over the phase 1 candidates:
//                      test against the pyramid, remember visibility, compact the new ones)
//   render  "phase2":  the same draws again (loads colour and depth)
// Nothing is read back per frame except the statistics the renderer copies without waiting.
#include "object_animation.hpp"
#include "strategy.hpp"

#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/struct_check.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>
#include "core/implementation.hpp"

#include <cstring>

namespace bindery::strategies {
namespace {

constexpr uint32_t kWorkgroupSize = kAnimateWorkgroupSize;  // @workgroup_size of the entries
constexpr uint32_t kPyramidWorkgroup = 8;       // @workgroup_size(8, 8) of depth_pyramid.wgsl
constexpr uint64_t kIndirectArgsBytes = 5 * 4;  // GPUDrawIndexedIndirect: five 32-bit values
constexpr uint64_t kStatsOffset = 4;            // Counters.afterFrustum, after `candidates`
constexpr uint64_t kStatsBytes = 12;            // afterFrustum, afterOcclusion, drawn

// Why the strategy cannot run on this device and scene, or nullopt.
std::optional<std::string> unavailable(const Device& device, const Scene& scene) {
  const Limits& limits = device.limits();
  if (device.adapter().backend == "gl")
    return "its compute shaders do not translate to wgpu-native's OpenGL backend (the GLSL "
           "generated for the occlusion test calls textureSize with an unsigned level); use "
           "--backend vulkan";
  if (!device.has_indirect_first_instance())
    return "needs the indirect-first-instance feature (each batch's instances start at its "
           "firstInstance)";
  if (std::optional<std::string> why = gpu_animation_unavailable(device, scene)) return why;
  if (!scene.textures.empty()) {
    const TextureData& t0 = scene.textures.front();
    for (const TextureData& t : scene.textures)
      if (t.width != t0.width || t.height != t0.height || t.mips.size() != t0.mips.size())
        return "keeps every texture in one 2D array texture, which needs equal texture sizes";
    if (scene.textures.size() > limits.maxTextureArrayLayers)
      return fmt::format("{} textures exceed maxTextureArrayLayers ({})", scene.textures.size(),
                         limits.maxTextureArrayLayers);
  }
  const uint64_t n = std::max<uint64_t>(scene.objects.size(), 1);
  const uint64_t biggest = n * 64;  // instances: 64 bytes per object (Instance)
  if (biggest > limits.maxStorageBufferBindingSize || biggest > limits.maxBufferSize)
    return fmt::format(
        "{} objects need {} bytes of instances in one binding; "
        "maxStorageBufferBindingSize is {}, maxBufferSize {}",
        scene.objects.size(), biggest, limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  return std::nullopt;
}

WGPUBindGroupLayoutEntry buffer_entry(uint32_t binding, WGPUBufferBindingType type,
                                      WGPUShaderStage visibility) {
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = binding;
  e.visibility = visibility;
  e.buffer.type = type;
  return e;
}

WGPUBindGroupLayoutEntry texture_entry(uint32_t binding, WGPUTextureSampleType type,
                                       WGPUTextureViewDimension dimension,
                                       WGPUShaderStage visibility) {
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = binding;
  e.visibility = visibility;
  e.texture.sampleType = type;
  e.texture.viewDimension = dimension;
  return e;
}

WGPUBindGroupEntry buffer_binding(uint32_t binding, WGPUBuffer buffer) {
  WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
  e.binding = binding;
  e.buffer = buffer;
  e.size = WGPU_WHOLE_SIZE;
  return e;
}

WGPUBindGroupEntry texture_binding(uint32_t binding, WGPUTextureView view) {
  WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
  e.binding = binding;
  e.textureView = view;
  return e;
}

class GpuDrivenStrategy final : public Strategy {
 public:
  GpuDrivenStrategy(const Device& device, const Scene& scene, const GpuScene& gpu,
                    const StrategyOptions& options)
      : device_(device),
        gpu_(gpu),
        occlusion_(options.occlusion),
        width_(options.width),
        height_(options.height),
        cull_reflection_(reflect_checked(shaders::gpu_driven_cull)),
        render_reflection_(reflect_checked(shaders::cubes_gpu_driven)),
        frame_layout_(cull_reflection_.struct_layout("DrivenFrame")) {
    object_count_ = static_cast<uint32_t>(scene.objects.size());
    upload_meshes(scene);
    objects_ = upload_object_inputs(device, scene, cull_reflection_.struct_layout("ObjectInput"),
                                    "gpu-driven");
    upload_materials(scene, gpu);
    create_buffers();
    create_pyramid(options.depth_texture);
    create_pipelines();
    with_context("creating the gpu-driven strategy", [&] { device.check(); });
  }

  bool needs_cpu_transforms() const override { return false; }
  uint64_t object_stride() const override { return sizeof(ObjectInputGpu); }
  uint32_t draw_count() const override { return static_cast<uint32_t>(batches_.size()); }
  uint64_t stats_bytes() const override { return kStatsBytes; }

  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    StructView v(frame_layout_, std::span<std::byte>(frame_bytes_));
    v.set(frame_layout_.field("viewProjection"), in.values.view_projection);
    v.set(frame_layout_.field("lightWorldPosition"), in.values.light_world_position);
    v.set(frame_layout_.field("time"), in.time_s);
    v.set(frame_layout_.field("viewWorldPosition"), in.values.view_world_position);
    v.set(frame_layout_.field("objectCount"), object_count_);
    v.set(frame_layout_.field("targetSize"), glm::vec2(float(width_), float(height_)));
    v.set(frame_layout_.field("batchCount"), static_cast<uint32_t>(batches_.size()));
    v.set(frame_layout_.field("occlusion"), occlusion_ ? 1u : 0u);
    v.set(frame_layout_.field("pyramidLevels"), pyramid_levels_);
    device_.write_buffer(frame_.get(), 0, frame_bytes_.data(), frame_bytes_.size());
  }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    wgpuRenderPassEncoderSetPipeline(pass, render_pipeline_.get());
    wgpuRenderPassEncoderSetBindGroup(pass, 0, render_group_.get(), 0, nullptr);
    wgpuRenderPassEncoderSetVertexBuffer(pass, 0, vertices_.get(), 0, WGPU_WHOLE_SIZE);
    wgpuRenderPassEncoderSetIndexBuffer(pass, indices_.get(), WGPUIndexFormat_Uint32, 0,
                                        WGPU_WHOLE_SIZE);
    Counters& c = counters;
    c.set_pipeline++;
    c.set_bind_group++;
    c.set_vertex_buffer++;
    c.set_index_buffer++;
    if (device_.has_multi_draw_indirect_count() && first == 0 && last == batches_.size()) {
      implementation::multi_draw_indexed_indirect_count(pass, draws_.get(), 0, draw_count_.get(), 0,
                                                        last);
      c.draws++;
      return;
    }
    for (uint32_t b = first; b < last; ++b) {
      wgpuRenderPassEncoderDrawIndexedIndirect(pass, draws_.get(),
                                               uint64_t(b) * kIndirectArgsBytes);
      c.draws++;
    }
  }

  void record_frame(FrameContext& ctx) override {
    upload(ctx.in, ctx.encoder);
    const uint32_t batches = static_cast<uint32_t>(batches_.size());
    const uint32_t reset_groups = std::max(1u, (batches + kWorkgroupSize - 1) / kWorkgroupSize);
    {
      TimedComputePass pass(ctx, "cull");
      pass.dispatch(begin_frame_.get(), cull_group_.get(), reset_groups, 1);
      if (const AnimateGrid grid = animate_grid(object_count_); grid.x > 0)
        pass.dispatch(cull_phase1_.get(), cull_group_.get(), grid.x, grid.y);
    }
    render_pass(ctx, "phase1", true);
    if (!occlusion_) return;
    {
      TimedComputePass pass(ctx, "pyramid");
      for (uint32_t level = 0; level < pyramid_levels_; ++level) {
        const uint32_t w = std::max(1u, width_ >> level), h = std::max(1u, height_ >> level);
        pass.dispatch(level == 0 ? from_depth_.get() : reduce_.get(), pyramid_groups_[level].get(),
                      (w + kPyramidWorkgroup - 1) / kPyramidWorkgroup,
                      (h + kPyramidWorkgroup - 1) / kPyramidWorkgroup);
      }
    }
    {
      TimedComputePass pass(ctx, "cull2");
      wgpuComputePassEncoderSetBindGroup(pass.get(), 1, dispatch_group_.get(), 0, nullptr);
      pass.dispatch(begin_phase2_.get(), cull_group_.get(), reset_groups, 1);
      wgpuComputePassEncoderSetPipeline(pass.get(), cull_phase2_.get());
      wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass.get(), dispatch_.get(), 0);
    }
    render_pass(ctx, "phase2", false);
  }

  void copy_stats(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) override {
    wgpuCommandEncoderCopyBufferToBuffer(encoder, counters_.get(), kStatsOffset, dst, offset,
                                         kStatsBytes);
  }

  std::optional<CullingCounts> read_stats(const std::byte* bytes) const override {
    uint32_t v[3];
    std::memcpy(v, bytes, sizeof(v));
    return CullingCounts{object_count_, v[0], v[1], v[2]};
  }

  std::vector<std::pair<std::string, std::string>> notes() const override {
    return {{"drawPath", device_.has_multi_draw_indirect_count() ? "multiDrawIndexedIndirectCount"
                                                                 : "drawIndexedIndirect per batch"},
            {"occlusion", occlusion_ ? "two-phase depth pyramid" : "off"}};
  }

 private:
  struct Batch {
    uint32_t mesh, first_instance, capacity;
  };

  void render_pass(FrameContext& ctx, std::string_view name, bool clear) {
    const uint32_t span = ctx.timer.open(name);
    gpu::RenderPassEncoder pass =
        ctx.target.begin_pass(ctx.encoder, clear, ctx.timer.writes(span, true, true));
    encode(pass.get(), 0, static_cast<uint32_t>(batches_.size()), ctx.counters);
    wgpuRenderPassEncoderEnd(pass.get());
    ctx.passes++;
  }

  // Every mesh into one vertex + one uint32 index buffer (one draw stream for
  // multiDrawIndexedIndirectCount); each mesh one batch whose instance window holds all of its
  // objects.
  void upload_meshes(const Scene& scene) {
    std::vector<Vertex> vertices;
    std::vector<uint32_t> indices;
    std::vector<uint32_t> objects_per_mesh(scene.meshes.size(), 0);
    for (const Object& o : scene.objects) objects_per_mesh[o.mesh]++;
    const StructLayout& info = cull_reflection_.struct_layout("BatchInfo");
    batch_bytes_.resize(std::max<size_t>(scene.meshes.size(), 1) * info.size);
    uint32_t first_instance = 0;
    for (uint32_t m = 0; m < scene.meshes.size(); ++m) {
      const Mesh& mesh = scene.meshes[m];
      StructView v(info, std::span<std::byte>(batch_bytes_).subspan(m * info.size, info.size));
      const glm::vec3 center = (mesh.bounds_min + mesh.bounds_max) * 0.5f;
      v.set(info.field("sphere"),
            glm::vec4(center, glm::length(mesh.bounds_max - mesh.bounds_min) * 0.5f));
      v.set(info.field("boxMin"), glm::vec4(mesh.bounds_min, 0.0f));
      v.set(info.field("boxMax"), glm::vec4(mesh.bounds_max, 0.0f));
      v.set(info.field("indexCount"), static_cast<uint32_t>(mesh.indices.size()));
      v.set(info.field("firstIndex"), static_cast<uint32_t>(indices.size()));
      v.set(info.field("baseVertex"), static_cast<int32_t>(vertices.size()));
      v.set(info.field("firstInstance"), first_instance);
      batches_.push_back({m, first_instance, objects_per_mesh[m]});
      first_instance += objects_per_mesh[m];
      vertices.insert(vertices.end(), mesh.vertices.begin(), mesh.vertices.end());
      indices.insert(indices.end(), mesh.indices.begin(), mesh.indices.end());
    }
    vertices.resize(std::max<size_t>(vertices.size(), 1));
    indices.resize(std::max<size_t>(indices.size(), 1));
    vertices_ = device_.create_buffer("merged vertices", vertices.size() * sizeof(Vertex),
                                      WGPUBufferUsage_Vertex | WGPUBufferUsage_CopyDst);
    device_.write_buffer(vertices_.get(), 0, vertices.data(), vertices.size() * sizeof(Vertex));
    indices_ = device_.create_buffer("merged indices", indices.size() * 4,
                                     WGPUBufferUsage_Index | WGPUBufferUsage_CopyDst);
    device_.write_buffer(indices_.get(), 0, indices.data(), indices.size() * 4);
    batch_info_ = device_.create_buffer("batches", batch_bytes_.size(),
                                        WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
    device_.write_buffer(batch_info_.get(), 0, batch_bytes_.data(), batch_bytes_.size());
  }

  void upload_materials(const Scene& scene, const GpuScene& gpu) {
    const StructLayout& layout = render_reflection_.struct_layout("MaterialData");
    std::vector<std::byte> bytes(std::max<size_t>(scene.materials.size(), 1) * layout.size);
    for (size_t m = 0; m < scene.materials.size(); ++m) {
      StructView v(layout, std::span<std::byte>(bytes).subspan(m * layout.size, layout.size));
      v.set(layout.field("color"), scene.materials[m].color);
      v.set(layout.field("shininess"), scene.materials[m].shininess);
      v.set(layout.field("alphaCutoff"), alpha_cutoff_uniform(scene.materials[m]));
      v.set(layout.field("layer"), scene.materials[m].texture);
    }
    materials_ = device_.create_buffer("materials", bytes.size(),
                                       WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
    device_.write_buffer(materials_.get(), 0, bytes.data(), bytes.size());

    // Every texture (equal sizes: see unavailable()) one layer of a 2D array, with its mips.
    const uint32_t layers = std::max<uint32_t>(static_cast<uint32_t>(scene.textures.size()), 1);
    const uint32_t w = scene.textures.empty() ? 1 : scene.textures[0].width;
    const uint32_t h = scene.textures.empty() ? 1 : scene.textures[0].height;
    const uint32_t mips =
        scene.textures.empty() ? 1 : static_cast<uint32_t>(scene.textures[0].mips.size());
    WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
    td.label = gpu::sv("texture array");
    td.size = {w, h, layers};
    td.format = WGPUTextureFormat_RGBA8Unorm;
    td.mipLevelCount = mips;
    td.usage = WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst;
    textures_ = gpu::Texture::acquire(wgpuDeviceCreateTexture(device_.get(), &td));
    for (uint32_t layer = 0; layer < scene.textures.size(); ++layer) {
      uint32_t lw = w, lh = h;
      for (uint32_t level = 0; level < mips; ++level) {
        WGPUTexelCopyTextureInfo dst = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
        dst.texture = textures_.get();
        dst.mipLevel = level;
        dst.origin = {0, 0, layer};
        WGPUTexelCopyBufferLayout tl = WGPU_TEXEL_COPY_BUFFER_LAYOUT_INIT;
        tl.bytesPerRow = lw * 4;
        tl.rowsPerImage = lh;
        WGPUExtent3D size = {lw, lh, 1};
        const std::vector<uint8_t>& data = scene.textures[layer].mips[level];
        wgpuQueueWriteTexture(device_.queue(), &dst, data.data(), data.size(), &tl, &size);
        lw = std::max(1u, lw / 2);
        lh = std::max(1u, lh / 2);
      }
    }
    WGPUTextureViewDescriptor vd = WGPU_TEXTURE_VIEW_DESCRIPTOR_INIT;
    vd.dimension = WGPUTextureViewDimension_2DArray;
    textures_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(textures_.get(), &vd));
    (void)gpu;
  }

  void create_buffers() {
    frame_bytes_.resize(frame_layout_.size);
    frame_ = device_.create_buffer("driven frame", frame_layout_.size,
                                   WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    const uint64_t n = std::max<uint64_t>(object_count_, 1);
    draws_ = device_.create_buffer("indirect draws",
                                   std::max<size_t>(batches_.size(), 1) * kIndirectArgsBytes,
                                   WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect);
    instances_ =
        device_.create_buffer("instances", n * render_reflection_.struct_layout("Instance").size,
                              WGPUBufferUsage_Storage);
    // The visibility of every object in the last frame (0 at first: phase 2 draws them all).
    visible_ = device_.create_buffer("visible last frame", n * 4, WGPUBufferUsage_Storage);
    candidates_ = device_.create_buffer("phase 2 candidates", n * 4, WGPUBufferUsage_Storage);
    const uint64_t counters_size = cull_reflection_.struct_layout("Counters").size;
    if (counters_size != kStatsOffset + kStatsBytes)
      throw Error(ErrorKind::StructMismatch,
                  fmt::format("gpu_driven_cull.wgsl: Counters is {} bytes, bindery reads {}",
                              counters_size, kStatsOffset + kStatsBytes));
    counters_ = device_.create_buffer("counters", counters_size,
                                      WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
    dispatch_ = device_.create_buffer("phase 2 dispatch", 12,
                                      WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect);
    const uint32_t count = static_cast<uint32_t>(batches_.size());
    draw_count_ =
        device_.create_buffer("draw count", 4, WGPUBufferUsage_Indirect | WGPUBufferUsage_CopyDst);
    device_.write_buffer(draw_count_.get(), 0, &count, 4);
  }

  // The depth pyramid: r32float, level 0 the target's size, floor-halved to 1 x 1.
  void create_pyramid(WGPUTexture depth) {
    uint32_t levels = 1;
    while ((std::max(width_, height_) >> levels) > 0) ++levels;
    pyramid_levels_ = levels;
    WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
    td.label = gpu::sv("depth pyramid");
    td.size = {width_, height_, 1};
    td.format = WGPUTextureFormat_R32Float;
    td.mipLevelCount = levels;
    td.usage = WGPUTextureUsage_StorageBinding | WGPUTextureUsage_TextureBinding;
    pyramid_ = gpu::Texture::acquire(wgpuDeviceCreateTexture(device_.get(), &td));
    pyramid_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(pyramid_.get(), nullptr));
    for (uint32_t level = 0; level < levels; ++level) {
      WGPUTextureViewDescriptor vd = WGPU_TEXTURE_VIEW_DESCRIPTOR_INIT;
      vd.baseMipLevel = level;
      vd.mipLevelCount = 1;
      level_views_.push_back(gpu::TextureView::acquire(wgpuTextureCreateView(pyramid_.get(), &vd)));
    }
    depth_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(depth, nullptr));
  }

  gpu::ComputePipeline compute_pipeline(WGPUShaderModule module, WGPUPipelineLayout layout,
                                        const char* entry) {
    WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    cd.label = gpu::sv(entry);
    cd.layout = layout;
    cd.compute.module = module;
    cd.compute.entryPoint = gpu::sv(entry);
    return gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device_.get(), &cd));
  }

  gpu::BindGroupLayout raw_layout(const char* label, std::span<const WGPUBindGroupLayoutEntry> e) {
    WGPUBindGroupLayoutDescriptor d = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
    d.label = gpu::sv(label);
    d.entryCount = e.size();
    d.entries = e.data();
    return gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device_.get(), &d));
  }

  void create_pipelines() {
    const WGPUShaderStage cs = WGPUShaderStage_Compute;
    // Culling: one group, nine bindings (gpu_driven_cull.wgsl).
    const WGPUBindGroupLayoutEntry cull_entries[] = {
        buffer_entry(0, WGPUBufferBindingType_Uniform, cs),
        buffer_entry(1, WGPUBufferBindingType_ReadOnlyStorage, cs),
        buffer_entry(2, WGPUBufferBindingType_ReadOnlyStorage, cs),
        buffer_entry(3, WGPUBufferBindingType_Storage, cs),
        buffer_entry(4, WGPUBufferBindingType_Storage, cs),
        buffer_entry(5, WGPUBufferBindingType_Storage, cs),
        buffer_entry(6, WGPUBufferBindingType_Storage, cs),
        buffer_entry(7, WGPUBufferBindingType_Storage, cs),
        texture_entry(8, WGPUTextureSampleType_UnfilterableFloat, WGPUTextureViewDimension_2D, cs),
    };
    cull_layout_ = raw_layout("gpu-driven cull", cull_entries);
    const WGPUBindGroupEntry cull_bindings[] = {
        buffer_binding(0, frame_.get()),         buffer_binding(1, objects_.get()),
        buffer_binding(2, batch_info_.get()),    buffer_binding(3, draws_.get()),
        buffer_binding(4, instances_.get()),     buffer_binding(5, visible_.get()),
        buffer_binding(6, candidates_.get()),    buffer_binding(7, counters_.get()),
        texture_binding(8, pyramid_view_.get()),
    };
    cull_group_ = create_bind_group(device_, "gpu-driven cull", cull_layout_.get(), cull_bindings);
    WGPUBindGroupLayout cull_layouts[] = {cull_layout_.get()};
    cull_pipeline_layout_ = create_pipeline_layout(device_, cull_layouts, "gpu-driven cull");
    cull_module_ = device_.create_shader_module("gpu_driven_cull.wgsl", shaders::gpu_driven_cull);
    begin_frame_ = compute_pipeline(cull_module_.get(), cull_pipeline_layout_.get(), "begin_frame");
    cull_phase1_ = compute_pipeline(cull_module_.get(), cull_pipeline_layout_.get(), "cull_phase1");
    const WGPUBindGroupLayoutEntry dispatch_entry[] = {
        buffer_entry(0, WGPUBufferBindingType_Storage, cs)};
    dispatch_layout_ = raw_layout("phase 2 dispatch", dispatch_entry);
    const WGPUBindGroupEntry dispatch_binding[] = {buffer_binding(0, dispatch_.get())};
    dispatch_group_ = create_bind_group(
        device_, "phase 2 dispatch", dispatch_layout_.get(), dispatch_binding);
    WGPUBindGroupLayout begin_phase2_layouts[] = {cull_layout_.get(), dispatch_layout_.get()};
    begin_phase2_pipeline_layout_ =
        create_pipeline_layout(device_, begin_phase2_layouts, "gpu-driven begin phase 2");
    begin_phase2_ =
        compute_pipeline(cull_module_.get(), begin_phase2_pipeline_layout_.get(), "begin_phase2");
    cull_phase2_ = compute_pipeline(cull_module_.get(), cull_pipeline_layout_.get(), "cull_phase2");

    // Depth pyramid: level 0 from the depth texture, then each level from the one before.
    WGPUBindGroupLayoutEntry from_depth[2] = {
        texture_entry(0, WGPUTextureSampleType_Depth, WGPUTextureViewDimension_2D, cs),
        WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT};
    WGPUBindGroupLayoutEntry reduce[2] = {
        texture_entry(2, WGPUTextureSampleType_UnfilterableFloat, WGPUTextureViewDimension_2D, cs),
        WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT};
    for (auto [entries, binding] : {std::pair{from_depth, 1u}, std::pair{reduce, 3u}}) {
      entries[1].binding = binding;
      entries[1].visibility = cs;
      entries[1].storageTexture.access = WGPUStorageTextureAccess_WriteOnly;
      entries[1].storageTexture.format = WGPUTextureFormat_R32Float;
      entries[1].storageTexture.viewDimension = WGPUTextureViewDimension_2D;
    }
    from_depth_layout_ = raw_layout("pyramid from depth", from_depth);
    reduce_layout_ = raw_layout("pyramid reduce", reduce);
    pyramid_module_ = device_.create_shader_module("depth_pyramid.wgsl", shaders::depth_pyramid);
    WGPUBindGroupLayout fl[] = {from_depth_layout_.get()};
    WGPUBindGroupLayout rl[] = {reduce_layout_.get()};
    from_depth_pipeline_layout_ = create_pipeline_layout(device_, fl, "pyramid from depth");
    reduce_pipeline_layout_ = create_pipeline_layout(device_, rl, "pyramid reduce");
    from_depth_ =
        compute_pipeline(pyramid_module_.get(), from_depth_pipeline_layout_.get(), "from_depth");
    reduce_ = compute_pipeline(pyramid_module_.get(), reduce_pipeline_layout_.get(), "reduce");
    for (uint32_t level = 0; level < pyramid_levels_; ++level) {
      if (level == 0) {
        const WGPUBindGroupEntry e[] = {texture_binding(0, depth_view_.get()),
                                        texture_binding(1, level_views_[0].get())};
        pyramid_groups_.push_back(create_bind_group(
            device_, "pyramid level 0", from_depth_layout_.get(), e));
      } else {
        const WGPUBindGroupEntry e[] = {texture_binding(2, level_views_[level - 1].get()),
                                        texture_binding(3, level_views_[level].get())};
        pyramid_groups_.push_back(create_bind_group(
            device_, "pyramid level", reduce_layout_.get(), e));
      }
    }

    // Rendering: one group for the frame (gpu_driven.wgsl's bindings 0..4).
    const WGPUShaderStage vf = WGPUShaderStage_Vertex | WGPUShaderStage_Fragment;
    WGPUBindGroupLayoutEntry render_entries[] = {
        buffer_entry(0, WGPUBufferBindingType_Uniform, vf),
        buffer_entry(1, WGPUBufferBindingType_ReadOnlyStorage, WGPUShaderStage_Vertex),
        buffer_entry(2, WGPUBufferBindingType_ReadOnlyStorage, WGPUShaderStage_Fragment),
        texture_entry(3, WGPUTextureSampleType_Float, WGPUTextureViewDimension_2DArray,
                      WGPUShaderStage_Fragment),
        WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT};
    render_entries[4].binding = 4;
    render_entries[4].visibility = WGPUShaderStage_Fragment;
    render_entries[4].sampler.type = WGPUSamplerBindingType_Filtering;
    render_layout_ = raw_layout("gpu-driven render", render_entries);
    WGPUBindGroupEntry render_bindings[] = {
        buffer_binding(0, frame_.get()), buffer_binding(1, instances_.get()),
        buffer_binding(2, materials_.get()), texture_binding(3, textures_view_.get()),
        WGPU_BIND_GROUP_ENTRY_INIT};
    render_bindings[4].binding = 4;
    render_bindings[4].sampler = gpu_.samplers[0].get();
    render_group_ = create_bind_group(
        device_, "gpu-driven render", render_layout_.get(), render_bindings);
    WGPUBindGroupLayout render_layouts[] = {render_layout_.get()};
    render_pipeline_layout_ = create_pipeline_layout(device_, render_layouts, "gpu-driven render");
    render_module_ =
        device_.create_shader_module("cubes_gpu_driven.wgsl", shaders::cubes_gpu_driven);
    render_pipeline_ = create_scene_pipeline(device_, render_module_.get(),
                                             render_pipeline_layout_.get(), "gpu-driven");
  }

  const Device& device_;
  const GpuScene& gpu_;
  bool occlusion_;
  uint32_t width_, height_;
  Reflection cull_reflection_, render_reflection_;
  const StructLayout& frame_layout_;
  uint32_t object_count_ = 0, pyramid_levels_ = 1;
  std::vector<Batch> batches_;
  std::vector<std::byte> batch_bytes_, frame_bytes_;
  gpu::Buffer vertices_, indices_, batch_info_, objects_, materials_, frame_, draws_, instances_,
      visible_, candidates_, counters_, dispatch_, draw_count_;
  gpu::Texture textures_, pyramid_;
  gpu::TextureView textures_view_, pyramid_view_, depth_view_;
  std::vector<gpu::TextureView> level_views_;
  gpu::BindGroupLayout cull_layout_, dispatch_layout_, from_depth_layout_, reduce_layout_,
      render_layout_;
  gpu::BindGroup cull_group_, dispatch_group_, render_group_;
  std::vector<gpu::BindGroup> pyramid_groups_;
  gpu::PipelineLayout cull_pipeline_layout_, begin_phase2_pipeline_layout_,
      from_depth_pipeline_layout_, reduce_pipeline_layout_, render_pipeline_layout_;
  gpu::ShaderModule cull_module_, pyramid_module_, render_module_;
  gpu::ComputePipeline begin_frame_, cull_phase1_, begin_phase2_, cull_phase2_, from_depth_,
      reduce_;
  gpu::RenderPipeline render_pipeline_;
};

}  // namespace

extern const StrategyRow gpu_driven_row{
    {"gpu-driven",
     "objects uploaded once; the GPU animates, frustum- and occlusion-culls (depth pyramid, two "
     "phases) and fills indirect draws; nothing per object on the CPU",
     "003: further ideas (GPU-driven culling, indirect draws, double buffering)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<GpuDrivenStrategy>(device, scene, gpu, options);
    },
    unavailable};

}  // namespace bindery::strategies
