// src/render/shared_groups.hpp — the frame group and the material groups that every strategy
// organised by frequency shares (seed 001: group by how often data changes). Private to bindery.
//
// FrameGroup:     GlobalUniforms (viewProjection, lightWorldPosition, viewWorldPosition) in one
//                 uniform buffer, one bind group, one writeBuffer per frame.
// MaterialGroups: one uniform buffer holding every material's MaterialUniforms at the device's
//                 uniform offset alignment, one bind group per material (texture, sampler, that
//                 material's window of the buffer), written once at creation.
// Offsets come from the reflected shader, never from hand-counted constants.
#pragma once

#include "strategy.hpp"

#include "bindery/struct_view.hpp"
#include "bindery/wgsl_layout.hpp"

#include <span>
#include <vector>

namespace bindery::strategies {

class FrameGroup {
 public:
  /// `global`: the reflected GlobalUniforms struct (must outlive this object).
  FrameGroup(const Device& device, const StructLayout& global);
  WGPUBindGroupLayout layout() const { return layout_.get(); }
  WGPUBindGroup bind_group() const { return group_.get(); }
  /// Writes this frame's values (one writeBuffer).
  void update(const FrameValues& values);

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
  /// `material`: the reflected MaterialUniforms struct. Bind groups are made only for the
  /// materials some object uses (a model may declare thousands it never draws with).
  MaterialGroups(const Device& device, const Scene& scene, const GpuScene& gpu,
                 const StructLayout& material);
  WGPUBindGroupLayout layout() const { return layout_.get(); }
  /// The bind group of a material that some object uses.
  WGPUBindGroup bind_group(uint32_t material) const { return groups_[group_of_[material]].get(); }

 private:
  gpu::BindGroupLayout layout_;
  gpu::Buffer buffer_;
  std::vector<uint32_t> group_of_;  ///< material -> index into groups_ (UINT32_MAX: unused)
  std::vector<gpu::BindGroup> groups_;
};

/// Writes object transforms at the reflected offsets of PerObjectUniforms {normalMatrix, world}.
class ObjectWriter {
 public:
  explicit ObjectWriter(const StructLayout& object)
      : object_(object), world_(object.field("world")), normal_(object.field("normalMatrix")) {}
  void write(std::span<std::byte> slot, const ObjectTransform& t) const {
    StructView v(object_, slot);
    v.set(world_, t.world);
    v.set(normal_, t.normal);
  }

 private:
  const StructLayout& object_;
  FieldRef world_, normal_;
};

}  // namespace bindery::strategies
