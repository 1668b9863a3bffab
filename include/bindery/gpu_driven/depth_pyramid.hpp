// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/depth_pyramid.hpp — the max-reduction mip chain of a depth buffer, the
/// occlusion test's input (Hierarchical-Z: Greene, Kass & Miller 1993; the two-phase scheme of
/// Haar & Aaltonen, SIGGRAPH 2015; docs/REFERENCES.md).
///
/// Level 0 is the depth texture's size, in r32float; level L is max(1, size >> L) in each
/// dimension, down to 1 x 1. Texel t of level L holds the farthest depth of the texels of level
/// L - 1 it covers; the last texel of a row or column also covers the odd remainder, so every
/// pixel of the target lies under exactly one texel of every level and the pyramid stays
/// conservative at any size (odd and non-power-of-two included). Shader: shaders/depth_pyramid.wgsl.
///
/// Limits read: maxTextureDimension2D (through the texture creation). Throws WebGPUValidation when
/// the implementation refuses the textures or pipelines (Device::check()).
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"

#include <cstdint>
#include <vector>

namespace bindery::gpu_driven {

/// A depth pyramid over one depth texture (depth24plus or depth32float, one sample).
class DepthPyramid {
 public:
  /// Creates the pyramid texture, its per-level views and the two reduction pipelines for
  /// `depth`, a `width` x `height` depth texture with TEXTURE_BINDING usage.
  DepthPyramid(const Device& device, WGPUTexture depth, uint32_t width, uint32_t height);

  /// Number of mip levels: 1 + floor(log2(max(width, height))).
  static uint32_t levels_for(uint32_t width, uint32_t height);

  /// Records the reduction into `pass` (a compute pass begun after the depth was written): level
  /// 0 copied from the depth texture, then each level from the one above, one dispatch each.
  void build(WGPUComputePassEncoder pass) const;

  /// The whole pyramid (every level), for a `texture_2d<f32>` binding read with textureLoad.
  WGPUTextureView view() const { return view_.get(); }
  /// Mip levels of view().
  uint32_t levels() const { return levels_; }
  /// Level 0's size in texels (the depth texture's).
  ///@{
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  ///@}

 private:
  uint32_t width_, height_, levels_;
  gpu::Texture texture_;
  gpu::TextureView view_, depth_view_;
  std::vector<gpu::TextureView> level_views_;
  gpu::BindGroupLayout from_depth_layout_, reduce_layout_;
  gpu::PipelineLayout from_depth_pipeline_layout_, reduce_pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::ComputePipeline from_depth_, reduce_;
  std::vector<gpu::BindGroup> groups_;
};

}  // namespace bindery::gpu_driven
