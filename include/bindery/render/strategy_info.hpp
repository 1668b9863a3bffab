// SPDX-License-Identifier: MIT
/// @file
/// bindery/render/strategy_info.hpp — what the renderer says about a strategy without running
/// it: its catalogue row (StrategyInfo), and what a strategy that culls on the GPU counted in a
/// frame (CullingCounts). Plain data; the strategies' interface includes this header and not the
/// renderer's (bindery/render/renderer.hpp), which includes it in turn.
#pragma once

#include <cstdint>
#include <string_view>

namespace bindery {

/// One row of the strategy catalogue: how per-draw data reaches the shader. Every strategy renders
/// the same image for the same scene, seed and time (tested). Strategies live one per file in
/// src/render/strategies/NAME.cpp, each with one row in src/render/strategies/registry.cpp.
struct StrategyInfo {
  std::string_view name;          ///< the --strategy name, e.g. "dynamic-offsets"
  std::string_view summary;       ///< one line: what carries per-object data, calls per frame
  std::string_view article_step;  ///< the article section it implements (the optimization article unless named)
};

/// Objects counted by the GPU in one frame (GPU-driven strategies): in the scene, inside the
/// view frustum, not hidden by the depth pyramid (equal to after_frustum without occlusion
/// culling), and drawn (phase 1 + phase 2).
struct CullingCounts {
  /// Object counts, in the order of the pipeline: objects (the scene's), after_frustum,
  /// after_occlusion, drawn.
  ///@{
  uint32_t objects = 0, after_frustum = 0, after_occlusion = 0, drawn = 0;
  ///@}
  /// Indirect draws that drew something (non-empty bins), summed over the frame's phases; 0
  /// for strategies that do not count them.
  uint32_t sub_draws = 0;
  /// With clusters (RenderOptions::clusters): cluster-instances tested, clusters drawn, the
  /// triangles the draws submitted, cluster-instances dropped for want of room; all summed over
  /// the frame's phases.
  bool has_clusters = false;
  uint32_t clusters_tested = 0;      ///< cluster-instances tested (after the level pruning)
  uint32_t clusters_visible = 0;     ///< clusters drawn
  uint32_t triangles_submitted = 0;  ///< triangles the draws submitted
  uint32_t clusters_dropped = 0;     ///< cluster-instances that did not fit the output
  uint32_t triangles_rasterized = 0; ///< triangles given to the compute rasterizer
};

}  // namespace bindery
