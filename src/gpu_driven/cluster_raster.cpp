// SPDX-License-Identifier: MIT
#include "bindery/gpu_driven/cluster_raster.hpp"

#include "compute_helpers.hpp"

#include "internal/implementation.hpp"
#include "bindery/core/error.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery::gpu_driven {
namespace {

// The rung's visibility store, spliced in place of raster_store_default.wgsl's block (in
// cluster_raster.wgsl through raster_core.wgsl).
constexpr std::string_view kStoreBegin = "// BEGIN raster store";
constexpr std::string_view kStoreEnd = "// END raster store";

constexpr std::string_view kStoreInt64 = R"(
@group(1) @binding(0) var<storage, read_write> visibility: array<atomic<u64>>;

fn raster_store(pixel: u32, key: u32, id: u32) {
  atomicMax(&visibility[pixel], (u64(key) << 32u) | u64(id));
}
)";

// Core rung, first pass: the nearest key; second pass: the largest id of that key.
constexpr std::string_view kStoreCoreDepth = R"(
@group(1) @binding(0) var<storage, read_write> visibility: array<atomic<u32>>;

fn raster_store(pixel: u32, key: u32, id: u32) {
  atomicMax(&visibility[pixel], key);
}
)";

constexpr std::string_view kStoreCoreId = R"(
@group(1) @binding(0) var<storage, read_write> visibility: array<atomic<u32>>;

fn raster_store(pixel: u32, key: u32, id: u32) {
  let n = arrayLength(&visibility) / 2u;
  if (atomicLoad(&visibility[pixel]) == key) {
    atomicMax(&visibility[n + pixel], id);
  }
}
)";

std::string raster_module_text(std::string_view store) {
  std::string text(shaders::cluster_raster);
  const size_t begin = text.find(kStoreBegin);
  const size_t end = text.find(kStoreEnd);
  text.replace(begin, end + kStoreEnd.size() - begin, store);
  return text;
}

constexpr uint64_t kTargetBytes = 32;  // RasterTarget

// The split of --rasterizer auto: pixels of screen bound per triangle up to which a cluster is
// rasterized in compute. Measured (docs/BENCHMARKS.md, "Compute rasterizer"): on the H200
// compute wins at every size measured (bounds of 0.01..4 pixels per triangle, 1.2x to 32x); on
// lavapipe it wins below about 4 and loses above (2.7x faster at 0.8, 1.3x slower at 7).
constexpr float kComputeRasterAutoAreaPx = 4.0f;

}  // namespace

std::string_view to_string(RasterRung rung) {
  switch (rung) {
    case RasterRung::int64_atomic_max: return "int64-atomic-max";
    case RasterRung::core: return "core";
  }
  return "core";
}

std::optional<RasterRung> parse_raster_rung(std::string_view name) {
  for (RasterRung r : {RasterRung::int64_atomic_max, RasterRung::core})
    if (name == to_string(r)) return r;
  return std::nullopt;
}

float compute_raster_auto_area_px(const Device&) {
  // One split for the devices measured (a discrete GPU and a CPU rasterizer): both break even
  // near the same bound per triangle.
  return kComputeRasterAutoAreaPx;
}

std::optional<std::string> raster_rung_unavailable(const Device& device, RasterRung rung) {
  if (rung == RasterRung::core) return std::nullopt;
  return implementation::int64_atomic_max_unavailable(device.get());
}

std::optional<std::string> raster_target_unavailable(const Device& device, uint32_t width,
                                                     uint32_t height) {
  const uint64_t bytes = std::max<uint64_t>(uint64_t(width) * height * 8, 8);
  const Limits& limits = device.limits();
  const uint64_t most = std::min<uint64_t>(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  if (bytes <= most) return std::nullopt;
  return fmt::format("the compute rasterizer's visibility buffer for {}x{} pixels is {} bytes (8 a "
                     "pixel); the device binds at most {} (maxStorageBufferBindingSize, "
                     "maxBufferSize)",
                     width, height, bytes, most);
}

RasterRung best_raster_rung(const Device& device) {
  return raster_rung_unavailable(device, RasterRung::int64_atomic_max) ? RasterRung::core
                                                                       : RasterRung::int64_atomic_max;
}

ClusterRaster::ClusterRaster(const Device& device, const ObjectTable& objects,
                             const ClusterGeometry& geometry, const ClusterCulling& culling,
                             const ClusterRasterDesc& desc)
    : device_(device),
      objects_(objects),
      geometry_(geometry),
      culling_(culling),
      desc_(desc),
      rung_(desc.rung.value_or(best_raster_rung(device))) {
  using namespace detail;
  if (std::optional<std::string> why = raster_rung_unavailable(device, rung_))
    throw Error(ErrorKind::StrategyUnavailable,
                fmt::format("the compute rasterizer's rung {}: {}", to_string(rung_), *why));
  const WGPUShaderStage cs = WGPUShaderStage_Compute;
  const WGPUBufferBindingType ro = WGPUBufferBindingType_ReadOnlyStorage;
  const WGPUBindGroupLayoutEntry entries[] = {
      buffer_layout_entry(0, cs, WGPUBufferBindingType_Uniform), buffer_layout_entry(1, cs, ro),
      buffer_layout_entry(2, cs, ro), buffer_layout_entry(3, cs, ro), buffer_layout_entry(4, cs, ro),
      buffer_layout_entry(5, cs, ro), buffer_layout_entry(6, cs, ro)};
  layout_ = create_bind_group_layout(device, "cluster raster", entries);
  const WGPUBindGroupLayoutEntry store[] = {buffer_layout_entry(0, cs, WGPUBufferBindingType_Storage)};
  store_layout_ = create_bind_group_layout(device, "cluster raster: visibility", store);
  const WGPUShaderStage fs = WGPUShaderStage_Fragment;
  const WGPUBindGroupLayoutEntry resolve[] = {
      buffer_layout_entry(0, fs | WGPUShaderStage_Vertex, WGPUBufferBindingType_Uniform),
      buffer_layout_entry(1, fs, ro), buffer_layout_entry(2, fs, ro),
      buffer_layout_entry(3, WGPUShaderStage_Vertex, ro)};
  resolve_layout_ = create_bind_group_layout(device, "cluster resolve", resolve);
  WGPUBindGroupLayout two[] = {layout_.get(), store_layout_.get()};
  pipeline_layout_ = create_pipeline_layout(device, two, "cluster raster");
  if (rung_ == RasterRung::int64_atomic_max) {
    module_ = device.create_shader_module("cluster_raster.wgsl (int64 atomic max)",
                                          raster_module_text(kStoreInt64));
    depth_pass_ = make_compute(device, module_.get(), pipeline_layout_.get(), "raster_pass");
  } else {
    module_ = device.create_shader_module("cluster_raster.wgsl (core: depth)",
                                          raster_module_text(kStoreCoreDepth));
    depth_pass_ = make_compute(device, module_.get(), pipeline_layout_.get(), "raster_pass");
    const gpu::ShaderModule ids = device.create_shader_module(
        "cluster_raster.wgsl (core: ids)", raster_module_text(kStoreCoreId));
    id_pass_ = make_compute(device, ids.get(), pipeline_layout_.get(), "raster_pass");
  }
  target_ = device.create_buffer(desc_.label + ": target", kTargetBytes,
                                 WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  with_context("creating the compute rasterizer", [&] { device.check(); });
}

std::string ClusterRaster::resolve_wgsl(uint32_t group) {
  return detail::wgsl_block(shaders::cluster_resolve_default, "struct RasterTarget",
                            "// END cluster resolve", 3, group);
}

bool ClusterRaster::prepare(uint32_t width, uint32_t height) {
  const bool resized = width != width_ || height != height_ || !visibility_;
  if (resized) {
    const uint64_t pixels = uint64_t(width) * height;
    const uint64_t bytes = std::max<uint64_t>(pixels * 8, 8);
    if (std::optional<std::string> why = raster_target_unavailable(device_, width, height))
      throw Error(ErrorKind::BufferTooLarge, *why + "; the hardware rasterizer alone draws it");
    visibility_ = device_.create_buffer(
        desc_.label + ": visibility", bytes,
        WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
    width_ = width;
    height_ = height;
    // RasterTarget: size, key stride and offset, id stride and offset (in u32 words).
    const bool wide = rung_ == RasterRung::int64_atomic_max;
    const uint32_t target[8] = {width,           height, wide ? 2u : 1u, wide ? 1u : 0u,
                                wide ? 2u : 1u, wide ? 0u : uint32_t(pixels), 0, 0};
    device_.write_buffer(target_.get(), 0, target, sizeof(target));
  }
  const bool changed = resized || culling_.raster_clusters_buffer() != raster_slots_ ||
                       geometry_.pool().vertex_buffer() != pool_vertices_ ||
                       objects_.buffer() != object_buffer_ ||
                       objects_.generation() != objects_generation_ ||
                       geometry_.generation() != geometry_generation_;
  if (changed) create_groups();
  return changed;
}

void ClusterRaster::create_groups() {
  using namespace detail;
  const WGPUBindGroupEntry e[] = {
      buffer_group_entry(0, culling_.frame_buffer()),
      buffer_group_entry(1, objects_.buffer()),
      buffer_group_entry(2, geometry_.cluster_buffer()),
      buffer_group_entry(3, geometry_.word_buffer()),
      buffer_group_entry(4, geometry_.pool().vertex_buffer()),
      buffer_group_entry(5, culling_.raster_clusters_buffer()),
      buffer_group_entry(6, culling_.counts_buffer()),
  };
  group_ = create_bind_group(device_, "cluster raster", layout_.get(), e);
  const WGPUBindGroupEntry s[] = {buffer_group_entry(0, visibility_.get())};
  store_group_ = create_bind_group(device_, "cluster raster: visibility", store_layout_.get(), s);
  const WGPUBindGroupEntry r[] = {buffer_group_entry(0, target_.get()),
                                  buffer_group_entry(1, culling_.raster_clusters_buffer()),
                                  buffer_group_entry(2, visibility_.get()),
                                  buffer_group_entry(3, culling_.counts_buffer())};
  resolve_group_ = create_bind_group(device_, "cluster resolve", resolve_layout_.get(), r);
  raster_slots_ = culling_.raster_clusters_buffer();
  pool_vertices_ = geometry_.pool().vertex_buffer();
  object_buffer_ = objects_.buffer();
  objects_generation_ = objects_.generation();
  geometry_generation_ = geometry_.generation();
}

void ClusterRaster::clear(WGPUCommandEncoder encoder) const {
  wgpuCommandEncoderClearBuffer(encoder, visibility_.get(), 0, WGPU_WHOLE_SIZE);
}

void ClusterRaster::rasterize(WGPUComputePassEncoder pass) const {
  auto run = [&](const gpu::ComputePipeline& p) {
    wgpuComputePassEncoderSetPipeline(pass, p.get());
    wgpuComputePassEncoderSetBindGroup(pass, 0, group_.get(), 0, nullptr);
    wgpuComputePassEncoderSetBindGroup(pass, 1, store_group_.get(), 0, nullptr);
    culling_.raster_dispatch(pass);
  };
  run(depth_pass_);
  if (id_pass_) run(id_pass_);
}

void ClusterRaster::resolve(WGPURenderPassEncoder pass, WGPURenderPipeline pipeline,
                            std::span<const WGPUBindGroup> groups, const ClusterCulling& culling,
                            Counters& counters) const {
  wgpuRenderPassEncoderSetPipeline(pass, pipeline);
  counters.set_pipeline++;
  uint32_t g = 0;
  for (; g < groups.size(); ++g) {
    wgpuRenderPassEncoderSetBindGroup(pass, g, groups[g], 0, nullptr);
    counters.set_bind_group++;
  }
  wgpuRenderPassEncoderSetBindGroup(pass, g++, culling.group(), 0, nullptr);
  wgpuRenderPassEncoderSetBindGroup(pass, g, resolve_group_.get(), 0, nullptr);
  counters.set_bind_group += 2;
  culling.resolve_draw(pass);
  counters.draws++;
}

}  // namespace bindery::gpu_driven
