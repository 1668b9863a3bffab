// SPDX-License-Identifier: MIT
/// @file
/// bindery/headless/gpu_timer.hpp — named GPU spans of a frame by timestamp queries (WebGPU
/// "timestamp-query"): open a span per pass or run of passes, give each pass its timestamp
/// writes, resolve once per frame into a buffer you read back, and turn the bytes into spans.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// GPU time of one named pass of a frame ("render", "cull", "pyramid", ...), by timestamp queries.
struct GpuSpan {
  /// The pass (or run of passes) timed: "render" for a frame's draw passes; gpu-driven times
  /// "cull", "phase1", "pyramid", "cull2" and "phase2" (the last three with occlusion culling).
  std::string name;
  /// End minus begin timestamp in milliseconds (webgpu.h timestamps are nanoseconds). A span
  /// whose end precedes its begin (a reset counter) is dropped from FrameTiming::gpu_spans.
  double ms = 0;
};

/// Named GPU spans of one frame by timestamp queries (WebGPU §20.4, "timestamp-query"). A span
/// covers one pass or a run of passes; writes() gives the GPUPassTimestampWrites of each pass.
/// Inert (writes() returns nullptr) where the device lacks timestamp queries.
class GpuTimer {
 public:
  static constexpr uint32_t kMaxSpans = 12;  ///< spans per frame; more are not timed
  /// `enable` false: inert, like a device without timestamp queries.
  explicit GpuTimer(const Device& device, bool enable = true);
  /// Whether spans are timed (the device has timestamp queries and `enable` was true).
  bool enabled() const { return static_cast<bool>(queries_); }
  /// Starts the frame: forgets the last frame's span names.
  void begin_frame() { names_.clear(); }
  /// Opens span `name`; returns its index (kMaxSpans when the table is full: not timed).
  uint32_t open(std::string_view name);
  /// Timestamp writes for a pass of span `span`: the first pass of the span writes its start,
  /// the last its end. nullptr when not timed.
  const WGPUPassTimestampWrites* writes(uint32_t span, bool first_pass, bool last_pass);
  /// Resolves the frame's queries and copies them to `dst` at `offset` (16 bytes per span).
  void resolve(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset);
  /// Bytes resolve() writes.
  uint64_t bytes() const { return uint64_t(kMaxSpans) * 2 * sizeof(uint64_t); }
  /// The spans of a frame from the bytes resolve() copied (in nanoseconds, webgpu.h).
  std::vector<GpuSpan> spans(const std::vector<std::string>& names, const uint64_t* ts) const;
  /// The names of the spans opened this frame, in order.
  const std::vector<std::string>& names() const { return names_; }

 private:
  gpu::QuerySet queries_;
  gpu::Buffer resolve_;
  std::vector<std::string> names_;
  WGPUPassTimestampWrites writes_[kMaxSpans * 2] = {};
};

}  // namespace bindery
