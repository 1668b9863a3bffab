// SPDX-License-Identifier: MIT
#include "bindery/gpu_driven/cluster_culling.hpp"

#include "compute_helpers.hpp"
#include "bindery/data/layout_builder.hpp"

#include "bindery/core/error.hpp"
#include "bindery/gpu_driven/depth_pyramid.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/wgsl/struct_check.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace bindery::gpu_driven {
namespace {

constexpr uint64_t kCountsBytes = 64;   // ClusterCounts
constexpr uint64_t kTotalsOffset = 16;  // tested, visible, submitted, dropped, rasterized
constexpr uint64_t kIndirectBytes = 108;  // ClusterIndirect
constexpr uint64_t kInstancesDispatch = 0, kTestDispatch = 16, kEmitDispatch = 32, kDraw = 48,
                   kRasterDispatch = 80, kResolveDraw = 92;
constexpr uint64_t kMaxSlots = (1ull << 24) - 1;  // slot << 8 | corner in a uint32 index
constexpr uint64_t kDefaultMaxTriangles = 128ull << 20;
constexpr uint32_t kStorageBuffersNeeded = 14;

const Reflection& reflection() {
  static const Reflection r = [] {
    Reflection x = reflect_wgsl(shaders::cluster_culling);
    x.throw_if_errors();
    return x;
  }();
  return r;
}

// Appends the bytes of `layout`'s struct, with `fill` setting its fields, to `out`.
template <class Fill>
void append_record(std::vector<std::byte>& out, const StructLayout& layout, Fill fill) {
  const size_t at = out.size();
  out.resize(at + layout.size);
  StructView v(layout, std::span<std::byte>(out).subspan(at, layout.size));
  fill(v, layout);
}

}  // namespace

// --- ClusterGeometry -----------------------------------------------------------------------------

ClusterGeometry::ClusterGeometry(const Device& device, const MeshPool& pool, std::string label)
    : device_(device), pool_(pool), label_(std::move(label)) {}

void ClusterGeometry::add(MeshId mesh, const ClusterHierarchy& h) {
  if (!pool_.contains(mesh))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("ClusterGeometry::add: mesh {} is not live in the pool", mesh));
  if (contains(mesh))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("ClusterGeometry::add: mesh {} has a hierarchy already", mesh));
  const MeshRange& range = pool_.range(mesh);
  for (uint32_t v : h.vertices)
    if (v >= range.vertex_count)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("ClusterGeometry::add: mesh {}'s hierarchy names vertex {}, past "
                              "the {} vertices the pool holds for it (built from another mesh?)",
                              mesh, v, range.vertex_count));
  if (meshes_.size() <= mesh) meshes_.resize(mesh + 1);
  const StructLayout& level_layout = reflection().struct_layout("ClusterLevelRecord");
  const StructLayout& cluster_layout = reflection().struct_layout("ClusterRecord");
  MeshEntry& entry = meshes_[mesh];
  entry.sphere = h.sphere;
  entry.first_level = uint32_t(level_list_.size());
  entry.level_count = uint32_t(h.levels.size());
  const uint32_t first_cluster = uint32_t(clusters_.size());
  const uint32_t word_base = uint32_t(words_.size());
  words_.insert(words_.end(), h.vertices.begin(), h.vertices.end());
  const uint32_t triangle_base = uint32_t(words_.size());
  words_.insert(words_.end(), h.triangles.begin(), h.triangles.end());
  for (const ClusterLevel& l : h.levels) {
    level_list_.push_back(l);
    append_record(levels_, level_layout, [&](StructView& v, const StructLayout& s) {
      v.set(s.field("firstCluster"), first_cluster + l.first_cluster);
      v.set(s.field("clusterCount"), l.cluster_count);
      v.set(s.field("minSelfError"), l.min_self_error);
      v.set(s.field("selfReach"), l.self_reach);
      v.set(s.field("maxParentError"), l.max_parent_error);
      v.set(s.field("parentReach"), l.parent_reach);
    });
  }
  for (const Cluster& c : h.clusters) {
    if (c.level == 0) entry.full_triangles += c.triangle_count;
    clusters_.push_back(mesh);
    append_record(clusters_bytes_, cluster_layout, [&](StructView& v, const StructLayout& s) {
      v.set(s.field("sphere"), c.sphere);
      v.set(s.field("selfSphere"), glm::vec4(c.self.center, c.self.radius));
      v.set(s.field("parentSphere"), glm::vec4(c.parent.center, c.parent.radius));
      v.set(s.field("selfError"), c.self.error);
      v.set(s.field("parentError"), c.parent.error);
      v.set(s.field("vertexOffset"), word_base + c.vertex_offset);
      v.set(s.field("triangleOffset"), triangle_base + c.triangle_offset);
      v.set(s.field("triangleCount"), c.triangle_count);
      v.set(s.field("vertexBase"), range.base_vertex);
      v.set(s.field("vertexCount"), c.vertex_count);
      v.set(s.field("level"), c.level);
      v.set(s.field("coneApex"), glm::vec4(c.cone_apex, 0.0f));
      v.set(s.field("coneAxis"), glm::vec4(c.cone_axis, c.cone_cutoff));
    });
  }
  dirty_ = true;
}

bool ClusterGeometry::contains(MeshId mesh) const {
  return mesh < meshes_.size() && meshes_[mesh].level_count > 0;
}

uint32_t ClusterGeometry::full_triangles(MeshId mesh) const {
  return mesh < meshes_.size() ? meshes_[mesh].full_triangles : 0;
}

uint64_t ClusterGeometry::bytes() const {
  const uint64_t mesh_bytes = reflection().struct_layout("ClusterMesh").size;
  return meshes_.size() * mesh_bytes + levels_.size() + clusters_bytes_.size() +
         words_.size() * 4ull;
}

bool ClusterGeometry::prepare() {
  if (!dirty_) return false;
  const StructLayout& mesh_layout = reflection().struct_layout("ClusterMesh");
  std::vector<std::byte> mesh_bytes;
  // Every id of the pool gets a record (level count 0 without a hierarchy).
  const uint32_t ids = std::max<uint32_t>(pool_.id_capacity(), uint32_t(meshes_.size()));
  for (uint32_t m = 0; m < std::max(ids, 1u); ++m) {
    const MeshEntry e = m < meshes_.size() ? meshes_[m] : MeshEntry{};
    append_record(mesh_bytes, mesh_layout, [&](StructView& v, const StructLayout& s) {
      v.set(s.field("sphere"), e.sphere);
      v.set(s.field("firstLevel"), e.first_level);
      v.set(s.field("levelCount"), e.level_count);
    });
  }
  // Each buffer holds at least one element of its struct (a binding smaller than the struct is a
  // validation error, even where nothing reads it).
  auto upload = [&](gpu::Buffer& buffer, const char* what, const void* data, uint64_t size,
                    uint64_t element) {
    const uint64_t bytes = std::max<uint64_t>(size, element);
    buffer = device_.create_buffer(fmt::format("{}: {}", label_, what), (bytes + 3) / 4 * 4,
                                   WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
    if (size > 0) device_.write_buffer(buffer.get(), 0, data, (size + 3) / 4 * 4);
  };
  upload(meshes_buffer_, "meshes", mesh_bytes.data(), mesh_bytes.size(), mesh_layout.size);
  upload(levels_buffer_, "levels", levels_.data(), levels_.size(),
         reflection().struct_layout("ClusterLevelRecord").size);
  upload(clusters_buffer_, "clusters", clusters_bytes_.data(), clusters_bytes_.size(),
         reflection().struct_layout("ClusterRecord").size);
  upload(words_buffer_, "vertices and triangles", words_.data(), words_.size() * 4ull, 16);
  dirty_ = false;
  ++generation_;
  return true;
}

// --- ClusterCulling ------------------------------------------------------------------------------

std::optional<std::string> cluster_culling_unavailable(const Device& device) {
  const uint32_t have = device.limits().maxStorageBuffersPerShaderStage;
  if (have < kStorageBuffersNeeded)
    return fmt::format(
        "the cluster stage binds {} storage buffers in one compute stage; the device's "
        "maxStorageBuffersPerShaderStage is {}",
        kStorageBuffersNeeded, have);
  return std::nullopt;
}

ClusterCulling::ClusterCulling(const Device& device, const ObjectTable& objects,
                               const ClusterGeometry& geometry, const IndirectDraws& draws,
                               const ClusterCullingDesc& desc, const DepthPyramid* pyramid)
    : device_(device), objects_(objects), geometry_(geometry), draws_(draws), desc_(desc),
      pyramid_(pyramid) {
  using namespace detail;
  if (desc.occlusion && !pyramid)
    throw Error(ErrorKind::InvalidArgument,
                "ClusterCulling: ClusterCullingDesc::occlusion needs a DepthPyramid (pyramid is "
                "null)");
  if (std::optional<std::string> why = cluster_culling_unavailable(device))
    throw Error(ErrorKind::StrategyUnavailable, "ClusterCulling: " + *why);
  set_lod_error(desc.lod_error_px);
  const WGPUShaderStage cs = WGPUShaderStage_Compute;
  const WGPUBufferBindingType ro = WGPUBufferBindingType_ReadOnlyStorage;
  const WGPUBufferBindingType rw = WGPUBufferBindingType_Storage;
  const WGPUBindGroupLayoutEntry entries[] = {
      buffer_layout_entry(0, cs, WGPUBufferBindingType_Uniform),
      buffer_layout_entry(1, cs, ro),
      buffer_layout_entry(2, cs, ro),
      buffer_layout_entry(3, cs, ro),
      buffer_layout_entry(4, cs, ro),
      buffer_layout_entry(5, cs, ro),
      buffer_layout_entry(6, cs, ro),
      buffer_layout_entry(7, cs, rw),
      buffer_layout_entry(8, cs, rw),
      buffer_layout_entry(9, cs, rw),
      buffer_layout_entry(10, cs, ro),
      buffer_layout_entry(11, cs, rw),
      buffer_layout_entry(12, cs, rw),
      buffer_layout_entry(13, cs, ro),
      texture_layout_entry(14, cs, WGPUTextureSampleType_UnfilterableFloat,
                           WGPUTextureViewDimension_2D),
      buffer_layout_entry(15, cs, WGPUBufferBindingType_Uniform)};
  layout_ = create_bind_group_layout(device, "cluster culling", entries);
  const WGPUBindGroupLayoutEntry indirect[] = {buffer_layout_entry(0, cs, rw)};
  indirect_layout_ = create_bind_group_layout(device, "cluster culling: indirect", indirect);
  // The vertex stage pulls from them; the compute rasterizer's resolve reads them too.
  const WGPUShaderStage vs = WGPUShaderStage_Vertex | WGPUShaderStage_Fragment;
  const WGPUBindGroupLayoutEntry draw[] = {
      buffer_layout_entry(0, vs, ro), buffer_layout_entry(1, vs, ro),
      buffer_layout_entry(2, vs, ro), buffer_layout_entry(3, vs, ro)};
  draw_layout_ = create_bind_group_layout(device, "cluster draw", draw);
  WGPUBindGroupLayout one[] = {layout_.get()};
  WGPUBindGroupLayout two[] = {layout_.get(), indirect_layout_.get()};
  pipeline_layout_ = create_pipeline_layout(device, one, "cluster culling");
  indirect_pipeline_layout_ = create_pipeline_layout(device, two, "cluster culling: indirect");
  module_ = device.create_shader_module("cluster_culling.wgsl", shaders::cluster_culling);
  begin_frame_ = make_compute(device, module_.get(), pipeline_layout_.get(), "begin_frame");
  begin_phase_ =
      make_compute(device, module_.get(), indirect_pipeline_layout_.get(), "begin_phase");
  instances_ = make_compute(device, module_.get(), pipeline_layout_.get(), "instances_pass");
  begin_test_ = make_compute(device, module_.get(), indirect_pipeline_layout_.get(), "begin_test");
  test_ = make_compute(device, module_.get(), pipeline_layout_.get(), "test_pass");
  finalize_ = make_compute(device, module_.get(), indirect_pipeline_layout_.get(), "finalize");
  emit_ = make_compute(device, module_.get(), pipeline_layout_.get(), "emit_pass");

  frame_bytes_.resize(reflection().struct_layout("ClusterFrame").size);
  frame_ = device.create_buffer(desc_.label + ": frame", frame_bytes_.size(),
                                WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  counts_ = device.create_buffer(desc_.label + ": counts", kCountsBytes,
                                 WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  indirect_ = device.create_buffer(desc_.label + ": indirect", kIndirectBytes + 12,
                                   WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect);
  if (!pyramid_) {
    // A 1 x 1 stand-in for the pyramid binding, never read without occlusion culling.
    detail::StandInPyramid p = detail::stand_in_pyramid(device, "cluster culling: no pyramid");
    dummy_pyramid_ = std::move(p.texture);
    dummy_view_ = std::move(p.view);
  }
  for (uint32_t p = 0; p < 2; ++p) {
    const uint32_t index[4] = {p + 1, 0, 0, 0};
    phase_[p] = device.create_buffer(fmt::format("{}: phase {}", desc_.label, p + 1), 16,
                                     WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    device.write_buffer(phase_[p].get(), 0, index, 16);
  }
  set_compute_raster(0.0f, {});
  const WGPUBindGroupEntry d[] = {buffer_group_entry(0, indirect_.get())};
  indirect_group_ =
      create_bind_group(device, "cluster culling: indirect", indirect_layout_.get(), d);
  with_context("creating the cluster culling passes", [&] { device.check(); });
}

std::string ClusterCulling::wgsl(uint32_t group) {
  return detail::wgsl_block(shaders::cluster_draw_default, "struct ClusterDrawRecord",
                            "// END cluster draw", 2, group);
}

void ClusterCulling::set_lod_error(float px) {
  if (!std::isfinite(px) || px < 0.0f)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("ClusterCulling: the pixel error {} is not a finite value >= 0", px));
  desc_.lod_error_px = px;
}

void ClusterCulling::create_buffers() {
  const Limits& limits = device_.limits();
  const uint64_t binding = std::min<uint64_t>(limits.maxStorageBufferBindingSize,
                                              limits.maxBufferSize);
  uint64_t triangles = desc_.max_triangles;
  if (triangles == 0) {
    // As many triangles as every object of the table drawing the largest mesh at full detail.
    uint64_t most = 0;
    for (uint32_t m = 0; m < geometry_.pool().id_capacity(); ++m)
      most = std::max<uint64_t>(most, geometry_.full_triangles(m));
    triangles = std::min<uint64_t>(kDefaultMaxTriangles,
                                   std::max<uint64_t>(most * std::max(object_capacity_, 1u), 1024));
  }
  max_triangles_ = std::max<uint64_t>(1, std::min(triangles, binding / 12));
  max_slots_ = std::min<uint64_t>({kMaxSlots, max_triangles_, binding / 16});
  // Chunks of up to 8 clusters: as many as slots (a chunk holds at least one tested cluster, and
  // a far instance often holds exactly one), per phase (phase 2's region first holds the
  // clusters phase 1 deferred, a chunk each).
  max_chunks_ = std::min<uint64_t>(binding / 32, std::max<uint64_t>(max_slots_, 4096));
  chunks_ = device_.create_buffer(desc_.label + ": chunks", 2 * max_chunks_ * 16,
                                  WGPUBufferUsage_Storage);
  slots_ = device_.create_buffer(desc_.label + ": visible clusters", max_slots_ * 16,
                                 WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  indices_ = device_.create_buffer(desc_.label + ": indices", max_triangles_ * 12,
                                   WGPUBufferUsage_Storage | WGPUBufferUsage_Index);
  // The compute rasterizer's clusters: as many as visible clusters (8 bytes each).
  max_raster_slots_ = std::min<uint64_t>(max_slots_, binding / 8);
  raster_slots_ = device_.create_buffer(desc_.label + ": raster clusters", max_raster_slots_ * 8,
                                        WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
}

void ClusterCulling::create_groups() {
  using namespace detail;
  WGPUBindGroupEntry e[] = {
      buffer_group_entry(0, frame_.get()),
      buffer_group_entry(1, objects_.buffer()),
      buffer_group_entry(2, geometry_.mesh_buffer()),
      buffer_group_entry(3, geometry_.level_buffer()),
      buffer_group_entry(4, geometry_.cluster_buffer()),
      buffer_group_entry(5, draws_.entries_buffer()),
      buffer_group_entry(6, draws_.counters_buffer()),
      buffer_group_entry(7, chunks_.get()),
      buffer_group_entry(8, slots_.get()),
      buffer_group_entry(9, counts_.get()),
      buffer_group_entry(10, geometry_.word_buffer()),
      buffer_group_entry(11, indices_.get()),
      buffer_group_entry(12, raster_slots_.get()),
      buffer_group_entry(13, material_flags_.get()),
      texture_group_entry(14, pyramid_ ? pyramid_->view() : dummy_view_.get()),
      buffer_group_entry(15, phase_[0].get()),
  };
  group_[0] = create_bind_group(device_, "cluster culling: phase 1", layout_.get(), e);
  e[15] = buffer_group_entry(15, phase_[1].get());
  group_[1] = create_bind_group(device_, "cluster culling: phase 2", layout_.get(), e);
  const WGPUBindGroupEntry d[] = {buffer_group_entry(0, slots_.get()),
                                  buffer_group_entry(1, geometry_.cluster_buffer()),
                                  buffer_group_entry(2, geometry_.word_buffer()),
                                  buffer_group_entry(3, geometry_.pool().vertex_buffer())};
  draw_group_ = create_bind_group(device_, "cluster draw", draw_layout_.get(), d);
  entries_ = draws_.entries_buffer();
  pool_vertices_ = geometry_.pool().vertex_buffer();
}

bool ClusterCulling::prepare(const ClusterView& view) {
  if (geometry_.needs_prepare())
    throw Error(ErrorKind::FrameProtocol,
                "ClusterCulling::prepare: the ClusterGeometry holds hierarchies it has not "
                "uploaded; call ClusterGeometry::prepare() after add() and before "
                "ClusterCulling::prepare()");
  const bool grown = objects_.capacity() != object_capacity_ || !chunks_;
  if (grown) {
    object_capacity_ = objects_.capacity();
    create_buffers();
  }
  const bool inputs_changed = grown || material_flags_changed_ ||
                              geometry_.generation() != geometry_generation_ ||
                              objects_.generation() != objects_generation_ ||
                              draws_.entries_buffer() != entries_ ||
                              geometry_.pool().vertex_buffer() != pool_vertices_;
  if (inputs_changed) {
    create_groups();
    material_flags_changed_ = false;
    geometry_generation_ = geometry_.generation();
    objects_generation_ = objects_.generation();
  }
  const StructLayout& layout = reflection().struct_layout("ClusterFrame");
  StructView v(layout, std::span<std::byte>(frame_bytes_));
  v.set(layout.field("viewProjection"), view.view_projection);
  v.set(layout.field("eye"), view.eye);
  v.set(layout.field("pixelsPerUnit"), view.pixels_per_unit);
  v.set(layout.field("zNear"), view.z_near);
  v.set(layout.field("tau"), desc_.lod_error_px);
  v.set(layout.field("maxChunks"), uint32_t(max_chunks_));
  v.set(layout.field("maxSlots"), uint32_t(max_slots_));
  v.set(layout.field("maxTriangles"), uint32_t(max_triangles_));
  const bool occlusion = desc_.occlusion && pyramid_;
  // Phase 1's test needs last frame's view-projection and pyramid (of the same size).
  const bool history = occlusion && have_previous_ && previous_viewport_ == view.viewport;
  v.set(layout.field("flags"), (desc_.frustum ? 1u : 0u) | (occlusion ? 2u : 0u) |
                                   (history ? 4u : 0u) | (desc_.cone ? 8u : 0u));
  v.set(layout.field("pyramidSize"),
        pyramid_ ? glm::vec2(pyramid_->width(), pyramid_->height()) : glm::vec2(1.0f));
  v.set(layout.field("pyramidLevels"), pyramid_ ? pyramid_->levels() : 1u);
  v.set(layout.field("prevViewProjection"), previous_view_projection_);
  previous_view_projection_ = view.view_projection;
  previous_viewport_ = view.viewport;
  have_previous_ = occlusion;
  v.set(layout.field("maxRasterSlots"), uint32_t(max_raster_slots_));
  v.set(layout.field("rasterMaxArea"), raster_max_area_px_);
  v.set(layout.field("viewport"), glm::vec2(view.viewport));
  device_.write_buffer(frame_.get(), 0, frame_bytes_.data(), frame_bytes_.size());
  return inputs_changed;
}

void ClusterCulling::begin_frame(WGPUComputePassEncoder pass) const {
  wgpuComputePassEncoderSetPipeline(pass, begin_frame_.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, group_[0].get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  builds_ = 0;
}

void ClusterCulling::build(WGPUComputePassEncoder pass) const {
  const WGPUBindGroup group = group_[std::min(builds_++, 1u)].get();
  auto one = [&](const gpu::ComputePipeline& p) {
    wgpuComputePassEncoderSetPipeline(pass, p.get());
    wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
    wgpuComputePassEncoderSetBindGroup(pass, 1, indirect_group_.get(), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  };
  auto indirect = [&](const gpu::ComputePipeline& p, uint64_t offset) {
    wgpuComputePassEncoderSetPipeline(pass, p.get());
    wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, indirect_.get(), offset);
  };
  one(begin_phase_);
  indirect(instances_, kInstancesDispatch);
  one(begin_test_);
  indirect(test_, kTestDispatch);
  one(finalize_);
  indirect(emit_, kEmitDispatch);
}

void ClusterCulling::draw(WGPURenderPassEncoder pass, WGPURenderPipeline pipeline,
                          std::span<const WGPUBindGroup> groups, Counters& counters) const {
  wgpuRenderPassEncoderSetPipeline(pass, pipeline);
  counters.set_pipeline++;
  uint32_t g = 0;
  for (; g < groups.size(); ++g) {
    wgpuRenderPassEncoderSetBindGroup(pass, g, groups[g], 0, nullptr);
    counters.set_bind_group++;
  }
  wgpuRenderPassEncoderSetBindGroup(pass, g, draw_group_.get(), 0, nullptr);
  counters.set_bind_group++;
  wgpuRenderPassEncoderSetIndexBuffer(pass, indices_.get(), WGPUIndexFormat_Uint32, 0,
                                      max_triangles_ * 12);
  counters.set_index_buffer++;
  wgpuRenderPassEncoderDrawIndexedIndirect(pass, indirect_.get(), kDraw);
  counters.draws++;
}

void ClusterCulling::copy_stats(WGPUCommandEncoder encoder, WGPUBuffer dst,
                                uint64_t offset) const {
  wgpuCommandEncoderCopyBufferToBuffer(encoder, counts_.get(), kTotalsOffset, dst, offset,
                                       kStatsBytes);
}

ClusterStats ClusterCulling::read_stats(const std::byte* bytes) {
  uint32_t v[5];
  std::memcpy(v, bytes, sizeof(v));
  return ClusterStats{v[0], v[1], v[2], v[3], v[4]};
}

void ClusterCulling::set_compute_raster(float max_area_px,
                                        std::span<const uint32_t> material_flags) {
  if (!std::isfinite(max_area_px) || max_area_px < 0.0f)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("ClusterCulling: the compute rasterizer's area per triangle {} is not "
                            "a finite value >= 0",
                            max_area_px));
  raster_max_area_px_ = max_area_px;
  std::vector<uint32_t> flags(material_flags.begin(), material_flags.end());
  if (flags.empty()) flags.push_back(0);
  material_flags_ = device_.create_buffer(desc_.label + ": material flags", flags.size() * 4,
                                          WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
  device_.write_buffer(material_flags_.get(), 0, flags.data(), flags.size() * 4);
  material_flags_changed_ = true;
}

void ClusterCulling::resolve_draw(WGPURenderPassEncoder pass) const {
  wgpuRenderPassEncoderDrawIndirect(pass, indirect_.get(), kResolveDraw);
}

void ClusterCulling::raster_dispatch(WGPUComputePassEncoder pass) const {
  wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, indirect_.get(), kRasterDispatch);
}

}  // namespace bindery::gpu_driven
