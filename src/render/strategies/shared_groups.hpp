// SPDX-License-Identifier: MIT
// src/render/shared_groups.hpp — the frame group and the material groups that every strategy
// organised by frequency shares (seed 001: group by how often data changes). Private to bindery.
//
// FrameGroup:     GlobalUniforms (viewProjection, lightWorldPosition, viewWorldPosition) in one
//                 uniform buffer, one bind group, one writeBuffer per frame.
// MaterialGroups: one uniform buffer holding every material's MaterialUniforms at the device's
//                 uniform offset alignment, one bind group per material (its texture, its
//                 sampler, that material's window of the buffer), written once at creation.
// Strategies that put the frame and material buffers into a per-object bind group of their own
// (split-uniforms, buffer-offsets: seed 003's layout) pass SharedBindGroups::none and bind the
// buffers through buffer() / offset() instead.
// Offsets come from the reflected shader, never from hand-counted constants: the frame and
// material values are written through StructView at reflected offsets; per-object values (the
// hot loop) through a C++ mirror struct verified against the reflected layout at start-up.
#pragma once

#include "strategy.hpp"

#include "bindery/wgsl/struct_check.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"

#include <glm/glm.hpp>

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

namespace bindery::strategies {

/// Bind group indices (the WGSL @group) of the storage layout: storage-instancing and gpu-culling
/// (shaders/cubes_storage.wgsl, cubes_gpu_cull.wgsl).
namespace storage_groups {
inline constexpr uint32_t kFrameGroup = 0;     ///< FrameGroup
inline constexpr uint32_t kObjectsGroup = 1;   ///< every object's data in one storage array
inline constexpr uint32_t kMaterialGroup = 2;  ///< MaterialGroups
inline constexpr uint32_t kGroupCount = 3;     ///< groups of the pipeline layout
}  // namespace storage_groups

/// Bind group indices of the frame-and-material layout: immediates (per-object data as immediate
/// data) and bundles-gpu (its frame group also holds the objects' storage).
namespace frame_material_groups {
inline constexpr uint32_t kFrameGroup = 0;     ///< FrameGroup (bundles-gpu: its render group)
inline constexpr uint32_t kMaterialGroup = 1;  ///< MaterialGroups
inline constexpr uint32_t kGroupCount = 2;     ///< groups of the pipeline layout
}  // namespace frame_material_groups

/// Whether FrameGroup / MaterialGroups create their own bind groups (`none`: only the buffers,
/// for strategies that bind those buffers from bind groups of their own).
enum class SharedBindGroups { create, none };

class FrameGroup {
 public:
  /// `global`: the reflected GlobalUniforms struct (must outlive this object).
  FrameGroup(const Device& device, const StructLayout& global,
             SharedBindGroups groups = SharedBindGroups::create);
  WGPUBindGroupLayout layout() const { return layout_.get(); }
  /// The frame bind group (null with SharedBindGroups::none).
  WGPUBindGroup bind_group() const { return group_.get(); }
  /// The GlobalUniforms buffer (UNIFORM | COPY_DST, size() bytes).
  WGPUBuffer buffer() const { return buffer_.get(); }
  /// Bytes of the GlobalUniforms struct (WGSL SizeOf), the binding size.
  uint64_t size() const { return global_.size; }
  /// Writes this frame's values (one writeBuffer of pack(values)).
  void update(const FrameValues& values);
  /// The GlobalUniforms bytes of `values` at the reflected offsets (size() bytes; valid until
  /// the next pack() or update()).
  std::span<const std::byte> pack(const FrameValues& values);

 private:
  const Device& device_;
  const StructLayout& global_;
  FieldRef view_projection_, light_, eye_;
  std::vector<std::byte> bytes_;
  gpu::BindGroupLayout layout_;
  gpu::Buffer buffer_;
  gpu::BindGroup group_;
};

class MaterialGroups {
 public:
  /// `material`: the reflected MaterialUniforms struct. Bind groups (and buffer windows) are
  /// made only for the materials some object uses (a model may declare thousands it never draws
  /// with); SharedBindGroups::none makes the windows only.
  MaterialGroups(const Device& device, const Scene& scene, const GpuScene& gpu,
                 const StructLayout& material, SharedBindGroups groups = SharedBindGroups::create);
  WGPUBindGroupLayout layout() const { return layout_.get(); }
  /// The bind group of a material that some object uses (not with SharedBindGroups::none).
  WGPUBindGroup bind_group(uint32_t material) const { return groups_[group_of_[material]].get(); }
  /// The buffer holding every used material's MaterialUniforms (UNIFORM | COPY_DST).
  WGPUBuffer buffer() const { return buffer_.get(); }
  /// Byte offset of a used material's window in buffer(): a multiple of the device's
  /// minUniformBufferOffsetAlignment, as a bind group entry's offset must be.
  uint64_t offset(uint32_t material) const { return group_of_[material] * stride_; }
  /// Bytes of one window (WGSL SizeOf(MaterialUniforms)), the binding size.
  uint64_t size() const { return size_; }

 private:
  gpu::BindGroupLayout layout_;
  gpu::Buffer buffer_;
  uint64_t stride_ = 0, size_ = 0;
  std::vector<uint32_t> group_of_;  ///< material -> index into groups_ (UINT32_MAX: unused)
  std::vector<gpu::BindGroup> groups_;
};

/// The C++ mirror of WGSL `PerObjectUniforms { normalMatrix: mat3x3f, world: mat4x4f }`: the
/// mat3x3f's three columns are 16 bytes apart (WGSL §14.4.1: mat3x3<f32> is 48 bytes), so they
/// are vec4s here. Checked against the reflected struct when a strategy starts (ObjectWriter).
struct PerObjectGpu {
  glm::vec4 normalMatrix[3];
  glm::mat4 world;
};
BINDERY_WGSL_STRUCT_CHECK(PerObjectGpu, normalMatrix, world);

/// Writes object transforms as PerObjectGpu, one copy per object. The constructor throws
/// StructMismatch if the shader's PerObjectUniforms no longer has the mirror's layout.
class ObjectWriter {
 public:
  explicit ObjectWriter(const StructLayout& object) { check_struct_matches<PerObjectGpu>(object); }
  void write(std::span<std::byte> slot, const ObjectTransform& t) const {
    PerObjectGpu g;
    for (int c = 0; c < 3; ++c) g.normalMatrix[c] = glm::vec4(t.normal[c], 0.0f);
    g.world = t.world;
    std::memcpy(slot.data(), &g, std::min(slot.size(), sizeof(g)));
  }
};

}  // namespace bindery::strategies
