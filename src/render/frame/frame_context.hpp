// SPDX-License-Identifier: MIT
// src/render/frame/frame_context.hpp — what a strategy is given each frame: the frame's values
// and inputs, the offscreen target and how a pass over it begins (frame_context.cpp), the
// encoder, timer and counters it records with, and a timed compute pass. Private to render/.
// The GPU spans are bindery/headless/gpu_timer.hpp.
#pragma once

#include "bindery/core/counters.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/headless/gpu_timer.hpp"
#include "bindery/render/scene.hpp"

#include <glm/glm.hpp>

#include <string_view>
#include <vector>

namespace bindery::strategies {

/// Colour target and depth formats of the offscreen target.
inline constexpr WGPUTextureFormat kColorFormat = WGPUTextureFormat_RGBA8Unorm;
inline constexpr WGPUTextureFormat kDepthFormat = WGPUTextureFormat_Depth24Plus;

/// Values shared by every object in a frame.
struct FrameValues {
  glm::mat4 view_projection;
  glm::vec3 light_world_position;
  glm::vec3 view_world_position;
};

/// What a strategy gets each frame.
struct FrameInputs {
  const std::vector<ObjectTransform>& transforms;  ///< one per scene object (empty when the
                                                   ///< strategy computes them on the GPU)
  const FrameValues& values;
  uint32_t changed_begin = 0, changed_end = 0;  ///< objects whose transforms changed this frame
  bool first_frame = false;
  float time_s = 0;  ///< the animation time of this frame
  /// The renderer's matrix threads already handed this frame's changed transforms to
  /// Strategy::write_transforms() (strategies that take them: takes_transforms_from_threads()).
  bool transforms_written = false;
  /// The cluster path's pixel error this frame (RenderOptions::lod_error_px, or what
  /// RenderOptions::cluster_tuning left).
  float lod_error_px = 1.0f;
  /// The cluster path's debug colours this frame: 0 shaded, 1 clusters, 2 levels
  /// (RenderOptions::debug_colors, or what RenderOptions::cluster_tuning left).
  uint32_t debug_colors = 0;
};

/// The offscreen colour + depth target and how a pass over it begins.
struct FrameTarget {
  WGPUTextureView color = nullptr, depth = nullptr;
  WGPUTexture depth_texture = nullptr;  ///< sampled by depth-pyramid builders
  uint32_t width = 0, height = 0;
  glm::vec4 clear_color{0.0f};
  /// Begins a render pass over the target: clears colour and depth when `clear`, else loads.
  gpu::RenderPassEncoder begin_pass(WGPUCommandEncoder encoder, bool clear,
                                    const WGPUPassTimestampWrites* timestamps) const;
};

/// Everything a strategy records a frame with.
struct FrameContext {
  const FrameInputs& in;
  WGPUCommandEncoder encoder;
  const FrameTarget& target;
  GpuTimer& timer;
  Counters& counters;           ///< where encode() counts the frame's calls (the device's)
  uint32_t max_draws_per_pass;  ///< see RenderOptions::max_draws_per_pass
  uint32_t passes = 0;          ///< render passes recorded (out)
};

/// A compute pass over ctx.encoder, timed as one GPU span named `name`; ends when destroyed.
class TimedComputePass {
 public:
  TimedComputePass(FrameContext& ctx, std::string_view name) {
    WGPUComputePassDescriptor d = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
    d.timestampWrites = ctx.timer.writes(ctx.timer.open(name), true, true);
    pass_ = wgpuCommandEncoderBeginComputePass(ctx.encoder, &d);
  }
  ~TimedComputePass() {
    wgpuComputePassEncoderEnd(pass_);
    wgpuComputePassEncoderRelease(pass_);
  }
  TimedComputePass(const TimedComputePass&) = delete;
  TimedComputePass& operator=(const TimedComputePass&) = delete;
  WGPUComputePassEncoder get() const { return pass_; }
  /// Sets `pipeline` and `group` (as group 0), then dispatches x * y * 1 workgroups.
  void dispatch(WGPUComputePipeline pipeline, WGPUBindGroup group, uint32_t x, uint32_t y) {
    wgpuComputePassEncoderSetPipeline(pass_, pipeline);
    wgpuComputePassEncoderSetBindGroup(pass_, 0, group, 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass_, x, y, 1);
  }

 private:
  WGPUComputePassEncoder pass_ = nullptr;
};

}  // namespace bindery::strategies
