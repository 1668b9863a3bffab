// SPDX-License-Identifier: MIT
/// @file
/// bindery/bench.hpp — `bindery bench`: the most objects each strategy draws within a frame budget.
///
/// For one strategy the search renders the cube scene at growing object counts (doubling from
/// `start_objects`) until the median frame time exceeds the budget, then bisects between the last
/// count within budget and the first over it until the two are within `precision` of each other.
/// Frame time is the whole frame (math + uploads + encoding + submit + waiting for the GPU), the
/// median of `frames` frames after one warm-up frame. The search itself (find_max_within_budget)
/// takes any measuring function, so it is tested without a device.
#pragma once

#include "bindery/device.hpp"
#include "bindery/renderer.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bindery {

/// One measured point: `objects` drawn at one frame per `frame_ms` (median frame interval: the
/// throughput, which frames in flight improve; with one frame in flight it is the whole frame).
struct BudgetProbe {
  uint32_t objects = 0;  ///< objects drawn per frame
  double frame_ms = 0;   ///< whole frame, median, milliseconds
  double cpu_ms = 0;  ///< uploads + encoding + submit (median)
  double gpu_ms = 0;  ///< the frame's GPU spans by timestamp queries (median; 0 when unavailable)
  double math_ms = 0;     ///< per-object matrices on the CPU (median)
  double latency_ms = 0;  ///< first CPU work to GPU done (median)
  std::optional<CullingCounts> culling;  ///< the last frame's counts (GPU-driven strategies)
};

/// Options of the search. Throws InvalidArgument (from find_max_within_budget) when
/// budget_ms <= 0, start_objects == 0, max_objects < start_objects or precision is not in (0, 1).
struct BudgetSearchOptions {
  double budget_ms = 1000.0 / 60.0;  ///< the frame budget (60 fps)
  uint32_t start_objects = 250;      ///< first count measured; the search doubles from here
  uint32_t max_objects = 1'000'000;  ///< the search stops here (result `capped`)
  double precision = 0.05;  ///< stop when (first over - last within) / last within <= this
};

/// The result for one strategy: the largest measured count within budget (0 when even
/// start_objects is over), whether the search hit max_objects, and every probe in order.
struct BudgetSearchResult {
  uint32_t max_objects = 0;  ///< largest count measured within budget; 0 when start_objects is over
  bool capped = false;       ///< true when max_objects of the options was reached within budget
  std::vector<BudgetProbe> probes;  ///< every measurement, in the order taken
};

/// The search over a monotone cost: `measure(n)` returns the probe for n objects.
BudgetSearchResult find_max_within_budget(const std::function<BudgetProbe(uint32_t)>& measure,
                                          const BudgetSearchOptions& options);

/// What measure_cubes() renders besides the object count.
struct MeasureOptions {
  std::string strategy = "dynamic-offsets";  ///< a strategy_catalog() name
  /// Render target size in pixels (RenderOptions::width / height: each 1..maxTextureDimension2D;
  /// 1x1 is seed 003's "render off").
  ///@{
  uint32_t width = 640, height = 480;
  ///@}
  uint32_t frames = 5;  ///< measured frames (after one warm-up frame)
  /// CubeSceneOptions::seed: with one seed, the n cubes of a probe are the first n of every larger
  /// probe, so the probes of a search differ only in object count.
  uint64_t seed = 1;
  float spread = 1.0f;            ///< CubeSceneOptions::spread
  uint32_t frames_in_flight = 2;  ///< RenderOptions::frames_in_flight
  bool occlusion = true;          ///< RenderOptions::occlusion
  uint32_t threads = 0;           ///< RenderOptions::threads (0 = every core)
};

/// Measures the cube scene (animated) at `objects` objects: renders 1 + frames frames and returns
/// the medians of the last `frames`.
BudgetProbe measure_cubes(const Device& device, const MeasureOptions& options, uint32_t objects);

}  // namespace bindery
