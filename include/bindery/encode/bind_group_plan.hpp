// SPDX-License-Identifier: MIT
/// @file
/// bindery/encode/bind_group_plan.hpp — bind groups organised by frequency of change: the planner,
/// its call/bind-group arithmetic, static intruder detection and the scene description it reads.
///
/// The by-frequency note ("Organizar los bind groups por frecuencia de cambio"): the cost of a draw loop is set
/// by how often each resource must be re-bound, so bindings are grouped by how often they change
/// (constant < frame < pass < material < object), group 0 being the lowest frequency; never by
/// resource type. The planner
///   - assigns every binding to at most Limits::maxBindGroups groups, merging UPWARD when there are
///     more frequencies than groups (constants into the frame group; pass data into the frame group
///     when there is a single pass; then per-object buffers out of the group system into a
///     read-only storage buffer indexed by `@builtin(instance_index)`; then the two lowest groups);
///   - turns per-object uniform buffers into dynamic-offset uniforms (hasDynamicOffset, the dynamic-offsets note)
///     or, on request or when maxDynamicUniformBuffersPerPipelineLayout is exhausted, into a
///     storage buffer indexed by instance_index;
///   - writes explicit bind group layouts (never layout 'auto', which cannot express
///     hasDynamicOffset and is not shared across pipelines: the cases (docs/REFERENCES.md) rule 10), the pipeline
///     layout, and the WGSL `@group(g) @binding(b) var ...` declarations;
///   - counts setBindGroup calls per pass and bind groups created for the scene statistics
///     (the by-frequency note: 2000 objects, 50 materials, 3 passes -> 2051 and 2051 by frequency, 6000 and 6000
///     by resource type; the cases (docs/REFERENCES.md) C01: 1 + 3 + 12 = 16);
///   - reports intruders: a binding declared at a lower frequency than the scene says it changes.
///
///   - splits per-object arrays and arenas into binding windows exactly as the renderer's
///     BufferArena does (arena_slot_layout(), buffer_arena.hpp: maxStorageBufferBindingSize /
///     maxUniformBufferBindingSize windows, maxBufferSize chunks, the uint32 dynamic-offset reach)
///     and counts one bind group (and, where the group is not re-bound per object anyway, one
///     setBindGroup per pass) per window.
///
/// Limits read: maxBindGroups, maxBindingsPerBindGroup, maxDynamicUniformBuffersPerPipelineLayout,
/// maxDynamicStorageBuffersPerPipelineLayout, maxUniformBuffersPerShaderStage,
/// maxStorageBuffersPerShaderStage, maxSampledTexturesPerShaderStage, maxSamplersPerShaderStage,
/// maxUniformBufferBindingSize, maxStorageBufferBindingSize, maxBufferSize,
/// minUniformBufferOffsetAlignment, minStorageBufferOffsetAlignment.
/// Errors: PlanInput (malformed scene), Intruder (strict mode), TooMany* (a budget is exceeded),
/// UniformBindingTooLarge / StorageBindingTooLarge / BufferTooLarge (one element or buffer
/// exceeds a size limit).
#pragma once

#include "bindery/core/binding.hpp"
#include "bindery/core/limits.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// How often a binding's value changes while a frame is drawn, lowest first (the by-frequency note's four
/// buckets, with "frame" and "pass" kept apart). The numeric order is the planner's group order.
enum class Frequency : uint8_t {
  constant = 0,  ///< whole application: LUTs, noise tables, a standard sampler
  frame = 1,     ///< once per frame: camera, time, global lighting
  pass = 2,      ///< once per render pass: a pass's camera, the shadow map it reads
  material = 3,  ///< when the material changes: textures, colour factors, roughness
  object = 4,    ///< every draw: model matrix, per-instance tint, object id
};

/// "constant", "frame", "pass", "material", "object".
std::string_view to_string(Frequency f) noexcept;
/// Parses the names above; throws PlanInput naming `field` for anything else.
Frequency parse_frequency(std::string_view text, std::string_view field);

/// How the planner builds groups. `frequency` is the by-frequency note's recommendation; `resource_type`
/// (all buffers / all textures / all samplers) is the arrangement the seed shows to be the worst.
enum class Grouping { frequency, resource_type };

/// What happens to per-object (Frequency::object) buffer bindings.
enum class ObjectData {
  dynamic_offset,  ///< one bind group, a dynamic offset per draw (hasDynamicOffset; the dynamic-offsets note)
  bind_group,      ///< plain bindings, one bind group per object (the by-frequency note's arithmetic)
  storage_buffer,  ///< one read-only storage array, bound once, indexed by instance_index
};

/// The order of the draw loop inside a pass.
enum class DrawOrderKind {
  material,  ///< sorted by material: each material's objects are consecutive
  depth,     ///< sorted by depth: materials interleave (modelled as a change on every draw)
};

/// One binding as the user declares it.
struct BindingSpec {
  std::string name;                                ///< WGSL variable name, unique in the scene
  BindingKind kind = BindingKind::uniform_buffer;  ///< buffer, texture or sampler
  uint64_t size_bytes = 0;  ///< buffers: SizeOf(store type) (one element for arrays); else 0
  Frequency frequency = Frequency::frame;  ///< DECLARED frequency: decides the group
  /// How often the scene says it really changes; unset = as declared. Higher than `frequency`
  /// makes the binding an intruder (the by-frequency note, "El error que arruina el reparto").
  std::optional<Frequency> changes;
  uint32_t visibility = kStageVertex | kStageFragment;  ///< ShaderStage bits
  /// WGSL store type for the declaration text; empty = derived from the name (PascalCase for
  /// buffers, texture_2d<f32>, sampler).
  std::string wgsl_type;

  /// The frequency the counting uses: `changes` when set, else `frequency`.
  Frequency observed() const { return changes.value_or(frequency); }
};

/// Scene statistics the counts are computed for (the by-frequency note: 2000 / 50 / 3, order material).
struct SceneStats {
  uint64_t objects = 1;    ///< draws per pass (>= 1)
  uint64_t materials = 1;  ///< distinct materials (1 <= materials <= objects)
  uint64_t passes = 1;     ///< render passes per frame (>= 1); every pass draws every object
  DrawOrderKind order = DrawOrderKind::material;  ///< the draw loop's order inside a pass
};

/// Planner options.
struct PlanOptions {
  Grouping grouping = Grouping::frequency;  ///< how bindings are grouped (by frequency: the by-frequency note)
  ObjectData object_data = ObjectData::dynamic_offset;  ///< what per-object buffers become
  /// Intruders become an Intruder error instead of a warning (debug builds).
  bool strict_intruders = false;
};

/// Everything the planner reads: the scene description of `bindery plan` (docs/PLAN_FORMAT.md).
struct PlanInput {
  std::vector<BindingSpec> bindings;  ///< every binding of the pipeline, names unique
  SceneStats stats;                   ///< the scene statistics the counts are computed for
  PlanOptions options;                ///< how to plan
  Limits limits;  ///< the DEVICE's limits (spec defaults unless overridden)
};

/// Where one binding ended up.
struct PlannedBinding {
  BindingSpec spec;                 ///< as declared
  uint32_t group = 0;               ///< `@group` index
  uint32_t binding = 0;             ///< `@binding` index inside the group
  BindingKind kind = BindingKind::uniform_buffer;  ///< after moves (storage for instance_index)
  bool has_dynamic_offset = false;  ///< per-object uniform addressed by a dynamic offset
  bool instance_indexed = false;    ///< moved to a storage array indexed by instance_index
  /// Per-object arenas (dynamic offset or instance_index array) only, else 0: how the renderer's
  /// BufferArena lays out stats.objects elements, from arena_slot_layout() (buffer_arena.hpp).
  uint64_t stride_bytes = 0;        ///< bytes between consecutive objects' elements
  uint32_t objects_per_window = 0;  ///< most objects one buffer (one binding window) holds
  /// Buffers, each with its own bind group: ceil(objects / objects_per_window). Above 1 when
  /// the array exceeds max{Storage,Uniform}BufferBindingSize (instance_index) or maxBufferSize
  /// or the uint32 dynamic-offset reach (dynamic offsets).
  uint32_t windows = 0;
};

/// One planned group with its counts for the scene statistics.
struct PlannedGroup {
  uint32_t index = 0;  ///< the `@group` index (0 = lowest frequency)
  std::string label;  ///< e.g. "frame", "material", "buffers"
  /// Highest DECLARED placement frequency of the members (after merges).
  Frequency declared = Frequency::frame;
  /// Highest OBSERVED member frequency: what forces a setBindGroup (offsets included).
  Frequency rebind = Frequency::frame;
  /// Highest observed frequency among members that are not dynamic-offset buffers: what forces
  /// a distinct bind group. Frequency::constant when the group has only dynamic members.
  Frequency distinct = Frequency::constant;
  bool has_pass_data = false;  ///< a non-dynamic member changes per pass: one bind group per pass
  /// Stretches of consecutive objects that share every member's binding window (1 without
  /// per-object arenas): each boundary of a member's windows needs another bind group and,
  /// unless the group is re-bound per object anyway, another setBindGroup per pass.
  uint64_t windows = 1;
  std::vector<uint32_t> members;         ///< indices into BindGroupPlan::bindings
  uint64_t set_bind_group_per_pass = 0;  ///< calls with a state cache, one pass
  uint64_t bind_groups_created = 0;      ///< distinct bind groups for the whole frame
};

/// A finding: an intruder, or a warning about the draw order or a move.
struct PlanWarning {
  std::string binding;  ///< binding name, empty for group-level warnings
  Frequency declared = Frequency::frame;  ///< the frequency the binding was declared with
  Frequency observed = Frequency::frame;  ///< the frequency the scene says it changes at
  bool intruder = false;  ///< an intruder (observed > declared, the by-frequency note), not a warning
  std::string message;    ///< one sentence for reports
};

/// The planner's result.
struct BindGroupPlan {
  std::vector<PlannedBinding> bindings;  ///< input order
  std::vector<PlannedGroup> groups;      ///< group index order
  /// The explicit pipeline layout: one BindGroupLayoutDesc per group, in group order.
  std::vector<BindGroupLayoutDesc> pipeline_layout;
  std::vector<std::string> reasons;       ///< one sentence per merge or move
  std::vector<PlanWarning> warnings;      ///< intruders first, then others
  SceneStats stats;     ///< the statistics the counts were computed for (copied from the input)
  PlanOptions options;  ///< the options used (copied from the input)

  uint64_t set_bind_group_per_pass = 0;           ///< sum over groups, with a state cache
  uint64_t set_bind_group_per_frame = 0;          ///< per pass x passes
  uint64_t set_bind_group_per_pass_uncached = 0;  ///< groups x objects: every group every draw
  uint64_t bind_groups_created = 0;            ///< sum over groups
  uint32_t dynamic_uniform_buffers = 0;        ///< in the pipeline layout
  uint32_t dynamic_storage_buffers = 0;        ///< in the pipeline layout

  /// WGSL declarations to prepend to a shader: one `// @group(g) frequency: ...` comment per group
  /// and one `@group(g) @binding(b) var...;` line per binding.
  std::string wgsl_declarations() const;
  /// A human-readable report (groups, reasons, counts, warnings), as `bindery plan` prints it.
  std::string to_text() const;
  /// The same as one JSON object (`bindery plan --json`).
  std::string to_json() const;
};

/// Plans the groups for `input`. Throws PlanInput for bad statistics or binding declarations
/// (empty or duplicate names, zero-size buffers), Intruder when options.strict_intruders and a
/// binding is an intruder, the TooMany* / BindingNumberTooLarge kinds when a budget of
/// `input.limits` is exceeded (the message names the limit, the count and the bindings), and
/// UniformBindingTooLarge / StorageBindingTooLarge / BufferTooLarge when one element (or one
/// whole non-arena buffer) exceeds a size limit. Arrays larger than one binding are not errors:
/// they are split into windows (PlannedBinding::windows).
BindGroupPlan plan_bind_groups(const PlanInput& input);

/// Parses the JSON scene description of `bindery plan` (format: docs/PLAN_FORMAT.md). Throws
/// PlanInput naming the field for malformed input.
PlanInput parse_plan_input(std::string_view json_text);

/// The pipeline-layout budgets the planner checks (per-group binding numbers; per-pipeline-layout
/// dynamic uniform / storage counts; per-stage uniform, storage, sampled-texture and sampler
/// counts; maxBindGroups). Throws the matching TooMany* kind naming the limit, the count and the
/// bindings. Kept here until validation.hpp's validate_pipeline_layout is available.
void check_plan_budgets(std::span<const BindGroupLayoutDesc> layout, const Limits& limits);

}  // namespace bindery
