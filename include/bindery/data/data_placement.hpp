// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/data_placement.hpp — the decision tree of the uniform-buffer note ("El uniform
/// buffer"): for one piece of shader data, should it be a plain uniform buffer, a uniform buffer
/// with a dynamic offset, or a storage buffer?
///
/// The three questions, in order:
///   1. Do all invocations read it the same way (uniform access)? No -> storage buffer (a
///      divergent index loses the constant-cache broadcast).
///   2. Does it fit comfortably in the uniform budget, and is its size fixed (not growing with
///      the scene)? No -> storage buffer (a fixed array with a live count is a debt).
///   3. Does it change per draw? Yes -> uniform buffer with a dynamic offset (thousands of
///      versions of a small datum, one buffer; the dynamic-offsets note). No -> plain uniform buffer (camera,
///      frame parameters, material constants).
/// The budget defaults to 16 KiB, the compatibility-mode maxUniformBufferBindingSize (the uniform-buffer note:
/// "si te importa la cobertura, 16 KiB es el presupuesto real").
#pragma once

#include "bindery/core/limits.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace bindery {

/// Where a piece of per-frame / per-draw data should live.
enum class DataPlacement {
  uniform_buffer,          ///< var<uniform>, one binding, written rarely
  dynamic_uniform_buffer,  ///< var<uniform> with hasDynamicOffset (DynamicUniformBuffer)
  storage_buffer,          ///< var<storage, read> indexed by the shader (StorageArray)
};

/// "uniform_buffer", "dynamic_uniform_buffer" or "storage_buffer".
std::string_view to_string(DataPlacement placement) noexcept;

/// The answers the decision tree needs about one piece of data.
struct DataUsage {
  /// True when every invocation of a draw reads the same address (uniform access); false when
  /// the index depends on the instance, vertex or fragment.
  bool read_uniformly = true;
  /// Size the shader binds for one draw (WGSL SizeOf), bytes.
  uint64_t size_bytes = 0;
  /// True when the size depends on scene data and may grow (lights, instances, ...).
  bool size_grows_with_scene = false;
  /// True when the value differs from one draw to the next (per-object data).
  bool changes_per_draw = false;
};

/// The decision and the question that decided it (one sentence, for reports).
struct PlacementAdvice {
  DataPlacement placement = DataPlacement::uniform_buffer;  ///< where the data should live
  std::string reason;  ///< the question that decided it, as one sentence
};

/// Answers the uniform-buffer note's decision tree for `usage`. `uniform_budget_bytes` is the uniform binding
/// budget (default: 16 KiB, compatibility mode's maxUniformBufferBindingSize). Pure; never
/// throws.
PlacementAdvice choose_data_placement(
    const DataUsage& usage,
    uint64_t uniform_budget_bytes = Limits::compatibility_defaults().maxUniformBufferBindingSize);

}  // namespace bindery
