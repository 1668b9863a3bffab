// SPDX-License-Identifier: MIT
// The scene in bindery's GPU-driven parts, as gpu-driven, gpu-culling and bundles-gpu share it
// (gpu_object_scene.hpp).
#include "gpu_object_scene.hpp"

#include "bindery/gpu_driven/cluster_culling.hpp"

#include "object_animation.hpp"

#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>

namespace bindery::strategies {
namespace {

using namespace bindery::gpu_driven;

bool all_animated(const Scene& scene) {
  if (scene.objects.empty()) return false;
  for (const Object& o : scene.objects)
    if (!o.animated) return false;
  return true;
}

// shaders/gpu_driven_draw.wgsl with its stand-in material table replaced by `materials`' own.
std::string draw_shader(const MaterialTable& materials, uint32_t group) {
  std::string source(shaders::gpu_driven_draw);
  const size_t begin = source.find("// BEGIN material table");
  const std::string end_marker = "// END material table";
  const size_t end = source.find(end_marker);
  if (begin == std::string::npos || end == std::string::npos)
    throw Error(ErrorKind::Internal, "gpu_driven_draw.wgsl: the material table markers are gone");
  source.replace(begin, end + end_marker.size() - begin,
                 materials.wgsl(group, GpuObjectScene::kMaterialFirstBinding));
  const size_t cluster_begin = source.find("// BEGIN cluster draw");
  const std::string cluster_end = "// END cluster draw";
  const size_t cluster_stop = source.find(cluster_end);
  if (cluster_begin == std::string::npos || cluster_stop == std::string::npos)
    throw Error(ErrorKind::Internal, "gpu_driven_draw.wgsl: the cluster draw markers are gone");
  source.replace(cluster_begin, cluster_stop + cluster_end.size() - cluster_begin,
                 gpu_driven::ClusterCulling::wgsl(2));
  return source;
}

}  // namespace

std::optional<std::string> object_records_unavailable(const Device& device, const Scene& scene) {
  const Limits& limits = device.limits();
  const uint64_t records = std::max<uint64_t>(scene.objects.size(), 1) * kObjectRecordBytes;
  if (records > limits.maxStorageBufferBindingSize || records > limits.maxBufferSize)
    return fmt::format(
        "{} objects need {} bytes of object records in one binding; "
        "maxStorageBufferBindingSize is {}, maxBufferSize {}",
        scene.objects.size(), records, limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  return std::nullopt;
}

GpuObjectScene::GpuObjectScene(const Device& device, const Scene& scene, const GpuScene& gpu,
                               std::string label, TransformProducer producer,
                               MaterialBackend backend)
    : device_(device),
      label_(std::move(label)),
      object_count_(static_cast<uint32_t>(scene.objects.size())),
      gpu_animation_(producer == TransformProducer::gpu_when_animated && all_animated(scene)),
      moving_(scene.moving),
      meshes_(*gpu.pool),
      materials_(device, scene.materials, scene.textures, scene.samplers,
                 MaterialTableDesc{label_ + " materials", 0, backend}),
      objects_(device, ObjectTableDesc{label_ + " objects", std::max(object_count_, 1u)}) {
  add_objects(scene);
  if (gpu_animation_) create_animation(scene);
  create_draw_pipeline();
}

// Every object once, into the table (ids 0, 1, ... like the meshes); transforms follow with the
// first frame's changed range, or from the GPU animation.
void GpuObjectScene::add_objects(const Scene& scene) {
  for (uint32_t i = 0; i < scene.objects.size(); ++i) {
    const Object& o = scene.objects[i];
    if (objects_.add(o.animated ? glm::mat4(1.0f) : o.placement, o.mesh, o.material) != i)
      throw Error(ErrorKind::Internal,
                  fmt::format("{}: a fresh object table handed out ids out of order", label_));
  }
}

void GpuObjectScene::upload(const FrameInputs& in, WGPUCommandEncoder encoder) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t moved = 0;
  if (gpu_animation_) {
    const uint32_t values[2] = {std::bit_cast<uint32_t>(in.time_s), object_count_};
    device_.write_buffer(animate_frame_.get(), 0, values, sizeof(values));
  } else if (in.transforms_written) {
    // The matrix threads wrote them (write_transforms): their count and CPU time.
    moved = thread_moved_.exchange(0, std::memory_order_relaxed);
    move_ns_after_first_ += double(thread_move_ns_.exchange(0, std::memory_order_relaxed));
  } else if (in.first_frame) {
    for (uint32_t i = 0; i < object_count_; ++i) objects_.set_transform(i, in.transforms[i].world);
  } else {
    // Only the objects that move (Scene::moving) and were recomputed this frame: a static glTF
    // model uploads nothing after its first frame.
    const uint32_t end = std::min<uint32_t>(in.changed_end, object_count_);
    for (const uint32_t i : moving_)
      if (i >= in.changed_begin && i < end) {
        objects_.set_transform(i, in.transforms[i].world);
        ++moved;
      }
  }
  records_uploaded_ += objects_.flush(encoder).records_uploaded;
  if (!in.first_frame && !gpu_animation_) {
    moved_after_first_ += moved;
    move_ns_after_first_ +=
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  }
  write_frame(in.values);
}

void GpuObjectScene::write_transforms(std::span<const ObjectTransform> all, uint32_t begin,
                                      uint32_t end, bool first_frame) {
  end = std::min(end, object_count_);
  if (gpu_animation_ || begin >= end) return;
  if (first_frame) {
    for (uint32_t i = begin; i < end; ++i) objects_.set_transform(i, all[i].world);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  uint64_t moved = 0;
  for (auto it = std::lower_bound(moving_.begin(), moving_.end(), begin);
       it != moving_.end() && *it < end; ++it, ++moved)
    objects_.set_transform(*it, all[*it].world);
  if (moved == 0) return;
  const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
  thread_moved_.fetch_add(moved, std::memory_order_relaxed);
  thread_move_ns_.fetch_add(uint64_t(ns.count()), std::memory_order_relaxed);
}

std::optional<double> GpuObjectScene::cpu_ns_per_moved_object() const {
  if (moved_after_first_ == 0) return std::nullopt;
  return move_ns_after_first_ / double(moved_after_first_);
}

void GpuObjectScene::animate(WGPUComputePassEncoder pass) const {
  if (!gpu_animation_) return;
  const AnimateGrid grid = animate_grid(object_count_);
  if (grid.x == 0) return;
  wgpuComputePassEncoderSetPipeline(pass, animate_.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, animate_group_.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, grid.x, grid.y, 1);
}

void GpuObjectScene::refresh_animate_group() {
  if (gpu_animation_ && objects_.generation() != animate_generation_) create_animate_group();
}

void GpuObjectScene::create_animation(const Scene& scene) {
  const Reflection reflection = reflect_checked(shaders::object_animate);
  inputs_ = upload_object_inputs(device_, scene, reflection.struct_layout("ObjectInput"), label_);
  animate_frame_ = device_.create_buffer(label_ + " animate frame", 8,
                                         WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  const WGPUShaderStage cs = WGPUShaderStage_Compute;
  const WGPUBindGroupLayoutEntry animate[] = {
      buffer_layout_entry(0, cs, WGPUBufferBindingType_Uniform),
      buffer_layout_entry(1, cs, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(2, cs, WGPUBufferBindingType_Storage)};
  animate_layout_ = create_bind_group_layout(device_, "animate", animate);
  WGPUBindGroupLayout layouts[] = {animate_layout_.get()};
  animate_pipeline_layout_ = create_pipeline_layout(device_, layouts, "animate");
  animate_module_ = device_.create_shader_module("object_animate.wgsl", shaders::object_animate);
  WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  cd.label = gpu::sv("animate_objects");
  cd.layout = animate_pipeline_layout_.get();
  cd.compute.module = animate_module_.get();
  cd.compute.entryPoint = gpu::sv("animate_objects");
  animate_ = gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device_.get(), &cd));
  create_animate_group();
}

void GpuObjectScene::create_animate_group() {
  const WGPUBindGroupEntry e[] = {buffer_group_entry(0, animate_frame_.get()),
                                  buffer_group_entry(1, inputs_.get()),
                                  buffer_group_entry(2, objects_.buffer())};
  animate_group_ = create_bind_group(device_, "animate", animate_layout_.get(), e);
  animate_generation_ = objects_.generation();
}

void GpuObjectScene::create_draw_pipeline() {
  const Reflection reflection = reflect_checked(shaders::gpu_driven_draw);
  frame_layout_ = reflection.struct_layout("DrawFrame");
  frame_bytes_.resize(frame_layout_.size);
  frame_ = device_.create_buffer(label_ + " frame", frame_layout_.size,
                                 WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  const WGPUShaderStage vs = WGPUShaderStage_Vertex;
  const WGPUBindGroupLayoutEntry objects[] = {
      buffer_layout_entry(kFrameBinding, vs | WGPUShaderStage_Fragment,
                          WGPUBufferBindingType_Uniform),
      // The compute rasterizer's resolve reads the objects in its fragment stage.
      buffer_layout_entry(kObjectsBinding, vs | WGPUShaderStage_Fragment,
                          WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(kRemapBinding, vs, WGPUBufferBindingType_ReadOnlyStorage)};
  object_layout_ = create_bind_group_layout(device_, "objects", objects);
  const std::vector<WGPUBindGroupLayoutEntry> material_entries =
      materials_.layout_entries(kMaterialFirstBinding);
  material_layout_ = create_bind_group_layout(device_, "materials", material_entries);
  const std::vector<WGPUBindGroupEntry> material_bindings =
      materials_.group_entries(kMaterialFirstBinding);
  material_group_ =
      create_bind_group(device_, "materials", material_layout_.get(), material_bindings);
  WGPUBindGroupLayout layouts[2];
  layouts[kObjectGroup] = object_layout_.get();
  layouts[kMaterialGroup] = material_layout_.get();
  pipeline_layout_ = create_pipeline_layout(device_, layouts, label_.c_str());
  module_ = device_.create_shader_module("gpu_driven_draw.wgsl",
                                         draw_shader(materials_, kMaterialGroup));
  pipeline_ = create_scene_pipeline(device_, module_.get(), pipeline_layout_.get(), label_.c_str());
}

void GpuObjectScene::create_cluster_pipeline(WGPUBindGroupLayout cluster_layout) {
  WGPUBindGroupLayout layouts[3];
  layouts[kObjectGroup] = object_layout_.get();
  layouts[kMaterialGroup] = material_layout_.get();
  layouts[2] = cluster_layout;
  const std::string label = label_ + " clusters";
  cluster_pipeline_layout_ = create_pipeline_layout(device_, layouts, label.c_str());
  cluster_pipeline_ = create_scene_pipeline(device_, module_.get(), cluster_pipeline_layout_.get(),
                                            label.c_str(), "vs_clusters", true);
}

void GpuObjectScene::create_resolve_pipeline(WGPUBindGroupLayout cluster_layout,
                                             WGPUBindGroupLayout resolve_layout) {
  WGPUBindGroupLayout layouts[4];
  layouts[kObjectGroup] = object_layout_.get();
  layouts[kMaterialGroup] = material_layout_.get();
  layouts[2] = cluster_layout;
  layouts[3] = resolve_layout;
  const std::string label = label_ + " cluster resolve";
  resolve_pipeline_layout_ = create_pipeline_layout(device_, layouts, label.c_str());
  resolve_pipeline_ = create_screen_space_pipeline(device_, module_.get(),
                                                 resolve_pipeline_layout_.get(), label.c_str(),
                                                 "vs_resolve", "fs_resolve");
}

void GpuObjectScene::refresh_object_group(WGPUBuffer remap, bool force) {
  if (!force && remap == remap_ && object_group_ && objects_.generation() == object_generation_)
    return;
  const WGPUBindGroupEntry e[] = {buffer_group_entry(kFrameBinding, frame_.get()),
                                  buffer_group_entry(kObjectsBinding, objects_.buffer()),
                                  buffer_group_entry(kRemapBinding, remap)};
  object_group_ = create_bind_group(device_, "objects", object_layout_.get(), e);
  if (gpu_animation_) create_animate_group();
  remap_ = remap;
  object_generation_ = objects_.generation();
}

void GpuObjectScene::write_frame(const FrameValues& values) {
  StructView v(frame_layout_, std::span<std::byte>(frame_bytes_));
  v.set(frame_layout_.field("viewProjection"), values.view_projection);
  v.set(frame_layout_.field("lightWorldPosition"), values.light_world_position);
  v.set(frame_layout_.field("viewWorldPosition"), values.view_world_position);
  v.set(frame_layout_.field("debugColors"), debug_colors_);
  device_.write_buffer(frame_.get(), 0, frame_bytes_.data(), frame_bytes_.size());
}

}  // namespace bindery::strategies
