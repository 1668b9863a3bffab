// bindery/renderer.hpp — the headless renderer behind `bindery render`: draws a Scene with one
// per-draw-data strategy into an offscreen target, times every frame and reports counters.
//
// Frame timing (seed 003's measurements): math_ms = computing world/normal matrices on the CPU;
// cpu_ms = uploads + command encoding + submit; gpu_ms = the render pass between two timestamp
// queries (nullopt where the adapter lacks "timestamp-query"); frame_ms = the whole frame
// including waiting for the GPU (frames are not overlapped: each frame waits for the last).
// A size of 1x1 is the article's "render off" mode.
#pragma once

#include "bindery/counters.hpp"
#include "bindery/device.hpp"
#include "bindery/image.hpp"
#include "bindery/scene.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// How per-draw data reaches the shader. Every strategy renders the same image.
enum class StrategyKind {
  naive,            ///< seed 003 start: a uniform buffer + bind group per object, writeBuffer each
  dynamic_offsets,  ///< frame / material / object groups; one buffer + one bind group with a
                    ///< dynamic offset per draw at a stride from minUniformBufferOffsetAlignment
  storage_instancing,  ///< per-object data in a read-only storage array indexed by instance_index;
                       ///< one instanced draw per (material, mesh) batch
  mapped_staging,  ///< dynamic-offsets, but per-object data written straight into mapped staging
                   ///< buffers and copied with copyBufferToBuffer (seed 003's last step)
  render_bundles,  ///< dynamic-offsets, with the draws recorded once into render bundles and
                   ///< replayed each frame with executeBundles
  gpu_culling,     ///< storage array + a compute pass that frustum-culls every object and fills
                   ///< indirect draw arguments; one drawIndexedIndirect per (material, mesh) batch
};

/// "naive", "dynamic-offsets", "mapped-staging", "render-bundles", "storage-instancing",
/// "gpu-culling".
std::string_view to_string(StrategyKind kind);
/// Parses a --strategy name; throws InvalidArgument listing the valid names.
StrategyKind parse_strategy(std::string_view name);

/// Options of one render run.
struct RenderOptions {
  StrategyKind strategy = StrategyKind::dynamic_offsets;
  uint32_t width = 640, height = 480;  ///< target size in pixels, each 1..maxTextureDimension2D
  uint32_t frames = 60;                ///< frames to render (>= 1)
  std::optional<float> time_s;         ///< freeze the animation at this time (seconds)
  double moving = 1.0;                 ///< share of objects that move each frame, 0..1
  bool keep_last_frame = true;         ///< read the last frame back into RenderReport::last_frame
  /// Most draws encoded into one render pass; a frame with more is split into several passes
  /// (the first clears, the rest load). 0 = default_max_draws_per_pass(the device's adapter).
  uint32_t max_draws_per_pass = 0;
  /// Called after each frame with (frame index, frame count), for progress output.
  std::function<void(uint32_t, uint32_t)> on_frame;
};

/// Timings of one frame in milliseconds.
struct FrameTiming {
  double math_ms = 0, cpu_ms = 0, frame_ms = 0;
  std::optional<double> gpu_ms;
};

/// The result of a render run.
struct RenderReport {
  std::string scene;
  StrategyKind strategy = StrategyKind::naive;
  uint32_t objects = 0, draws_per_frame = 0, width = 0, height = 0;
  uint32_t materials = 0;
  uint64_t object_stride_bytes = 0;  ///< per-object data stride in the GPU buffer (0 if n/a)
  uint32_t passes_per_frame = 1;     ///< render passes per frame (see max_draws_per_pass)
  /// Objects the GPU found visible in the last frame (gpu-culling only; read back after it).
  std::optional<uint32_t> visible_objects;
  Counters init;       ///< creation: buffers, bind groups, initial uploads
  Counters per_frame;  ///< the last frame's calls and bytes
  std::vector<FrameTiming> frames;
  std::optional<Image> last_frame;
};

/// The draws per render pass bindery allows on `adapter` by default: 50,000 on Mesa lavapipe
/// (whose rasterizer crashes past about 65,100 draws in one pass), unlimited elsewhere.
uint32_t default_max_draws_per_pass(const AdapterDescription& adapter);

/// The most bind groups bindery creates on `adapter` in one run: on Mesa lavapipe each bind group
/// holds a memory mapping and the process crashes near vm.max_map_count (65530 by default; seen
/// here at about 65,200 bind groups), so the budget is /proc/sys/vm/max_map_count minus 5000 for
/// everything else; unlimited elsewhere.
uint64_t default_max_bind_groups(const AdapterDescription& adapter);

/// Renders `scene` with `options` on `device`. Throws SceneInput for a bad size or frame count
/// (before touching the device), and whatever the device reports (WebGPUValidation, ...).
RenderReport render(const Device& device, const Scene& scene, const RenderOptions& options);

}  // namespace bindery
