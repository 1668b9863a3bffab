// SPDX-License-Identifier: MIT
/// @file
/// bindery/render/soak.hpp — long runs: does a strategy keep memory, WebGPU objects and per-frame
/// work flat over thousands of frames?
///
/// soak() renders one scene with one strategy for many frames (bindery::render) and samples,
/// every `check_every` frames once the frame is done on the GPU: the process's resident memory,
/// the webgpu.h objects bindery owns per type (gpu::live_handles: creates minus releases), the
/// implementation's own live objects per type where it reports them (wgpu-native's
/// wgpuGenerateReport; Dawn has no such report, so there only bindery's own counts are compared),
/// and the frame's calls and bytes (Counters). find_drifts() compares every
/// sample after the warm-up with the first one after it: a quantity that moves by more than the
/// tolerance (5% by default) is a drift, i.e. a leak or unbounded growth. Issue 9, part 3.
#pragma once

#include "bindery/core/counters.hpp"
#include "bindery/core/device.hpp"
#include "bindery/render/renderer.hpp"
#include "bindery/render/scene.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace bindery {


/// What soak() sees when a frame is done on the GPU.
struct SoakSample {
  uint32_t frames_done = 0;     ///< frames completed when sampled (the frame's index + 1)
  uint64_t resident_bytes = 0;  ///< the process's resident set (/proc/self/statm), bytes
  ObjectCounts live_objects;    ///< webgpu.h objects owned through gpu::Handle, per type
  /// Objects alive inside the WebGPU implementation per type (wgpu-native's hub report:
  /// numAllocated); nullopt where the implementation has no such report.
  std::optional<ObjectCounts> implementation_objects;
  Counters calls;           ///< the calls and bytes of this frame
  double interval_ms = 0;   ///< this frame's completion interval (RenderReport's interval_ms)
};

/// One quantity that left its tolerance: its name ("resident bytes (floor)", "live Buffer",
/// "implementation buffers", "draws", ...), its value in the baseline sample and in the sample
/// where it drifted most.
struct SoakDrift {
  std::string quantity;  ///< what drifted, e.g. "live Buffer"
  double baseline = 0;   ///< its value in the baseline sample (memory: the baseline floor)
  double value = 0;      ///< its value farthest from the baseline
  uint32_t baseline_frames_done = 0;  ///< SoakSample::frames_done of the baseline sample
  uint32_t frames_done = 0;           ///< SoakSample::frames_done of the sample of `value`
};

/// Options of soak(). The render options' frame count is the soak's length.
struct SoakOptions {
  RenderOptions render;          ///< strategy, size, frames (see validate_soak_options), ...
  uint32_t check_every = 100;    ///< frames between samples (>= 1)
  uint32_t warmup = 200;         ///< frames before the baseline sample
  double tolerance = 0.05;       ///< largest allowed relative change from the baseline, 0..1
  uint32_t memory_window = 4;    ///< samples per resident-memory floor (find_drifts), >= 1
  /// Called after each sample (progress output).
  std::function<void(const SoakSample&)> on_sample;
};

/// The result of soak(): its samples and the drifts find_drifts() found in them.
struct SoakReport {
  std::string strategy;            ///< the strategy_catalog() name that ran
  uint32_t objects = 0;            ///< objects in the scene
  uint32_t moving_objects = 0;     ///< objects moved per frame (RenderReport::moving_objects)
  /// RenderReport::cpu_ns_per_moved_object of the whole run.
  std::optional<double> cpu_ns_per_moved_object;
  uint32_t frames = 0;             ///< frames rendered
  std::vector<SoakSample> samples;  ///< in frame order, one per check and one after the last frame
  std::vector<SoakDrift> drifts;  ///< empty when every quantity stayed flat
  double throughput_fps = 0;      ///< RenderReport::throughput_fps() of the whole run
  /// Resident-memory floors (find_drifts) of the first window after the warm-up and of the
  /// last window, in bytes.
  uint64_t memory_floor_baseline = 0;
  uint64_t memory_floor_end = 0;  ///< see memory_floor_baseline
  /// True when nothing drifted.
  bool flat() const { return drifts.empty(); }
};

/// The process's resident set size in bytes (Linux /proc/self/statm; 0 where unreadable).
uint64_t resident_bytes();

/// Objects alive inside the WebGPU implementation of `device`, per type, when it reports them
/// (wgpu-native: wgpuGenerateReport, each registry's numAllocated); nullopt otherwise (Dawn).
std::optional<ObjectCounts> implementation_objects(const Device& device);

/// Finds what did not stay flat after the warm-up. The baseline is the first sample with
/// frames_done >= `warmup`.
/// - Resident memory is judged by its floor, the smallest value of `memory_window` consecutive
///   samples (drivers allocate and return command memory in bursts; a leak raises the floor):
///   the floor of the first window after the warm-up is the baseline, and a later floor more
///   than `tolerance` above it is the drift "resident bytes (floor)". Only growth drifts.
/// - Each live object type (bindery's, "live Buffer", and the implementation's, "implementation
///   buffers"; a type absent on one side counts as 0) and each Counters field ("draws",
///   "setBindGroup calls", ...) is compared sample by sample with the baseline sample and
///   drifts when |value - baseline| > tolerance * |baseline|, so a quantity that is 0 in the
///   baseline must stay 0.
/// Each drifting quantity is reported once, at the sample farthest from its baseline, memory
/// first, the rest in the order they first drifted. Throws InvalidArgument when tolerance is
/// outside 0..1, memory_window is 0 or no sample reaches the warm-up.
std::vector<SoakDrift> find_drifts(std::span<const SoakSample> samples, uint32_t warmup,
                                   double tolerance, uint32_t memory_window = 4);

/// The most samples one soak() takes (frames / check_every): each sample holds about 1-2 KiB,
/// memory the resident-memory check would otherwise count as growth.
inline constexpr uint32_t kMaxSoakSamples = 1000;

/// Samples soak() takes with frames_done >= `warmup`: after every `check_every` frames and after
/// the last frame. 0 when check_every is 0 or warmup > frames.
uint32_t soak_samples_after_warmup(uint32_t frames, uint32_t check_every, uint32_t warmup);

/// Throws InvalidArgument for options soak() refuses, without a device (CLIs call it before
/// creating one): check_every 0; tolerance outside 0..1; memory_window 0; a warm-up shorter than
/// render.frames_in_flight + 1 frames (the first frames create and record what later ones
/// reuse); more than kMaxSoakSamples samples; fewer than memory_window + 1 samples after the
/// warm-up (no second memory floor to compare with the first).
void validate_soak_options(const SoakOptions& options);

/// Renders `scene` for options.render.frames frames, sampling after every options.check_every
/// frames (and after the last), then finds the drifts. Throws InvalidArgument for what
/// validate_soak_options() refuses, StrategyUnavailable
/// where the strategy cannot run, and whatever render() throws.
SoakReport soak(const Device& device, const Scene& scene, const SoakOptions& options);

}  // namespace bindery
