// SPDX-License-Identifier: MIT
// The bind group planner: groups by frequency of change (seed 001), per-object data as dynamic
// offsets or an instance_index-indexed storage buffer, the call / bind-group arithmetic and
// static intruder detection. See bindery/bind_group_plan.hpp.
#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/data/buffer_arena.hpp"
#include "bindery/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace bindery {

std::string_view to_string(Frequency f) noexcept {
  switch (f) {
    case Frequency::constant:
      return "constant";
    case Frequency::frame:
      return "frame";
    case Frequency::pass:
      return "pass";
    case Frequency::material:
      return "material";
    case Frequency::object:
      return "object";
  }
  return "?";
}

Frequency parse_frequency(std::string_view text, std::string_view field) {
  for (Frequency f : {Frequency::constant, Frequency::frame, Frequency::pass, Frequency::material,
                      Frequency::object}) {
    if (text == to_string(f)) return f;
  }
  throw Error(ErrorKind::PlanInput,
              fmt::format("{}: '{}' is not a frequency (constant, frame, pass, material, object)",
                          field, text));
}

namespace {

bool is_wgsl_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || digit(c); });
}

void validate_input(const PlanInput& in) {
  const SceneStats& s = in.stats;
  // Caps keep every product of the counting model (passes x objects) far from overflow.
  constexpr uint64_t kMaxObjects = UINT32_MAX, kMaxPasses = 65535;
  if (s.objects < 1 || s.objects > kMaxObjects)
    throw Error(ErrorKind::PlanInput,
                fmt::format("stats.objects: {} must be in [1, {}]", s.objects, kMaxObjects));
  if (s.materials < 1 || s.materials > s.objects)
    throw Error(
        ErrorKind::PlanInput,
        fmt::format("stats.materials: {} must be in [1, objects = {}]", s.materials, s.objects));
  if (s.passes < 1 || s.passes > kMaxPasses)
    throw Error(ErrorKind::PlanInput,
                fmt::format("stats.passes: {} must be in [1, {}]", s.passes, kMaxPasses));
  if (in.limits.maxBindGroups < 1)
    throw Error(ErrorKind::PlanInput, "limits.maxBindGroups: 0 leaves no group to plan into");
  if (in.bindings.empty()) throw Error(ErrorKind::PlanInput, "bindings: the list is empty");
  std::set<std::string> names;
  for (size_t i = 0; i < in.bindings.size(); ++i) {
    const BindingSpec& b = in.bindings[i];
    const std::string field = fmt::format("bindings[{}]", i);
    if (!is_wgsl_identifier(b.name))
      throw Error(ErrorKind::PlanInput,
                  fmt::format("{}.name: '{}' is not a WGSL identifier", field, b.name));
    if (!names.insert(b.name).second)
      throw Error(ErrorKind::PlanInput,
                  fmt::format("{}.name: '{}' is declared twice", field, b.name));
    if (is_buffer(b.kind) && b.size_bytes == 0)
      throw Error(ErrorKind::PlanInput,
                  fmt::format("{}.size: buffer '{}' needs a size in bytes > 0", field, b.name));
    if (b.visibility == 0 ||
        (b.visibility & ~uint32_t{kStageVertex | kStageFragment | kStageCompute}))
      throw Error(ErrorKind::PlanInput,
                  fmt::format("{}.visibility: {:#x} is not a non-empty set of VERTEX, FRAGMENT, "
                              "COMPUTE",
                              field, b.visibility));
  }
}

/// Distinct values of a key of frequency `f` across the frame's draws (bind groups needed).
uint64_t distinct_values(Frequency f, const SceneStats& s) {
  switch (f) {
    case Frequency::object:
      return s.objects;
    case Frequency::material:
      return s.materials;
    case Frequency::pass:
      return s.passes;
    default:
      return 1;
  }
}

/// Times a key of frequency `f` takes a new value inside one pass, draws in `s.order`.
/// Per pass: constant/frame/pass data is set once (a new pass starts with nothing bound);
/// material data once per run of equal materials: M runs when sorted by material, and, sorted by
/// depth, modelled as a change on every draw (materials interleave); object data on every draw.
uint64_t changes_per_pass(Frequency f, const SceneStats& s) {
  switch (f) {
    case Frequency::object:
      return s.objects;
    case Frequency::material:
      return s.order == DrawOrderKind::material ? s.materials : s.objects;
    default:
      return 1;
  }
}

/// A bucket of bindings that will become one group.
struct Bucket {
  Frequency freq;  // highest declared placement frequency (the group's label)
  std::string label;
  std::vector<uint32_t> members;
};

struct GroupCounts {
  Frequency rebind = Frequency::constant;
  Frequency distinct = Frequency::constant;
  bool pass_data = false;
  uint64_t windows = 1;
  uint64_t calls = 0;
  uint64_t bind_groups = 0;
};

/// Number of integers in [1, n - 1] that are a multiple of at least one of `periods` (each >= 1):
/// the object slots where some member's window starts anew. Inclusion-exclusion over subsets,
/// pruning every subset whose lcm is >= n (it has no multiple below n, nor have its supersets).
uint64_t boundaries_below(std::vector<uint64_t> periods, uint64_t n) {
  if (n <= 1) return 0;
  std::sort(periods.begin(), periods.end());
  // A multiple of a multiple of p is a multiple of p: keep only periods no other one divides.
  std::vector<uint64_t> base;
  for (uint64_t p : periods)
    if (std::none_of(base.begin(), base.end(), [&](uint64_t q) { return p % q == 0; }))
      base.push_back(p);
  int64_t count = 0;
  std::function<void(size_t, uint64_t, bool)> visit = [&](size_t from, uint64_t lcm, bool odd) {
    for (size_t i = from; i < base.size(); ++i) {
      const uint64_t q = lcm / std::gcd(lcm, base[i]);
      if (q > (n - 1) / base[i]) continue;  // lcm(...) > n - 1
      const uint64_t next = q * base[i];
      const int64_t multiples = static_cast<int64_t>((n - 1) / next);
      count += odd ? multiples : -multiples;
      visit(i + 1, next, !odd);
    }
  };
  visit(0, 1, true);
  return static_cast<uint64_t>(count);
}

/// Stretches of consecutive object slots (slots follow the draw order, as the renderer lays its
/// arenas out) in which no member's window changes: 1 + the union of the window boundaries.
uint64_t window_stretches(const std::vector<PlannedBinding>& bindings,
                          const std::vector<uint32_t>& members, const SceneStats& s) {
  std::vector<uint64_t> periods;
  for (uint32_t m : members)
    if (bindings[m].windows > 1) periods.push_back(bindings[m].objects_per_window);
  return 1 + boundaries_below(std::move(periods), s.objects);
}

/// Counts for one group. With `as_declared`, intruders count at their declared frequency (what
/// the group would cost without them).
GroupCounts count_group(const std::vector<PlannedBinding>& bindings,
                        const std::vector<uint32_t>& members, const SceneStats& s,
                        bool as_declared) {
  GroupCounts c;
  for (uint32_t m : members) {
    const PlannedBinding& b = bindings[m];
    // An instance-indexed storage array is bound once; only its contents change per frame.
    Frequency f = b.instance_indexed ? Frequency::frame
                                     : (as_declared ? b.spec.frequency : b.spec.observed());
    c.rebind = std::max(c.rebind, f);
    if (!b.has_dynamic_offset) {
      c.distinct = std::max(c.distinct, f);
      if (f == Frequency::pass) c.pass_data = true;
    }
  }
  c.windows = window_stretches(bindings, members, s);
  // Every window boundary is one more setBindGroup per pass, unless the group is re-bound on every
  // draw anyway. With material data in the group, a boundary inside a run of one material splits
  // it (counted so: at most materials + windows - 1 stretches; exact when boundaries fall inside
  // runs, one fewer for each that falls on a material change).
  c.calls = changes_per_pass(c.rebind, s);
  if (c.rebind != Frequency::object) c.calls += c.windows - 1;
  // One bind group per distinct combination of the non-dynamic members' keys and the windows:
  // per-pass data multiplies by the pass count; an object determines its material and its
  // windows, so object absorbs both.
  uint64_t keys = 1;
  if (c.distinct == Frequency::object)
    keys = s.objects;
  else if (c.distinct == Frequency::material)
    keys = distinct_values(c.distinct, s) + c.windows - 1;
  else
    keys = c.windows;
  c.bind_groups = (c.pass_data ? s.passes : 1) * keys;
  return c;
}

std::string names_of(const std::vector<PlannedBinding>& bindings,
                     const std::vector<uint32_t>& members) {
  std::vector<std::string> n;
  for (uint32_t m : members) n.push_back("'" + bindings[m].spec.name + "'");
  return fmt::format("{}", fmt::join(n, ", "));
}

// --- plan_bind_groups' stages, in the order it runs them ---

// Where a binding is placed: an instance-indexed storage array is bound once per frame.
Frequency placement(const PlannedBinding& b) {
  return b.instance_indexed ? Frequency::frame : b.spec.frequency;
}

// Moves a per-object buffer out of the bind group system into an instance-indexed storage array.
void move_to_storage(BindGroupPlan& plan, PlannedBinding& b, std::string_view why) {
  b.instance_indexed = true;
  b.has_dynamic_offset = false;
  if (b.kind == BindingKind::uniform_buffer) b.kind = BindingKind::read_only_storage_buffer;
  plan.reasons.push_back(fmt::format(
      "'{}' (per-object, {} bytes) moved out of the bind group system{}: a read-only storage "
      "array of {} elements bound once in the lowest group and indexed by "
      "@builtin(instance_index) (draw with firstInstance = object slot)",
      b.spec.name, b.spec.size_bytes, why, plan.stats.objects));
}

// Per-object buffers: dynamic offsets while the pipeline layout has dynamic slots left,
// otherwise (or on request) a read-only storage array indexed by instance_index.
void place_object_data(const PlanInput& in, BindGroupPlan& plan) {
  const SceneStats& s = in.stats;
  const Limits& limits = in.limits;
  auto move_to_storage = [&](PlannedBinding& b, std::string_view why) {
    bindery::move_to_storage(plan, b, why);
  };
  uint32_t dyn_uniform = 0, dyn_storage = 0;
  for (PlannedBinding& b : plan.bindings) {
    if (b.spec.frequency != Frequency::object) continue;
    if (!is_buffer(b.kind)) {
      plan.warnings.push_back(PlanWarning{
          b.spec.name, b.spec.frequency, b.spec.observed(), false,
          fmt::format("per-object {} '{}' cannot use a dynamic offset: its group needs one bind "
                      "group per object ({})",
                      b.kind == BindingKind::sampler ? "sampler" : "texture", b.spec.name,
                      s.objects)});
      continue;
    }
    switch (in.options.object_data) {
      case ObjectData::bind_group:
        break;
      case ObjectData::storage_buffer:
        move_to_storage(b, " (object_data: storage-buffer)");
        break;
      case ObjectData::dynamic_offset:
        if (b.kind == BindingKind::uniform_buffer) {
          if (dyn_uniform < limits.maxDynamicUniformBuffersPerPipelineLayout) {
            b.has_dynamic_offset = true;
            ++dyn_uniform;
          } else {
            move_to_storage(b, fmt::format(" because maxDynamicUniformBuffersPerPipelineLayout "
                                           "({}) is exhausted",
                                           limits.maxDynamicUniformBuffersPerPipelineLayout));
          }
        } else {
          if (dyn_storage < limits.maxDynamicStorageBuffersPerPipelineLayout) {
            b.has_dynamic_offset = true;
            ++dyn_storage;
          } else {
            move_to_storage(b, fmt::format(" because maxDynamicStorageBuffersPerPipelineLayout "
                                           "({}) is exhausted",
                                           limits.maxDynamicStorageBuffersPerPipelineLayout));
          }
        }
        break;
    }
  }
}

// Buckets by frequency, merged upward until they fit maxBindGroups.
std::vector<Bucket> bucket_by_frequency(const PlanInput& in, BindGroupPlan& plan) {
  const SceneStats& s = in.stats;
  const Limits& limits = in.limits;
  auto move_to_storage = [&](PlannedBinding& b, std::string_view why) {
    bindery::move_to_storage(plan, b, why);
  };
  std::vector<Bucket> buckets;
  std::map<Frequency, std::vector<uint32_t>> by_freq;
  for (uint32_t i = 0; i < plan.bindings.size(); ++i)
    by_freq[placement(plan.bindings[i])].push_back(i);
  for (auto& [f, members] : by_freq) buckets.push_back({f, std::string(to_string(f)), members});

  // Merge upward until the groups fit maxBindGroups (seed 001, "Cuando cuatro grupos no bastan").
  while (buckets.size() > limits.maxBindGroups) {
    if (buckets[0].freq == Frequency::constant) {
      plan.reasons.push_back(fmt::format(
          "constant data ({}) merged into the {} group: {} groups exceed maxBindGroups ({}) and "
          "that group is bound once per pass anyway",
          names_of(plan.bindings, buckets[0].members), buckets[1].label, buckets.size(),
          limits.maxBindGroups));
      buckets[1].members.insert(buckets[1].members.begin(), buckets[0].members.begin(),
                                buckets[0].members.end());
      buckets.erase(buckets.begin());
      continue;
    }
    auto frame = std::find_if(buckets.begin(), buckets.end(),
                              [](const Bucket& b) { return b.freq == Frequency::frame; });
    auto pass = std::find_if(buckets.begin(), buckets.end(),
                             [](const Bucket& b) { return b.freq == Frequency::pass; });
    if (s.passes == 1 && frame != buckets.end() && pass != buckets.end()) {
      plan.reasons.push_back(fmt::format(
          "pass data ({}) merged into the frame group: {} groups exceed maxBindGroups ({}) and "
          "a single pass per frame uses it, so it changes once per frame",
          names_of(plan.bindings, pass->members), buckets.size(), limits.maxBindGroups));
      frame->members.insert(frame->members.end(), pass->members.begin(), pass->members.end());
      buckets.erase(pass);
      continue;
    }
    Bucket& top = buckets.back();
    const bool all_buffers = std::all_of(top.members.begin(), top.members.end(), [&](uint32_t m) {
      return is_buffer(plan.bindings[m].kind);
    });
    if (top.freq == Frequency::object && all_buffers) {
      const std::string why = fmt::format(" because {} groups exceed maxBindGroups ({})",
                                          buckets.size(), limits.maxBindGroups);
      for (uint32_t m : top.members) move_to_storage(plan.bindings[m], why);
      buckets[0].members.insert(buckets[0].members.end(), top.members.begin(), top.members.end());
      buckets.pop_back();
      continue;
    }
    plan.reasons.push_back(fmt::format(
        "the {} group ({}) merged upward into the {} group: {} groups exceed maxBindGroups ({}); "
        "its data is now re-bound at {} frequency, a bounded cost",
        buckets[0].label, names_of(plan.bindings, buckets[0].members), buckets[1].label,
        buckets.size(), limits.maxBindGroups, buckets[1].label));
    buckets[1].members.insert(buckets[1].members.begin(), buckets[0].members.begin(),
                              buckets[0].members.end());
    buckets[1].label = buckets[0].label + "+" + buckets[1].label;
    buckets.erase(buckets.begin());
  }
  return buckets;
}

// Buckets by binding kind (buffers, textures, samplers), merged until they fit maxBindGroups.
std::vector<Bucket> bucket_by_kind(const PlanInput& in, BindGroupPlan& plan) {
  const Limits& limits = in.limits;
  std::vector<Bucket> buckets;
  Bucket buffers{Frequency::constant, "buffers", {}},
      textures{Frequency::constant, "textures", {}},
      samplers{Frequency::constant, "samplers", {}};
  for (uint32_t i = 0; i < plan.bindings.size(); ++i) {
    const BindingKind k = plan.bindings[i].kind;
    (is_buffer(k)                ? buffers
     : k == BindingKind::sampler ? samplers
                                 : textures)
        .members.push_back(i);
  }
  for (Bucket* b : {&buffers, &textures, &samplers})
    if (!b->members.empty()) buckets.push_back(std::move(*b));
  while (buckets.size() > limits.maxBindGroups) {
    Bucket last = std::move(buckets.back());
    buckets.pop_back();
    plan.reasons.push_back(
        fmt::format("the {} group merged into the {} group: maxBindGroups ({})", last.label,
                    buckets.back().label, limits.maxBindGroups));
    buckets.back().members.insert(buckets.back().members.end(), last.members.begin(),
                                  last.members.end());
    buckets.back().label += "+" + last.label;
  }
  return buckets;
}

// Sizes, after every move to storage: per-object arenas are laid out as the renderer's
// BufferArena lays them out (the same arena_slot_layout()), split into windows; any other
// buffer is one buffer of its size.
void size_buffers(const PlanInput& in, BindGroupPlan& plan) {
  const SceneStats& s = in.stats;
  const Limits& limits = in.limits;
  for (PlannedBinding& b : plan.bindings) {
    if (!is_buffer(b.kind)) continue;
    if (!b.has_dynamic_offset && !b.instance_indexed) {
      if (b.spec.size_bytes > limits.maxBufferSize)
        throw Error(ErrorKind::BufferTooLarge,
                    fmt::format("binding '{}': {} bytes exceed maxBufferSize ({})", b.spec.name,
                                b.spec.size_bytes, limits.maxBufferSize));
      continue;
    }
    const SlotLayout layout = with_context(
        fmt::format("laying out the per-object {} '{}' ({} objects)",
                    b.instance_indexed ? "array" : "dynamic-offset arena", b.spec.name, s.objects),
        [&] {
          return arena_slot_layout(
              {.kind = b.kind,
               .addressing = b.instance_indexed ? SlotAddressing::array_index
                                                : SlotAddressing::dynamic_offset,
               .element_size_bytes = b.spec.size_bytes},
              limits);
        });
    b.stride_bytes = layout.stride;
    b.objects_per_window = layout.slots_per_chunk;
    b.windows = layout.chunk_count(static_cast<uint32_t>(s.objects));
    if (b.windows > 1) {
      const uint64_t total = s.objects * layout.stride;
      plan.reasons.push_back(
          b.instance_indexed
              ? fmt::format("'{}' ({} objects x {} bytes = {} bytes) exceeds one binding of at "
                            "most {} bytes (min({} {}, maxBufferSize {})): split into {} binding "
                            "windows of at most {} objects, one buffer and bind group each",
                            b.spec.name, s.objects, layout.stride, total,
                            uint64_t(layout.slots_per_chunk) * layout.stride,
                            b.kind == BindingKind::uniform_buffer ? "maxUniformBufferBindingSize"
                                                                  : "maxStorageBufferBindingSize",
                            b.kind == BindingKind::uniform_buffer
                                ? limits.maxUniformBufferBindingSize
                                : limits.maxStorageBufferBindingSize,
                            limits.maxBufferSize, b.windows, layout.slots_per_chunk)
              : fmt::format("'{}' ({} objects in dynamic-offset slots of {} bytes = {} bytes) "
                            "exceeds one buffer: maxBufferSize ({}) and the uint32 dynamic offset "
                            "hold at most {} slots, so {} buffers, one bind group each",
                            b.spec.name, s.objects, layout.stride, total, limits.maxBufferSize,
                            layout.slots_per_chunk, b.windows));
    }
  }

}

// Groups, binding numbers (placement frequency, then declaration order) and layouts.
void build_groups(const PlanInput& in, BindGroupPlan& plan, std::vector<Bucket>& buckets) {
  const SceneStats& s = in.stats;
  for (uint32_t g = 0; g < buckets.size(); ++g) {
    Bucket& bucket = buckets[g];
    std::stable_sort(bucket.members.begin(), bucket.members.end(), [&](uint32_t a, uint32_t b) {
      const Frequency fa = placement(plan.bindings[a]), fb = placement(plan.bindings[b]);
      return fa != fb ? fa < fb : a < b;
    });
    PlannedGroup group;
    group.index = g;
    group.label = bucket.label;
    group.members = bucket.members;
    group.declared = Frequency::constant;
    BindGroupLayoutDesc desc;
    desc.label = fmt::format("group {} ({})", g, bucket.label);
    for (uint32_t n = 0; n < bucket.members.size(); ++n) {
      PlannedBinding& b = plan.bindings[bucket.members[n]];
      b.group = g;
      b.binding = n;
      group.declared = std::max(group.declared, placement(b));
      BindingLayoutEntry e;
      e.binding = n;
      e.kind = b.kind;
      e.visibility = b.spec.visibility;
      e.has_dynamic_offset = b.has_dynamic_offset;
      e.min_binding_size = is_buffer(b.kind) ? b.spec.size_bytes : 0;
      e.name = b.spec.name;
      desc.entries.push_back(std::move(e));
      if (b.has_dynamic_offset)
        ++(b.kind == BindingKind::uniform_buffer ? plan.dynamic_uniform_buffers
                                                 : plan.dynamic_storage_buffers);
    }
    const GroupCounts c = count_group(plan.bindings, group.members, s, false);
    group.rebind = c.rebind;
    group.distinct = c.distinct;
    group.has_pass_data = c.pass_data;
    group.windows = c.windows;
    group.set_bind_group_per_pass = c.calls;
    group.bind_groups_created = c.bind_groups;
    plan.set_bind_group_per_pass += c.calls;
    plan.bind_groups_created += c.bind_groups;
    plan.groups.push_back(std::move(group));
    plan.pipeline_layout.push_back(std::move(desc));
  }
}

// Static intruder detection: declared lower than the scene says it changes. Returns the
// intruders (also put first among plan.warnings); adds the depth-order warnings.
std::vector<PlanWarning> find_intruders(const PlanInput& in, BindGroupPlan& plan) {
  const SceneStats& s = in.stats;
  std::vector<PlanWarning> intruders;
  for (const PlannedBinding& b : plan.bindings) {
    if (b.spec.observed() <= b.spec.frequency) continue;
    const PlannedGroup& group = plan.groups[b.group];
    const GroupCounts clean = count_group(plan.bindings, group.members, s, true);
    intruders.push_back(PlanWarning{
        b.spec.name, b.spec.frequency, b.spec.observed(), true,
        fmt::format("intruder: '{}' is declared {} (group {}, {}) but changes per {}: the group "
                    "needs {} bind groups instead of {} and {} setBindGroup calls per pass instead "
                    "of {}; move it to a group of its frequency, or out of the group system (a "
                    "storage buffer indexed by @builtin(instance_index), or an instance-step "
                    "vertex buffer)",
                    b.spec.name, to_string(b.spec.frequency), b.group, group.label,
                    to_string(b.spec.observed()), group.bind_groups_created, clean.bind_groups,
                    group.set_bind_group_per_pass, clean.calls)});
  }
  plan.warnings.insert(plan.warnings.begin(), intruders.begin(), intruders.end());
  if (s.order == DrawOrderKind::depth) {
    for (const PlannedGroup& g : plan.groups) {
      if (g.rebind != Frequency::material) continue;
      plan.warnings.push_back(PlanWarning{
          "", Frequency::material, Frequency::object, false,
          fmt::format("draw order 'depth': group {} ({}) is re-bound on every draw: {} "
                      "setBindGroup calls per pass instead of {} when sorted by material (seed "
                      "001: sorting and grouping are one decision)",
                      g.index, g.label, g.set_bind_group_per_pass, s.materials)});
    }
  }

  return intruders;
}

}  // namespace

BindGroupPlan plan_bind_groups(const PlanInput& in) {
  validate_input(in);
  BindGroupPlan plan;
  plan.stats = in.stats;
  plan.options = in.options;
  for (const BindingSpec& spec : in.bindings) {
    PlannedBinding b;
    b.spec = spec;
    b.kind = spec.kind;
    plan.bindings.push_back(std::move(b));
  }
  place_object_data(in, plan);
  std::vector<Bucket> buckets = in.options.grouping == Grouping::frequency
                                    ? bucket_by_frequency(in, plan)
                                    : bucket_by_kind(in, plan);
  size_buffers(in, plan);
  build_groups(in, plan, buckets);
  plan.set_bind_group_per_frame = plan.set_bind_group_per_pass * in.stats.passes;
  plan.set_bind_group_per_pass_uncached = plan.groups.size() * in.stats.objects;
  const std::vector<PlanWarning> intruders = find_intruders(in, plan);
  with_context("checking the planned pipeline layout against the device limits",
               [&] { check_plan_budgets(plan.pipeline_layout, in.limits); });
  if (in.options.strict_intruders && !intruders.empty())
    throw Error(ErrorKind::Intruder, intruders.front().message);
  return plan;
}

}  // namespace bindery
