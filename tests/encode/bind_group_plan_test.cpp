// SPDX-License-Identifier: MIT
// Tests for the bind group planner (bindery/bind_group_plan.hpp): grouping by frequency,
// merging upward, per-object data, the call / bind-group arithmetic of seed 001 and case C01,
// budgets (cases M01, M03), static intruder detection and malformed input.
//
// THE COUNTING MODEL, derived from seed 001 (independently of the implementation):
//   Every pass draws every object once; a new pass starts with nothing bound (WebGPU state does
//   not carry across passes), and a state cache skips a setBindGroup whose bind group and dynamic
//   offsets are unchanged. So per pass a group is set once per change of its key:
//     constant / frame / pass data: 1 (bound at the start of the pass)
//     material data, draws sorted by material: one run per material -> M
//     material data, draws sorted by depth: materials interleave -> assumed to change every draw: N
//     object data (also a dynamic offset that moves): every draw -> N
//   A group is set as often as its most frequently changing member.
//   Bind groups created = distinct contents of its NON-dynamic members: 1 for frame data, P per
//   pass, M per material, N per object (an object fixes its material); dynamic-offset members
//   live in one bind group whatever the offset.
//   Seed 001, 2000 objects, 50 materials, 3 passes, by frequency (one bind group per object):
//     per pass 1 + 50 + 2000 = 2051; bind groups 1 + 50 + 2000 = 2051.
//   Grouped by resource type, the seed's premise is that each of the three groups (buffers,
//   textures, samplers) holds at least one per-object binding, so each is set on every draw and
//   needs one bind group per object: 3 x 2000 = 6000 calls and 6000 bind groups.
#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/core/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace bindery {
namespace {

constexpr uint32_t kVF = kStageVertex | kStageFragment;

BindingSpec buf(std::string name, uint64_t size, Frequency f, uint32_t vis = kVF) {
  BindingSpec b;
  b.name = std::move(name);
  b.kind = BindingKind::uniform_buffer;
  b.size_bytes = size;
  b.frequency = f;
  b.visibility = vis;
  return b;
}
BindingSpec tex(std::string name, Frequency f) {
  BindingSpec b;
  b.name = std::move(name);
  b.kind = BindingKind::sampled_texture;
  b.frequency = f;
  b.visibility = kStageFragment;
  return b;
}
BindingSpec smp(std::string name, Frequency f) {
  BindingSpec b = tex(std::move(name), f);
  b.kind = BindingKind::sampler;
  return b;
}

/// The resources of seed 001's diagram: group 0 camera, lights, shadow map + sampler; group 1
/// material parameters, albedo / normal / roughness textures, material sampler; group 2 model
/// and normal matrices.
std::vector<BindingSpec> seed_diagram_bindings() {
  return {buf("camera", 128, Frequency::frame),
          buf("lights", 256, Frequency::frame, kStageFragment),
          tex("shadow_map", Frequency::frame),
          smp("shadow_sampler", Frequency::frame),
          buf("material_params", 32, Frequency::material, kStageFragment),
          tex("albedo", Frequency::material),
          tex("normal_map", Frequency::material),
          tex("roughness_map", Frequency::material),
          smp("material_sampler", Frequency::material),
          buf("model", 64, Frequency::object),
          buf("normal_matrix", 48, Frequency::object)};
}

/// The diagram plus a per-object lightmap and its sampler (per-object lodMinClamp), so that the
/// seed's premise for the resource-type arrangement holds: every type group has object data.
std::vector<BindingSpec> seed_bindings() {
  auto b = seed_diagram_bindings();
  b.push_back(tex("lightmap", Frequency::object));
  b.push_back(smp("lightmap_sampler", Frequency::object));
  return b;
}

PlanInput seed_input(Grouping grouping, ObjectData object_data,
                     DrawOrderKind order = DrawOrderKind::material) {
  PlanInput in;
  in.bindings = seed_bindings();
  in.stats = {2000, 50, 3, order};
  in.options.grouping = grouping;
  in.options.object_data = object_data;
  return in;
}

const PlannedBinding& find(const BindGroupPlan& plan, std::string_view name) {
  for (const PlannedBinding& b : plan.bindings)
    if (b.spec.name == name) return b;
  throw std::runtime_error("no binding " + std::string(name));
}

TEST(BindGroupPlan, SeedByFrequencyGives2051CallsAnd2051BindGroups) {
  const BindGroupPlan plan =
      plan_bind_groups(seed_input(Grouping::frequency, ObjectData::bind_group));
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_EQ(find(plan, "camera").group, 0u);
  EXPECT_EQ(find(plan, "shadow_sampler").group, 0u);
  EXPECT_EQ(find(plan, "albedo").group, 1u);
  EXPECT_EQ(find(plan, "model").group, 2u);
  EXPECT_EQ(find(plan, "lightmap").group, 2u);
  // 1 + 50 + 2000 per pass (seed 001).
  EXPECT_EQ(plan.groups[0].set_bind_group_per_pass, 1u);
  EXPECT_EQ(plan.groups[1].set_bind_group_per_pass, 50u);
  EXPECT_EQ(plan.groups[2].set_bind_group_per_pass, 2000u);
  EXPECT_EQ(plan.set_bind_group_per_pass, 2051u);
  EXPECT_EQ(plan.set_bind_group_per_frame, 3u * 2051u);
  // Frame group shared by the 3 passes: 1; materials 50; one per object 2000.
  EXPECT_EQ(plan.bind_groups_created, 2051u);
  // Without a cache, 3 groups on each of 2000 draws.
  EXPECT_EQ(plan.set_bind_group_per_pass_uncached, 6000u);
  EXPECT_TRUE(std::none_of(plan.warnings.begin(), plan.warnings.end(),
                           [](const PlanWarning& w) { return w.intruder; }));
}

TEST(BindGroupPlan, SeedByResourceTypeGives6000CallsAnd6000BindGroups) {
  const BindGroupPlan plan =
      plan_bind_groups(seed_input(Grouping::resource_type, ObjectData::bind_group));
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_EQ(plan.groups[0].label, "buffers");
  EXPECT_EQ(plan.groups[1].label, "textures");
  EXPECT_EQ(plan.groups[2].label, "samplers");
  EXPECT_EQ(find(plan, "camera").group, 0u);
  EXPECT_EQ(find(plan, "albedo").group, 1u);
  EXPECT_EQ(find(plan, "material_sampler").group, 2u);
  for (const PlannedGroup& g : plan.groups) {
    EXPECT_EQ(g.set_bind_group_per_pass, 2000u) << g.label;
    EXPECT_EQ(g.bind_groups_created, 2000u) << g.label;
  }
  EXPECT_EQ(plan.set_bind_group_per_pass, 6000u);
  EXPECT_EQ(plan.bind_groups_created, 6000u);
}

TEST(BindGroupPlan, DepthOrderRebindsTheMaterialGroupPerDraw) {
  const BindGroupPlan plan = plan_bind_groups(
      seed_input(Grouping::frequency, ObjectData::bind_group, DrawOrderKind::depth));
  // Materials interleave: group 1 changes on every draw. 1 + 2000 + 2000.
  EXPECT_EQ(plan.groups[1].set_bind_group_per_pass, 2000u);
  EXPECT_EQ(plan.set_bind_group_per_pass, 4001u);
  // The contents are the same: still 50 material bind groups.
  EXPECT_EQ(plan.bind_groups_created, 2051u);
  EXPECT_TRUE(std::any_of(plan.warnings.begin(), plan.warnings.end(), [](const PlanWarning& w) {
    return !w.intruder && w.message.find("depth") != std::string::npos;
  }));
}

TEST(BindGroupPlan, DiagramWithDynamicOffsetsNeedsOneObjectBindGroup) {
  PlanInput in;
  in.bindings = seed_diagram_bindings();
  in.stats = {2000, 50, 3, DrawOrderKind::material};
  const BindGroupPlan plan = plan_bind_groups(in);  // object data: dynamic-offset (default)
  EXPECT_TRUE(find(plan, "model").has_dynamic_offset);
  EXPECT_TRUE(find(plan, "normal_matrix").has_dynamic_offset);
  EXPECT_EQ(plan.dynamic_uniform_buffers, 2u);
  // Calls unchanged (the offsets move every draw): 1 + 50 + 2000.
  EXPECT_EQ(plan.set_bind_group_per_pass, 2051u);
  // One bind group for all objects: 1 + 50 + 1.
  EXPECT_EQ(plan.bind_groups_created, 52u);
  const auto& layout = plan.pipeline_layout[2];
  ASSERT_EQ(layout.entries.size(), 2u);
  EXPECT_TRUE(layout.entries[0].has_dynamic_offset);
  EXPECT_EQ(layout.entries[0].min_binding_size, 64u);
}

TEST(BindGroupPlan, DiagramGroupedByTypeWithoutObjectTextures) {
  // Only the buffer group holds object data: 2000 + 50 + 50 calls and bind groups; worse than
  // 2051 but not the seed's 6000, whose premise needs object data in every type group.
  PlanInput in;
  in.bindings = seed_diagram_bindings();
  in.stats = {2000, 50, 3, DrawOrderKind::material};
  in.options = {Grouping::resource_type, ObjectData::bind_group, false};
  const BindGroupPlan plan = plan_bind_groups(in);
  EXPECT_EQ(plan.set_bind_group_per_pass, 2100u);
  EXPECT_EQ(plan.bind_groups_created, 2100u);
}

TEST(BindGroupPlan, StorageBufferTakesObjectDataOutOfTheGroups) {
  PlanInput in;
  in.bindings = seed_diagram_bindings();
  in.stats = {2000, 50, 3, DrawOrderKind::material};
  in.options.object_data = ObjectData::storage_buffer;
  const BindGroupPlan plan = plan_bind_groups(in);
  ASSERT_EQ(plan.groups.size(), 2u);
  const PlannedBinding& model = find(plan, "model");
  EXPECT_TRUE(model.instance_indexed);
  EXPECT_EQ(model.kind, BindingKind::read_only_storage_buffer);
  EXPECT_EQ(model.group, 0u);
  // Frame group (with the arrays) once per pass, materials 50: 51 calls and 51 bind groups.
  EXPECT_EQ(plan.set_bind_group_per_pass, 51u);
  EXPECT_EQ(plan.bind_groups_created, 51u);
  EXPECT_EQ(plan.reasons.size(), 2u);  // one per moved binding
  EXPECT_NE(plan.wgsl_declarations().find("var<storage, read> model : array<Model>;"),
            std::string::npos);
}

// shared/cases/layout.md C01: group 0 frame, group 1 material, group 2 one dynamic uniform of
// 256 bytes; 12 draws = 3 materials x 4 objects sorted by material.
PlanInput c01_input(uint64_t passes) {
  PlanInput in;
  in.bindings = {buf("camera", 80, Frequency::frame), buf("material", 32, Frequency::material),
                 buf("object", 256, Frequency::object)};
  in.stats = {12, 3, passes, DrawOrderKind::material};
  return in;
}

TEST(BindGroupPlan, CaseC01SixteenCallsThirtySixWithoutCache) {
  const BindGroupPlan plan = plan_bind_groups(c01_input(1));
  ASSERT_EQ(plan.groups.size(), 3u);  // 3 of 4 groups
  EXPECT_EQ(plan.groups[0].set_bind_group_per_pass, 1u);
  EXPECT_EQ(plan.groups[1].set_bind_group_per_pass, 3u);
  EXPECT_EQ(plan.groups[2].set_bind_group_per_pass, 12u);
  EXPECT_EQ(plan.set_bind_group_per_pass, 16u);
  EXPECT_EQ(plan.set_bind_group_per_pass_uncached, 36u);
  EXPECT_EQ(plan.dynamic_uniform_buffers, 1u);  // <= 8
  EXPECT_EQ(plan.bind_groups_created, 1u + 3u + 1u);
  // A second pass sets group 0 again: 2 x 16.
  EXPECT_EQ(plan_bind_groups(c01_input(2)).set_bind_group_per_frame, 32u);
}

TEST(BindGroupPlan, WgslDeclarationsMatchTheLayout) {
  const std::string wgsl = plan_bind_groups(c01_input(1)).wgsl_declarations();
  EXPECT_NE(wgsl.find("// @group(0) frequency: frame"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("@group(0) @binding(0) var<uniform> camera : Camera;"), std::string::npos);
  EXPECT_NE(wgsl.find("@group(1) @binding(0) var<uniform> material : Material;"),
            std::string::npos);
  EXPECT_NE(wgsl.find("@group(2) @binding(0) var<uniform> object : Object;"), std::string::npos);
}

TEST(BindGroupPlan, StaticIntruderIsReportedOnce) {
  // Seed 001: an object id inside the material group turns 50 bind groups into 2000.
  PlanInput in;
  in.bindings = seed_diagram_bindings();
  BindingSpec id = buf("object_id", 4, Frequency::material, kStageFragment);
  id.changes = Frequency::object;
  id.wgsl_type = "u32";
  in.bindings.push_back(id);
  in.stats = {2000, 50, 3, DrawOrderKind::material};
  const BindGroupPlan plan = plan_bind_groups(in);
  EXPECT_EQ(find(plan, "object_id").group, 1u);
  const auto n = std::count_if(plan.warnings.begin(), plan.warnings.end(),
                               [](const PlanWarning& w) { return w.intruder; });
  ASSERT_EQ(n, 1);
  EXPECT_EQ(plan.warnings[0].binding, "object_id");
  EXPECT_EQ(plan.warnings[0].declared, Frequency::material);
  EXPECT_EQ(plan.warnings[0].observed, Frequency::object);
  EXPECT_EQ(plan.groups[1].bind_groups_created, 2000u);
  EXPECT_EQ(plan.groups[1].set_bind_group_per_pass, 2000u);
  // 1 + 2000 + 2000 calls, 1 + 2000 + 1 bind groups (object group uses dynamic offsets).
  EXPECT_EQ(plan.set_bind_group_per_pass, 4001u);
  EXPECT_EQ(plan.bind_groups_created, 2002u);

  in.options.strict_intruders = true;
  try {
    plan_bind_groups(in);
    FAIL() << "strict intruders must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Intruder);
  }
}

/// Checks "merge upward, never downward": a lower declared frequency never lands in a higher
/// group than a higher frequency (instance-indexed arrays are outside the group system).
void expect_monotone(const BindGroupPlan& plan) {
  for (const PlannedBinding& a : plan.bindings)
    for (const PlannedBinding& b : plan.bindings)
      if (!a.instance_indexed && !b.instance_indexed && a.spec.frequency < b.spec.frequency) {
        EXPECT_LE(a.group, b.group) << a.spec.name << " vs " << b.spec.name;
      }
}

PlanInput five_frequencies(uint32_t max_bind_groups, uint64_t passes) {
  PlanInput in;
  in.bindings = {smp("lut_sampler", Frequency::constant), buf("camera", 128, Frequency::frame),
                 tex("shadow_map", Frequency::pass), buf("material", 32, Frequency::material),
                 buf("model", 64, Frequency::object)};
  in.stats = {100, 10, passes, DrawOrderKind::material};
  in.limits.maxBindGroups = max_bind_groups;
  return in;
}

TEST(BindGroupPlan, MergesConstantsIntoTheFrameGroup) {
  const BindGroupPlan plan = plan_bind_groups(five_frequencies(4, 3));
  ASSERT_EQ(plan.groups.size(), 4u);
  EXPECT_EQ(find(plan, "lut_sampler").group, 0u);
  EXPECT_EQ(find(plan, "camera").group, 0u);
  EXPECT_EQ(find(plan, "shadow_map").group, 1u);
  EXPECT_EQ(plan.reasons.size(), 1u);
  expect_monotone(plan);
  // With 5 allowed groups nothing merges.
  EXPECT_EQ(plan_bind_groups(five_frequencies(5, 3)).groups.size(), 5u);
}

TEST(BindGroupPlan, MergesPassDataIntoFrameWithASinglePass) {
  const BindGroupPlan plan = plan_bind_groups(five_frequencies(3, 1));
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_EQ(find(plan, "shadow_map").group, 0u);
  EXPECT_EQ(find(plan, "material").group, 1u);
  EXPECT_TRUE(find(plan, "model").has_dynamic_offset);
  expect_monotone(plan);
}

TEST(BindGroupPlan, MovesObjectDataToStorageWhenASlotIsMissing) {
  // 3 passes: pass data cannot join the frame group, so the object group leaves.
  const BindGroupPlan plan = plan_bind_groups(five_frequencies(3, 3));
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_TRUE(find(plan, "model").instance_indexed);
  EXPECT_EQ(find(plan, "model").group, 0u);
  EXPECT_EQ(find(plan, "shadow_map").group, 1u);
  EXPECT_EQ(find(plan, "material").group, 2u);
  expect_monotone(plan);
  // Calls per pass: frame 1 + pass 1 + material 10; bind groups 1 + 3 (one per pass) + 10.
  EXPECT_EQ(plan.set_bind_group_per_pass, 12u);
  EXPECT_EQ(plan.bind_groups_created, 14u);
}

TEST(BindGroupPlan, MergesTheLowestGroupsUpwardAsALastResort) {
  const BindGroupPlan plan = plan_bind_groups(five_frequencies(2, 3));
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(find(plan, "camera").group, 0u);
  EXPECT_EQ(find(plan, "shadow_map").group, 0u);
  EXPECT_EQ(find(plan, "material").group, 1u);
  expect_monotone(plan);
  // Group 0 now holds pass data: one bind group per pass (3), set once per pass.
  EXPECT_EQ(plan.groups[0].bind_groups_created, 3u);
  EXPECT_EQ(plan.groups[0].set_bind_group_per_pass, 1u);
  EXPECT_EQ(plan_bind_groups(five_frequencies(1, 3)).groups.size(), 1u);
}

TEST(BindGroupPlan, DynamicUniformBudgetExhaustedMovesToStorage) {
  // 9 per-object uniforms, maxDynamicUniformBuffersPerPipelineLayout 8 (M01's limit).
  PlanInput in;
  in.bindings.push_back(buf("camera", 64, Frequency::frame));
  for (int i = 0; i < 9; ++i) in.bindings.push_back(buf("obj" + std::to_string(i), 64, Frequency::object));
  in.stats = {10, 1, 1, DrawOrderKind::material};
  const BindGroupPlan plan = plan_bind_groups(in);
  EXPECT_EQ(plan.dynamic_uniform_buffers, 8u);
  EXPECT_TRUE(find(plan, "obj7").has_dynamic_offset);
  EXPECT_TRUE(find(plan, "obj8").instance_indexed);
  ASSERT_EQ(plan.reasons.size(), 1u);
  EXPECT_NE(plan.reasons[0].find("maxDynamicUniformBuffersPerPipelineLayout"), std::string::npos);

  in.limits.maxDynamicUniformBuffersPerPipelineLayout = 2;
  const BindGroupPlan small = plan_bind_groups(in);
  EXPECT_EQ(small.dynamic_uniform_buffers, 2u);
  EXPECT_EQ(small.reasons.size(), 7u);
}

void expect_kind(ErrorKind kind, const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "expected " << to_string(kind);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
  }
}

TEST(BindGroupPlan, CaseM01DynamicUniformsSummedOverThePipelineLayout) {
  auto layout = [](int second) {
    std::vector<BindGroupLayoutDesc> l(2);
    for (uint32_t i = 0; i < 3; ++i)
      l[0].entries.push_back({i, BindingKind::uniform_buffer, kVF, true, 64, "a" + std::to_string(i)});
    for (uint32_t i = 0; i < static_cast<uint32_t>(second); ++i)
      l[1].entries.push_back({i, BindingKind::uniform_buffer, kStageFragment, true, 64,
                              "b" + std::to_string(i)});
    return l;
  };
  // 3 + 6 = 9 > 8; visibility does not multiply (BGL0 counts 3).
  expect_kind(ErrorKind::TooManyDynamicUniformBuffers,
              [&] { check_plan_budgets(layout(6), Limits{}); });
  EXPECT_NO_THROW(check_plan_budgets(layout(5), Limits{}));  // 8
}

TEST(BindGroupPlan, CaseM03UniformBuffersPerStage) {
  // 3 engine buffers + L lights, all VERTEX|FRAGMENT, one group: L = 10 -> 13 > 12.
  auto input = [](int lights) {
    PlanInput in;
    for (int i = 0; i < 3; ++i) in.bindings.push_back(buf("engine" + std::to_string(i), 64, Frequency::frame));
    for (int i = 0; i < lights; ++i) in.bindings.push_back(buf("light" + std::to_string(i), 32, Frequency::frame));
    in.stats = {1, 1, 1, DrawOrderKind::material};
    return in;
  };
  expect_kind(ErrorKind::TooManyUniformBuffersPerStage, [&] { plan_bind_groups(input(10)); });
  EXPECT_EQ(plan_bind_groups(input(9)).groups.size(), 1u);
}

TEST(BindGroupPlan, BadInputIsPlanInput) {
  auto with = [](auto mutate) {
    return [mutate] {
      PlanInput in = c01_input(1);
      mutate(in);
      plan_bind_groups(in);
    };
  };
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.stats.objects = 0; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.stats.materials = 13; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.stats.passes = 0; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.stats.objects = uint64_t{1} << 40; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.stats.passes = 1u << 20; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.bindings.clear(); }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.bindings[1].name = "camera"; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.bindings[1].name = "9x"; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.bindings[1].size_bytes = 0; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.bindings[1].visibility = 0; }));
  expect_kind(ErrorKind::PlanInput, with([](PlanInput& in) { in.limits.maxBindGroups = 0; }));
}

TEST(BindGroupPlan, ParsesTheSceneFormat) {
  const PlanInput in = parse_plan_input(R"({
    "grouping": "resource-type", "object_data": "storage-buffer", "strict_intruders": true,
    "stats": {"objects": 12, "materials": 3, "passes": 2, "order": "depth"},
    "limits": {"maxBindGroups": 3, "minUniformBufferOffsetAlignment": 64},
    "bindings": [
      {"name": "camera", "kind": "uniform", "size": 80, "frequency": "frame",
       "visibility": ["vertex"]},
      {"name": "id", "kind": "read-only-storage", "size": 4, "frequency": "material",
       "changes": "object", "wgsl_type": "u32"},
      {"name": "albedo", "kind": "texture", "frequency": "material"}
    ]})");
  EXPECT_EQ(in.options.grouping, Grouping::resource_type);
  EXPECT_EQ(in.options.object_data, ObjectData::storage_buffer);
  EXPECT_TRUE(in.options.strict_intruders);
  EXPECT_EQ(in.stats.objects, 12u);
  EXPECT_EQ(in.stats.passes, 2u);
  EXPECT_EQ(in.stats.order, DrawOrderKind::depth);
  EXPECT_EQ(in.limits.maxBindGroups, 3u);
  EXPECT_EQ(in.limits.minUniformBufferOffsetAlignment, 64u);
  EXPECT_EQ(in.limits.maxDynamicUniformBuffersPerPipelineLayout, 8u);  // untouched default
  ASSERT_EQ(in.bindings.size(), 3u);
  EXPECT_EQ(in.bindings[0].visibility, uint32_t{kStageVertex});
  EXPECT_EQ(in.bindings[1].kind, BindingKind::read_only_storage_buffer);
  EXPECT_EQ(in.bindings[1].observed(), Frequency::object);
  EXPECT_EQ(in.bindings[1].wgsl_type, "u32");
  EXPECT_EQ(in.bindings[2].kind, BindingKind::sampled_texture);
  EXPECT_EQ(in.bindings[2].visibility, kVF);  // default
}

TEST(BindGroupPlan, MalformedSceneJsonIsPlanInput) {
  const char* bad[] = {
      "",
      "{",
      "[]",
      R"({"bindings": []})",  // no stats
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1}})",  // no bindings
      R"({"stats": {"objects": -1, "materials": 1, "passes": 1}, "bindings": []})",
      R"({"stats": {"objects": "many", "materials": 1, "passes": 1}, "bindings": []})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1, "order": "random"}, "bindings": []})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1}, "bindings": [], "colour": 1})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1},
          "bindings": [{"name": "a", "kind": "uniform", "frequency": "frame"}]})",  // no size
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1},
          "bindings": [{"name": "a", "kind": "buffer", "size": 4, "frequency": "frame"}]})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1},
          "bindings": [{"name": "a", "kind": "uniform", "size": 4, "frequency": "often"}]})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1},
          "bindings": [{"name": "a", "kind": "uniform", "size": 4, "frequency": "frame",
                        "visibility": ["geometry"]}]})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1}, "limits": {"maxColors": 3},
          "bindings": [{"name": "a", "kind": "uniform", "size": 4, "frequency": "frame"}]})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1}, "grouping": "alphabetical",
          "bindings": [{"name": "a", "kind": "uniform", "size": 4, "frequency": "frame"}]})",
      R"({"stats": {"objects": 1, "materials": 1, "passes": 1}, "bindings": [7]})",
  };
  for (const char* text : bad) {
    SCOPED_TRACE(text);
    expect_kind(ErrorKind::PlanInput, [&] { parse_plan_input(text); });
  }
}

// Issue 25: a key given twice in one object is refused (the JSON reader would keep the last "stats"
// silently), at any depth; the same key in different objects is fine.
TEST(BindGroupPlan, RepeatedKeysAreRefused) {
  const char* binding = R"([{"name": "a", "kind": "uniform", "size": 4, "frequency": "frame"}])";
  const std::string two_stats =
      std::string(R"({"stats": {"objects": 1, "materials": 1, "passes": 1},
      "stats": {"objects": 9, "materials": 1, "passes": 1}, "bindings": )") +
      binding + "}";
  try {
    parse_plan_input(two_stats);
    ADD_FAILURE() << "two stats accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::PlanInput);
    EXPECT_NE(std::string(e.what()).find("key \"stats\" appears twice"), std::string::npos)
        << e.what();
  }
  const std::string nested = R"({"stats": {"objects": 1, "objects": 2, "materials": 1,
      "passes": 1}, "bindings": )" +
                             std::string(binding) + "}";
  expect_kind(ErrorKind::PlanInput, [&] { parse_plan_input(nested); });
  // "name" in each binding, "objects" in stats only once: accepted.
  EXPECT_NO_THROW(parse_plan_input(std::string(R"({"stats": {"objects": 1, "materials": 1,
      "passes": 1}, "bindings": [{"name": "a", "kind": "uniform", "size": 4, "frequency": "frame"},
      {"name": "b", "kind": "uniform", "size": 4, "frequency": "frame"}]})")));
}

TEST(BindGroupPlan, JsonReportCarriesTheCounts) {
  const std::string json = plan_bind_groups(c01_input(1)).to_json();
  EXPECT_NE(json.find("\"set_bind_group_per_pass\": 16"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bind_groups_created\": 5"), std::string::npos);
}


// Scene descriptions are written into WGSL and checked against limits: names must be WGSL
// identifiers, types plain type text, buffer sizes positive multiples of 4 within the binding
// limits, alignment limits powers of two (found by adversarial testing).
TEST(PlanInputChecks, RejectsInjectionAndImpossibleValues) {
  auto kind_of = [](const std::string& binding, const std::string& limits = "") {
    const std::string doc = R"({"stats": {"objects": 10, "materials": 2, "passes": 1},)" +
                            (limits.empty() ? std::string() : R"("limits": )" + limits + ",") +
                            R"("bindings": [)" + binding + "]}";
    try {
      parse_plan_input(doc);
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Io;  // marker: accepted
  };
  const std::string ok = R"({"name": "camera", "kind": "uniform", "size": 64, "frequency": "frame"})";
  EXPECT_EQ(kind_of(ok), ErrorKind::Io);
  EXPECT_EQ(kind_of(R"({"name": "a; fn x", "kind": "uniform", "size": 64, "frequency": "frame"})"),
            ErrorKind::PlanInput);
  EXPECT_EQ(kind_of(R"({"name": "a", "kind": "uniform", "size": 64, "frequency": "frame",
                        "wgsl_type": "mat4x4f; @compute fn main() {}"})"),
            ErrorKind::PlanInput);
  EXPECT_EQ(kind_of(R"({"name": "a", "kind": "uniform", "size": 3, "frequency": "frame"})"),
            ErrorKind::PlanInput);
  // 65540 > maxUniformBufferBindingSize 65536 (core default).
  EXPECT_EQ(kind_of(R"({"name": "a", "kind": "uniform", "size": 65540, "frequency": "frame"})"),
            ErrorKind::PlanInput);
  EXPECT_EQ(kind_of(R"({"name": "t", "kind": "texture", "size": 16, "frequency": "material"})"),
            ErrorKind::PlanInput);
  EXPECT_EQ(kind_of(ok, R"({"minUniformBufferOffsetAlignment": 48})"), ErrorKind::PlanInput);
  EXPECT_EQ(kind_of(ok, R"({"maxBindGroups": 0})"), ErrorKind::PlanInput);
}

}  // namespace
}  // namespace bindery
