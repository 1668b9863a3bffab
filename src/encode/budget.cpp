// SPDX-License-Identifier: MIT
// Pipeline-layout budget checks for the bind group planner (createBindGroupLayout /
// createPipelineLayout limits, WebGPU §8.1-8.3, shared/cases rule 7; cases M01, M03).
//
// The counting and the limit checks are validation.hpp's validate_pipeline_layout; this file only
// adds to its message the bindings that make up the count that broke the limit, as the planner's
// report promises ("the limit, the count and the bindings").
#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/core/error.hpp"
#include "bindery/data/validation.hpp"

#include <fmt/format.h>

namespace bindery {
namespace {

/// Does entry `e` count towards the limit behind error `kind`?
bool counts_for(ErrorKind kind, const BindingLayoutEntry& e) {
  switch (kind) {
    case ErrorKind::TooManyDynamicUniformBuffers:
      return e.has_dynamic_offset && e.kind == BindingKind::uniform_buffer;
    case ErrorKind::TooManyDynamicStorageBuffers:
      return e.has_dynamic_offset && is_storage(e.kind);
    case ErrorKind::TooManyUniformBuffersPerStage: return e.kind == BindingKind::uniform_buffer;
    case ErrorKind::TooManyStorageBuffersPerStage: return is_storage(e.kind);
    case ErrorKind::TooManySampledTexturesPerStage: return e.kind == BindingKind::sampled_texture;
    case ErrorKind::TooManySamplersPerStage: return e.kind == BindingKind::sampler;
    case ErrorKind::StorageVisibleToVertex:
      return e.kind == BindingKind::storage_buffer && (e.visibility & kStageVertex);
    default: return false;
  }
}

}  // namespace

void check_plan_budgets(std::span<const BindGroupLayoutDesc> layout, const Limits& limits) {
  try {
    validate_pipeline_layout(layout, limits);
  } catch (const Error& e) {
    std::vector<std::string> names;
    for (size_t g = 0; g < layout.size(); ++g) {
      for (const BindingLayoutEntry& entry : layout[g].entries) {
        if (!counts_for(e.kind(), entry)) continue;
        names.push_back(fmt::format("'{}' @group({}) @binding({}) visibility {:#x}", entry.name, g,
                                    entry.binding, entry.visibility));
      }
    }
    if (names.empty()) throw;
    throw Error(e.kind(), fmt::format("{}; bindings counted: {}", e.what(), fmt::join(names, ", ")));
  }
}

}  // namespace bindery
