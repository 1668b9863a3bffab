// SPDX-License-Identifier: MIT
// The CPU-side WebGPU binding rules (validation.hpp). Each check throws bindery::Error with a
// message that names the call, the field, the value and the limit or rule.
#include "bindery/data/validation.hpp"

#include "bindery/data/align.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace bindery {

namespace {

std::string_view kind_name(BindingKind kind) {
  switch (kind) {
    case BindingKind::uniform_buffer: return "uniform";
    case BindingKind::storage_buffer: return "storage";
    case BindingKind::read_only_storage_buffer: return "read-only-storage";
    case BindingKind::sampled_texture: return "texture";
    case BindingKind::sampler: return "sampler";
  }
  return "unknown";
}

std::string layout_name(const BindGroupLayoutDesc& layout) {
  return layout.label.empty() ? std::string("(unlabelled)") : "'" + layout.label + "'";
}

std::string entry_name(const BindingLayoutEntry& e) {
  if (e.name.empty()) return fmt::format("binding {}", e.binding);
  return fmt::format("binding {} ('{}')", e.binding, e.name);
}

// The offset alignment limit that applies to a buffer binding kind (rule 5).
struct AlignmentLimit {
  uint64_t value;
  const char* name;
};
AlignmentLimit offset_alignment(BindingKind kind, const Limits& limits, std::string_view call) {
  AlignmentLimit a = is_storage(kind)
                         ? AlignmentLimit{limits.minStorageBufferOffsetAlignment,
                                          "minStorageBufferOffsetAlignment"}
                         : AlignmentLimit{limits.minUniformBufferOffsetAlignment,
                                          "minUniformBufferOffsetAlignment"};
  if (!is_power_of_two(a.value)) {
    throw Error(ErrorKind::NotPowerOfTwo,
                fmt::format("{}: limit {} ({}) is not a power of two", call, a.name, a.value));
  }
  return a;
}

constexpr uint32_t kAllStages = kStageVertex | kStageFragment | kStageCompute;

void add_stage(StageBindingCounts& c, BindingKind kind) {
  switch (kind) {
    case BindingKind::uniform_buffer: ++c.uniform_buffers; break;
    case BindingKind::storage_buffer:
    case BindingKind::read_only_storage_buffer: ++c.storage_buffers; break;
    case BindingKind::sampled_texture: ++c.sampled_textures; break;
    case BindingKind::sampler: ++c.samplers; break;
  }
}

void add_usage(BindingUsage& u, const BindGroupLayoutDesc& layout) {
  for (const BindingLayoutEntry& e : layout.entries) {
    if (e.has_dynamic_offset) {
      if (e.kind == BindingKind::uniform_buffer) ++u.dynamic_uniform_buffers;
      if (is_storage(e.kind)) ++u.dynamic_storage_buffers;
    }
    if (e.visibility & kStageVertex) add_stage(u.vertex, e.kind);
    if (e.visibility & kStageFragment) add_stage(u.fragment, e.kind);
    if (e.visibility & kStageCompute) add_stage(u.compute, e.kind);
  }
}

void check_count(uint32_t count, uint32_t limit, ErrorKind kind, std::string_view call,
                 std::string_view what, std::string_view limit_name) {
  if (count > limit) {
    throw Error(kind, fmt::format("{}: {} {} exceed {} ({})", call, count, what, limit_name,
                                  limit));
  }
}

void check_stage(const StageBindingCounts& c, std::string_view stage, const Limits& limits,
                 std::string_view call) {
  const std::string where = fmt::format("{} stage", stage);
  check_count(c.uniform_buffers, limits.maxUniformBuffersPerShaderStage,
              ErrorKind::TooManyUniformBuffersPerStage, call,
              fmt::format("uniform buffers visible to the {}", where),
              "maxUniformBuffersPerShaderStage");
  check_count(c.storage_buffers, limits.maxStorageBuffersPerShaderStage,
              ErrorKind::TooManyStorageBuffersPerStage, call,
              fmt::format("storage buffers visible to the {}", where),
              "maxStorageBuffersPerShaderStage");
  check_count(c.sampled_textures, limits.maxSampledTexturesPerShaderStage,
              ErrorKind::TooManySampledTexturesPerStage, call,
              fmt::format("sampled textures visible to the {}", where),
              "maxSampledTexturesPerShaderStage");
  check_count(c.samplers, limits.maxSamplersPerShaderStage, ErrorKind::TooManySamplersPerStage,
              call, fmt::format("samplers visible to the {}", where), "maxSamplersPerShaderStage");
}

void check_usage(const BindingUsage& u, const Limits& limits, std::string_view call) {
  check_count(u.dynamic_uniform_buffers, limits.maxDynamicUniformBuffersPerPipelineLayout,
              ErrorKind::TooManyDynamicUniformBuffers, call,
              "uniform buffers with hasDynamicOffset", "maxDynamicUniformBuffersPerPipelineLayout");
  check_count(u.dynamic_storage_buffers, limits.maxDynamicStorageBuffersPerPipelineLayout,
              ErrorKind::TooManyDynamicStorageBuffers, call,
              "storage / read-only-storage buffers with hasDynamicOffset",
              "maxDynamicStorageBuffersPerPipelineLayout");
  check_stage(u.vertex, "vertex", limits, call);
  check_stage(u.fragment, "fragment", limits, call);
  check_stage(u.compute, "compute", limits, call);
}

}  // namespace

std::vector<uint32_t> dynamic_binding_order(const BindGroupLayoutDesc& layout) {
  std::vector<uint32_t> order;
  for (const BindingLayoutEntry& e : layout.entries) {
    if (e.has_dynamic_offset) order.push_back(e.binding);
  }
  std::sort(order.begin(), order.end());
  return order;
}

std::vector<AppliedDynamicOffset> validate_dynamic_offsets(
    uint32_t group_index, const BindGroupLayoutDesc& layout,
    std::span<const uint32_t> dynamic_offsets, std::span<const BufferBindingWindow> windows,
    const Limits& limits) {
  const std::string call = fmt::format("setBindGroup({})", group_index);

  // Dynamic entries sorted by binding number: the order offsets are applied in (D05).
  std::vector<const BindingLayoutEntry*> dynamic;
  for (const BindingLayoutEntry& e : layout.entries) {
    if (e.has_dynamic_offset) dynamic.push_back(&e);
  }
  std::sort(dynamic.begin(), dynamic.end(),
            [](const BindingLayoutEntry* a, const BindingLayoutEntry* b) {
              return a->binding < b->binding;
            });
  for (size_t i = 1; i < dynamic.size(); ++i)
    if (dynamic[i]->binding == dynamic[i - 1]->binding)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: layout {} lists binding {} twice (createBindGroupLayout "
                              "requires unique binding numbers)",
                              call, layout_name(layout), dynamic[i]->binding));

  if (dynamic_offsets.size() != dynamic.size()) {  // D06
    throw Error(ErrorKind::DynamicOffsetCount,
                fmt::format("{}: {} dynamic offsets given, but layout {} has {} entries with "
                            "hasDynamicOffset (one offset each, in increasing binding order)",
                            call, dynamic_offsets.size(), layout_name(layout), dynamic.size()));
  }

  std::vector<AppliedDynamicOffset> applied;
  applied.reserve(dynamic.size());
  for (size_t i = 0; i < dynamic.size(); ++i) {
    const BindingLayoutEntry& e = *dynamic[i];
    const uint32_t off = dynamic_offsets[i];
    if (!is_buffer(e.kind)) {
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: layout {} {} is a {} but has hasDynamicOffset", call,
                              layout_name(layout), entry_name(e), kind_name(e.kind)));
    }
    const AlignmentLimit align = offset_alignment(e.kind, limits, call);
    if (off % align.value != 0) {  // D01
      throw Error(ErrorKind::DynamicOffsetAlignment,
                  fmt::format("{}: dynamic offset {} (index {}, {} {}) is not a multiple of {} "
                              "({})",
                              call, off, i, kind_name(e.kind), entry_name(e), align.name,
                              align.value));
    }
    if (!windows.empty()) {
      auto w = std::find_if(windows.begin(), windows.end(),
                            [&](const BufferBindingWindow& bw) { return bw.binding == e.binding; });
      if (w == windows.end()) {
        throw Error(ErrorKind::InvalidArgument,
                    fmt::format("{}: no buffer binding given for dynamic {}", call,
                                entry_name(e)));
      }
      if (w->offset > w->buffer_size ||
          (w->size != kWholeSize && w->size > w->buffer_size - w->offset)) {
        throw Error(ErrorKind::BindingOutOfBounds,
                    fmt::format("{}: {} window (offset {}, size {}) exceeds its buffer of {} "
                                "bytes",
                                call, entry_name(e), w->offset, w->size, w->buffer_size));
      }
      const uint64_t size = w->size == kWholeSize ? w->buffer_size - w->offset : w->size;
      // Strict rule (Dawn, wgpu): binding.offset + binding.size + dynamicOffset <= buffer.size.
      if (off > w->buffer_size - w->offset - size) {
        throw Error(ErrorKind::DynamicOffsetOutOfBounds,
                    fmt::format("{}: {} binding offset {} + binding size {} + dynamic offset {} "
                                "= {} exceeds the buffer size {}",
                                call, entry_name(e), w->offset, size, off,
                                w->offset + size + off, w->buffer_size));
      }
    }
    applied.push_back({e.binding, off});
  }
  return applied;
}

BindingUsage count_binding_usage(const BindGroupLayoutDesc& layout) {
  BindingUsage u;
  add_usage(u, layout);
  return u;
}

BindingUsage count_binding_usage(std::span<const BindGroupLayoutDesc> groups) {
  BindingUsage u;
  for (const BindGroupLayoutDesc& g : groups) add_usage(u, g);
  return u;
}

void validate_bind_group_layout(const BindGroupLayoutDesc& layout, const Limits& limits) {
  const std::string call = fmt::format("createBindGroupLayout({})", layout_name(layout));
  std::vector<uint32_t> numbers;
  numbers.reserve(layout.entries.size());
  for (const BindingLayoutEntry& e : layout.entries) {
    if (e.binding >= limits.maxBindingsPerBindGroup) {
      throw Error(ErrorKind::BindingNumberTooLarge,
                  fmt::format("{}: {} is not below maxBindingsPerBindGroup ({})", call,
                              entry_name(e), limits.maxBindingsPerBindGroup));
    }
    if (e.visibility & ~kAllStages) {
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: {} visibility 0x{:x} has bits other than VERTEX|FRAGMENT|"
                              "COMPUTE",
                              call, entry_name(e), e.visibility));
    }
    if (e.has_dynamic_offset && !is_buffer(e.kind)) {
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: {} is a {}; only buffers take hasDynamicOffset", call,
                              entry_name(e), kind_name(e.kind)));
    }
    if (e.kind == BindingKind::storage_buffer && (e.visibility & kStageVertex)) {
      throw Error(ErrorKind::StorageVisibleToVertex,
                  fmt::format("{}: {} is a read-write storage buffer visible to VERTEX (use "
                              "read-only-storage)",
                              call, entry_name(e)));
    }
    numbers.push_back(e.binding);
  }
  std::sort(numbers.begin(), numbers.end());
  auto dup = std::adjacent_find(numbers.begin(), numbers.end());
  if (dup != numbers.end()) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: binding number {} is used more than once", call, *dup));
  }
  check_usage(count_binding_usage(layout), limits, call);
}

BindingUsage validate_pipeline_layout(std::span<const BindGroupLayoutDesc> groups,
                                      const Limits& limits) {
  if (groups.size() > limits.maxBindGroups) {
    throw Error(ErrorKind::TooManyBindGroups,
                fmt::format("createPipelineLayout: {} bind group layouts exceed maxBindGroups "
                            "({}); "
                            "the highest group index would be {}",
                            groups.size(), limits.maxBindGroups, groups.size() - 1));
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    with_context(fmt::format("checking group {} of createPipelineLayout", i),
                 [&] { validate_bind_group_layout(groups[i], limits); });
  }
  const BindingUsage usage = count_binding_usage(groups);
  check_usage(usage, limits,
              fmt::format("createPipelineLayout (sum over {} groups)", groups.size()));
  return usage;
}

uint64_t validate_buffer_binding(const BufferBindingDesc& b, const Limits& limits,
                                 const BufferBindingOptions& options) {
  const std::string call = fmt::format("createBindGroup: binding {}", b.binding);
  if (!is_buffer(b.kind)) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: kind {} is not a buffer binding", call, kind_name(b.kind)));
  }
  if (b.offset > b.buffer_size || (b.size != kWholeSize && b.size > b.buffer_size - b.offset)) {
    throw Error(ErrorKind::BindingOutOfBounds,
                fmt::format("{}: offset {} + size {} exceeds the buffer size {}", call, b.offset,
                            b.size, b.buffer_size));
  }
  const uint64_t size = b.size == kWholeSize ? b.buffer_size - b.offset : b.size;
  const AlignmentLimit align = offset_alignment(b.kind, limits, call);
  if (b.offset % align.value != 0) {
    throw Error(ErrorKind::BindingOffsetAlignment,
                fmt::format("{}: offset {} is not a multiple of {} ({})", call, b.offset,
                            align.name, align.value));
  }
  if (size == 0) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: effective binding size is 0 bytes", call));
  }
  if (b.kind == BindingKind::uniform_buffer) {
    uint64_t limit = limits.maxUniformBufferBindingSize;
    const char* limit_name = "maxUniformBufferBindingSize";
    const uint64_t compat = Limits::compatibility_defaults().maxUniformBufferBindingSize;
    if (options.compatibility_uniform_budget && compat < limit) {
      limit = compat;
      limit_name = "the compatibility-mode maxUniformBufferBindingSize";
    }
    if (size > limit) {
      throw Error(ErrorKind::UniformBindingTooLarge,
                  fmt::format("{}: uniform binding size {} exceeds {} ({})", call, size,
                              limit_name, limit));
    }
  } else {
    if (size % 4 != 0) {
      throw Error(ErrorKind::BindingSizeAlignment,
                  fmt::format("{}: storage binding size {} is not a multiple of 4", call, size));
    }
    if (size > limits.maxStorageBufferBindingSize) {
      throw Error(ErrorKind::StorageBindingTooLarge,
                  fmt::format("{}: storage binding size {} exceeds maxStorageBufferBindingSize "
                              "({})",
                              call, size, limits.maxStorageBufferBindingSize));
    }
  }
  if (size < b.layout_min_binding_size) {
    throw Error(ErrorKind::MinBindingSizeTooSmall,
                fmt::format("{}: binding size {} is smaller than the layout's minBindingSize {}",
                            call, size, b.layout_min_binding_size));
  }
  if (size < b.shader_min_binding_size) {
    throw Error(ErrorKind::MinBindingSizeTooSmall,
                fmt::format("{}: binding size {} is smaller than the shader's minimum binding "
                            "size {} (SizeOf the store type)",
                            call, size, b.shader_min_binding_size));
  }
  return size;
}

void validate_min_binding_size(const BindingLayoutEntry& entry,
                               uint64_t shader_min_binding_size) {
  if (entry.min_binding_size != 0 && entry.min_binding_size < shader_min_binding_size) {
    throw Error(ErrorKind::MinBindingSizeTooSmall,
                fmt::format("createRenderPipeline: layout {} minBindingSize {} is smaller than "
                            "the shader's minimum binding size {}",
                            entry_name(entry), entry.min_binding_size, shader_min_binding_size));
  }
}

}  // namespace bindery
