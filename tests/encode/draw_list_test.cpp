// SPDX-License-Identifier: MIT
// Tests for the sort key (bindery/sort_key.hpp), the draw list and the redundant-state tracker
// with run-time intruder detection (bindery/draw_list.hpp). No device: the tracker works on
// opaque handles; addresses of local objects stand in for bind groups.
//
// Expected numbers:
//   shared/cases C01: one pass, groups frame / material / object (dynamic offset, stride 256),
//   12 draws = 3 materials x 4 objects sorted by material, every group set before every draw:
//   made 1 + 3 + 12 = 16, skipped 36 - 16 = 20; offsets 0, 256, ..., 11 * 256 = 2816; a second
//   pass sets group 0 again.
//   Seed 001 simulated draw by draw: 2000 objects, 50 materials (40 objects each), 3 passes, one
//   bind group per object: per pass 1 + 50 + 2000 = 2051 made, per frame 3 * 2051 = 6153.
//   Grouped by type (each of 3 groups holds per-object data, a distinct bind group per object
//   for each): 3 * 2000 = 6000 per pass.
//   Bounds (WebGPU §3.6.2 core defaults): maxBindGroups 4 -> groups 0..3;
//   maxDynamicUniformBuffersPerPipelineLayout 8 + maxDynamicStorageBuffersPerPipelineLayout 4 =
//   12 dynamic offsets in one setBindGroup; maxVertexBuffers 8 -> slots 0..7. The tracker's
//   capacities: 8 groups, 32 offsets per group, 16 vertex buffer slots.
#include "bindery/encode/draw_list.hpp"
#include "bindery/core/error.hpp"
#include "support/expect_kind.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace bindery {
namespace {

using namespace sort_key;

TEST(SortKey, FieldsRoundTrip) {
  const uint64_t k = material_order(4095, 1048575, 7);
  EXPECT_EQ(decode(k, kPipelineShift, kPipelineMask), 4095u);
  EXPECT_EQ(decode(k, kMaterialShift, kMaterialMask), 1048575u);
  EXPECT_EQ(decode(k, kMeshShift, kMeshMask), 7u);
  const uint64_t d = depth_order(3, 1.5f, 9);
  EXPECT_EQ(decode(d, kDepthPipelineShift, kDepthPipelineMask), 3u);
  EXPECT_EQ(decode(d, kDepthShift, kDepthMask), 0x3FC00000u);  // IEEE-754 bits of 1.5f
  EXPECT_EQ(decode(d, kDepthMaterialShift, kDepthMaterialMask), 9u);
}

TEST(SortKey, PipelineOutranksMaterialOutranksMesh) {
  EXPECT_LT(material_order(0, 1048575, 1048575), material_order(1, 0, 0));
  EXPECT_LT(material_order(2, 3, 1048575), material_order(2, 4, 0));
  EXPECT_LT(material_order(2, 3, 5), material_order(2, 3, 6));
  EXPECT_LT(depth_order(0, 1e30f, 5), depth_order(1, 0.0f, 0));
  EXPECT_LT(depth_order(0, 0.25f, 1048575), depth_order(0, 0.5f, 0));
  EXPECT_EQ(depth_order(0, -0.0f, 0), depth_order(0, 0.0f, 0));
}

TEST(DrawList, RejectsValuesThatDoNotFitTheKey) {
  DrawList list;
  auto expect_invalid = [&](DrawItem item) {
    try {
      list.add(item);
      ADD_FAILURE() << "expected InvalidArgument";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    }
  };
  expect_invalid({.pipeline = 4096});
  expect_invalid({.material = 1u << 20});
  expect_invalid({.mesh = 1u << 20});
  expect_invalid({.depth = -1.0f});
  expect_invalid({.depth = std::numeric_limits<float>::quiet_NaN()});
  expect_invalid({.depth = std::numeric_limits<float>::infinity()});
  EXPECT_EQ(list.size(), 0u);
  list.add({.pipeline = 4095, .material = (1u << 20) - 1, .mesh = (1u << 20) - 1});
  EXPECT_EQ(list.size(), 1u);
}

TEST(DrawList, MaterialOrderGroupsMaterialsAndKeepsSlotOrder) {
  DrawList list;
  // 12 objects, material = slot % 3 (interleaved on insertion), one pipeline.
  for (uint32_t i = 0; i < 12; ++i) list.add({.material = i % 3, .object_slot = i});
  list.sort(DrawOrder::material);
  const uint32_t expected_slots[12] = {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11};
  for (uint32_t i = 0; i < 12; ++i) {
    EXPECT_EQ(list.items()[i].material, i / 4) << i;
    EXPECT_EQ(list.items()[i].object_slot, expected_slots[i]) << i;
  }
}

TEST(DrawList, PipelineComesBeforeMaterial) {
  DrawList list;
  list.add({.pipeline = 1, .material = 0, .object_slot = 0});
  list.add({.pipeline = 0, .material = 5, .object_slot = 1});
  list.add({.pipeline = 0, .material = 2, .mesh = 1, .object_slot = 2});
  list.add({.pipeline = 0, .material = 2, .mesh = 0, .object_slot = 3});
  list.sort();
  const uint32_t expected[4] = {3, 2, 1, 0};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(list.items()[i].object_slot, expected[i]);
}

TEST(DrawList, DepthOrderIsFrontToBack) {
  DrawList list;
  const float depths[5] = {10.0f, 0.5f, 3.0f, 0.0f, 3.0f};
  const uint32_t materials[5] = {0, 1, 2, 3, 1};
  for (uint32_t i = 0; i < 5; ++i)
    list.add({.material = materials[i], .object_slot = i, .depth = depths[i]});
  list.sort(DrawOrder::depth);
  // 0.0 (slot 3), 0.5 (slot 1), 3.0 material 1 (slot 4) before 3.0 material 2 (slot 2), 10.0.
  const uint32_t expected[5] = {3, 1, 4, 2, 0};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(list.items()[i].object_slot, expected[i]) << i;
}

/// Opaque stand-ins for bind groups: distinct addresses.
struct Handles {
  int frame = 0;
  std::vector<int> materials;
  std::vector<int> objects;
  int object_dynamic = 0;
  Handles(size_t m, size_t n) : materials(m), objects(n) {}
};

struct GroupCalls {
  uint64_t made[4] = {0, 0, 0, 0};
};

/// One pass over `list` setting groups 0 (frame), 1 (material) and 2 (object: dynamic offset
/// slot * 256 into one bind group, or one bind group per object) before every draw.
void encode_pass(RenderStateTracker& t, const DrawList& list, Handles& h, bool dynamic,
                 GroupCalls& calls, std::vector<uint32_t>* offsets_made = nullptr) {
  for (const DrawItem& item : list.items()) {
    calls.made[0] += t.set_bind_group(0, &h.frame, {}, Frequency::frame, 0);
    calls.made[1] +=
        t.set_bind_group(1, &h.materials[item.material], {}, Frequency::material, item.material);
    if (dynamic) {
      const uint32_t offset = item.object_slot * 256;
      const bool made =
          t.set_bind_group(2, &h.object_dynamic, {&offset, 1}, Frequency::object, item.object_slot);
      calls.made[2] += made;
      if (made && offsets_made) offsets_made->push_back(offset);
    } else {
      calls.made[2] += t.set_bind_group(2, &h.objects[item.object_slot], {}, Frequency::object,
                                        item.object_slot);
    }
    t.draw();
  }
}

TEST(RenderStateTracker, CaseC01SixteenOfThirtySix) {
  DrawList list;
  // 3 materials x 4 objects, object slots in draw order after sorting by material.
  for (uint32_t m = 0; m < 3; ++m)
    for (uint32_t o = 0; o < 4; ++o) list.add({.material = m, .object_slot = m * 4 + o});
  list.sort(DrawOrder::material);
  Handles h(3, 12);
  Counters counters;
  RenderStateTracker t(counters, IntruderPolicy::error);
  GroupCalls calls;
  std::vector<uint32_t> offsets;
  encode_pass(t, list, h, true, calls, &offsets);
  EXPECT_EQ(calls.made[0], 1u);
  EXPECT_EQ(calls.made[1], 3u);
  EXPECT_EQ(calls.made[2], 12u);
  EXPECT_EQ(counters.set_bind_group, 16u);
  EXPECT_EQ(counters.set_bind_group_skipped, 20u);
  EXPECT_EQ(counters.draws, 12u);
  ASSERT_EQ(offsets.size(), 12u);
  for (uint32_t i = 0; i < 12; ++i) EXPECT_EQ(offsets[i], i * 256u);
  EXPECT_EQ(offsets.back(), 2816u);
  EXPECT_TRUE(t.intruders().empty());

  // Second pass: nothing carries across passes, group 0 is set again.
  t.reset();
  EXPECT_TRUE(t.set_bind_group(0, &h.frame, {}, Frequency::frame, 0));
}

TEST(RenderStateTracker, InterleavedMaterialsRebindPerDraw) {
  DrawList list;
  for (uint32_t i = 0; i < 12; ++i) list.add({.material = i % 3, .object_slot = i});
  // Not sorted by material: the material changes on every draw: 1 + 12 + 12 = 25.
  Handles h(3, 12);
  Counters counters;
  RenderStateTracker t(counters, IntruderPolicy::error);
  GroupCalls calls;
  encode_pass(t, list, h, true, calls);
  EXPECT_EQ(calls.made[1], 12u);
  EXPECT_EQ(counters.set_bind_group, 25u);
}

TEST(RenderStateTracker, SeedArithmeticDrawByDraw) {
  // 2000 objects, 50 materials of 40 objects, 3 passes, one bind group per object.
  DrawList list;
  for (uint32_t i = 0; i < 2000; ++i) list.add({.material = i % 50, .object_slot = i});
  list.sort(DrawOrder::material);
  Handles h(50, 2000);
  Counters counters;
  RenderStateTracker t(counters, IntruderPolicy::error);
  GroupCalls calls;
  for (int pass = 0; pass < 3; ++pass) {
    t.reset();
    encode_pass(t, list, h, false, calls);
    if (pass == 0) {
      EXPECT_EQ(counters.set_bind_group, 2051u);
    }
  }
  EXPECT_EQ(counters.set_bind_group, 6153u);

  // By resource type: buffers / textures / samplers each hold per-object data, so each group
  // gets a distinct bind group per object: 3 * 2000 per pass.
  Counters by_type;
  RenderStateTracker tt(by_type, IntruderPolicy::error);
  std::vector<std::array<int, 3>> per_object(2000);
  for (const DrawItem& item : list.items()) {
    for (uint32_t g = 0; g < 3; ++g)
      tt.set_bind_group(g, &per_object[item.object_slot][g], {}, Frequency::object,
                        item.object_slot);
    tt.draw();
  }
  EXPECT_EQ(by_type.set_bind_group, 6000u);
  EXPECT_EQ(by_type.set_bind_group_skipped, 0u);
}

TEST(RenderStateTracker, PipelineAndBuffersAreElided) {
  Counters c;
  RenderStateTracker t(c);
  int pa = 0, pb = 0, vb = 0, ib = 0, bg = 0;
  EXPECT_TRUE(t.set_pipeline(&pa));
  EXPECT_FALSE(t.set_pipeline(&pa));
  EXPECT_TRUE(t.set_bind_group(0, &bg, {}, Frequency::frame, 0));
  EXPECT_TRUE(t.set_pipeline(&pb));
  // Bind groups stay bound across setPipeline.
  EXPECT_FALSE(t.set_bind_group(0, &bg, {}, Frequency::frame, 0));
  EXPECT_TRUE(t.set_vertex_buffer(0, &vb, 0, 1024));
  EXPECT_FALSE(t.set_vertex_buffer(0, &vb, 0, 1024));
  EXPECT_TRUE(t.set_vertex_buffer(0, &vb, 512, 512));  // other offset
  EXPECT_TRUE(t.set_vertex_buffer(1, &vb, 512, 512));  // other slot
  EXPECT_TRUE(t.set_index_buffer(&ib, 1, 0, 64));
  EXPECT_FALSE(t.set_index_buffer(&ib, 1, 0, 64));
  EXPECT_TRUE(t.set_index_buffer(&ib, 2, 0, 64));  // other format
  EXPECT_EQ(c.set_pipeline, 2u);
  EXPECT_EQ(c.set_pipeline_skipped, 1u);
  EXPECT_EQ(c.set_vertex_buffer, 3u);
  EXPECT_EQ(c.set_vertex_buffer_skipped, 1u);
  EXPECT_EQ(c.set_index_buffer, 2u);
  EXPECT_EQ(c.set_index_buffer_skipped, 1u);
  // Same bind group, different dynamic offsets: must be issued.
  uint32_t o1 = 0, o2 = 256;
  EXPECT_TRUE(t.set_bind_group(2, &bg, {&o1, 1}, Frequency::object, 0));
  EXPECT_TRUE(t.set_bind_group(2, &bg, {&o2, 1}, Frequency::object, 1));
  EXPECT_FALSE(t.set_bind_group(2, &bg, {&o2, 1}, Frequency::object, 1));
  // After executeBundles / a new pass everything is issued again.
  t.reset();
  EXPECT_TRUE(t.set_pipeline(&pb));
  EXPECT_TRUE(t.set_vertex_buffer(0, &vb, 512, 512));
  EXPECT_TRUE(t.set_index_buffer(&ib, 2, 0, 64));
  EXPECT_TRUE(t.set_bind_group(0, &bg, {}, Frequency::frame, 0));
}

TEST(RenderStateTracker, MaterialGroupChangingWithinAMaterialIsAnIntruder) {
  // Seed 001: an object id inside the material group -> a different material bind group per
  // object while the material id stays the same.
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::report);
  BindGroupLayoutDesc material_layout{"material", {}};
  t.describe_group(1, material_layout);
  std::vector<int> per_object_material_bg(8);
  int frame = 0, objects = 0;
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t material = i / 4;  // sorted: 2 materials x 4 objects
    const uint32_t offset = i * 256;
    t.set_bind_group(0, &frame, {}, Frequency::frame, 0);
    t.set_bind_group(1, &per_object_material_bg[i], {}, Frequency::material, material);
    t.set_bind_group(2, &objects, {&offset, 1}, Frequency::object, i);
    t.draw();
  }
  ASSERT_EQ(t.intruders().size(), 1u);  // once per binding, not once per draw
  const IntruderReport& r = t.intruders()[0];
  EXPECT_EQ(r.group, 1u);
  EXPECT_EQ(r.binding, "material");
  EXPECT_EQ(r.declared, Frequency::material);
  EXPECT_EQ(r.observed, Frequency::object);
}

TEST(RenderStateTracker, LegitimateChangesAreNotIntruders) {
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error);
  std::vector<int> materials(3), objects(12);
  int frame = 0;
  for (uint32_t i = 0; i < 12; ++i) {
    t.set_bind_group(0, &frame, {}, Frequency::frame, 0);
    t.set_bind_group(1, &materials[i / 4], {}, Frequency::material, i / 4);
    t.set_bind_group(2, &objects[i], {}, Frequency::object, i);
    t.draw();
  }
  EXPECT_TRUE(t.intruders().empty());
}

TEST(RenderStateTracker, FrameGroupChangingPerMaterialIsObservedAsMaterial) {
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::report);
  std::vector<int> frames(2), materials(2);
  int object = 0;
  for (uint32_t i = 0; i < 2; ++i) {
    t.set_bind_group(0, &frames[i], {}, Frequency::frame, 0);  // key 0 for the whole frame
    t.set_bind_group(1, &materials[i], {}, Frequency::material, i);
    t.set_bind_group(2, &object, {}, Frequency::object, 0);
    t.draw();
  }
  ASSERT_EQ(t.intruders().size(), 1u);
  EXPECT_EQ(t.intruders()[0].binding, "group 0");
  EXPECT_EQ(t.intruders()[0].declared, Frequency::frame);
  EXPECT_EQ(t.intruders()[0].observed, Frequency::material);
}

TEST(RenderStateTracker, DynamicOffsetIntruderIsNamedInBindingOrder) {
  // Layout listed out of binding order (case D05): offsets apply to binding 0, then binding 3.
  BindGroupLayoutDesc layout{"material", {}};
  layout.entries.push_back({3, BindingKind::uniform_buffer, kStageFragment, true, 16, "object_id"});
  layout.entries.push_back({0, BindingKind::uniform_buffer, kStageFragment, true, 32, "params"});
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::report);
  t.describe_group(1, layout);
  int bg = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    const uint32_t offsets[2] = {0, i * 256};  // params fixed, object_id moves per draw
    t.set_bind_group(1, &bg, offsets, Frequency::material, 7);
    t.draw();
  }
  ASSERT_EQ(t.intruders().size(), 1u);
  EXPECT_EQ(t.intruders()[0].binding, "object_id");
  EXPECT_EQ(t.intruders()[0].observed, Frequency::object);
}

TEST(RenderStateTracker, ErrorPolicyThrowsIntruderAndIgnoreDoesNot) {
  std::vector<int> bgs(2);
  auto run = [&](IntruderPolicy policy, Counters& c) {
    RenderStateTracker t(c, policy);
    for (uint32_t i = 0; i < 2; ++i) {
      t.set_bind_group(1, &bgs[i], {}, Frequency::material, 0);
      t.draw();
    }
    return t.intruders().size();
  };
  Counters c1, c2;
  try {
    run(IntruderPolicy::error, c1);
    FAIL() << "expected Intruder";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Intruder);
  }
  EXPECT_EQ(run(IntruderPolicy::ignore, c2), 0u);
}

// --- Bounds: fixed-size storage checked against the device's limits -------------------------

TEST(RenderStateTracker, GroupIndexAtMaxBindGroupsIsRefused) {
  const Limits limits = Limits::core_defaults();  // maxBindGroups 4
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error, &limits);
  int bg = 0;
  EXPECT_TRUE(t.set_bind_group(3, &bg, {}, Frequency::object, 0));  // the last valid index
  EXPECT_KIND(t.set_bind_group(4, &bg, {}, Frequency::object, 0), TooManyBindGroups);
  EXPECT_KIND(t.set_bind_group(1000, &bg, {}, Frequency::object, 0), TooManyBindGroups);
  EXPECT_KIND(t.describe_group(4, BindGroupLayoutDesc{"too far", {}}), TooManyBindGroups);
  // Refused calls count nothing: one made, none skipped.
  EXPECT_EQ(c.set_bind_group, 1u);
  EXPECT_EQ(c.set_bind_group_skipped, 0u);
}

TEST(RenderStateTracker, GroupsBeyondTheTrackerCapacityAreAnImplementationLimit) {
  Limits wide = Limits::core_defaults();
  wide.maxBindGroups = 12;  // more than the 8 the tracker (and wgpu-native) hold
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error, &wide);
  int bg = 0;
  EXPECT_TRUE(t.set_bind_group(7, &bg, {}, Frequency::object, 0));
  EXPECT_KIND(t.set_bind_group(8, &bg, {}, Frequency::object, 0), ImplementationLimit);
  EXPECT_KIND(t.set_bind_group(12, &bg, {}, Frequency::object, 0), TooManyBindGroups);
  // No limits given: the capacity alone.
  RenderStateTracker unbounded(c, IntruderPolicy::error);
  EXPECT_TRUE(unbounded.set_bind_group(7, &bg, {}, Frequency::object, 0));
  EXPECT_KIND(unbounded.set_bind_group(8, &bg, {}, Frequency::object, 0), ImplementationLimit);
  EXPECT_EQ(c.set_bind_group, 2u);
}

TEST(RenderStateTracker, MoreDynamicOffsetsThanTheLayoutLimitsAllowAreRefused) {
  const Limits limits = Limits::core_defaults();  // 8 uniform + 4 storage = 12
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error, &limits);
  int bg = 0;
  std::array<uint32_t, 13> offsets{};
  for (uint32_t i = 0; i < 13; ++i) offsets[i] = i * 256;
  const std::span<const uint32_t> twelve(offsets.data(), 12);
  EXPECT_TRUE(t.set_bind_group(2, &bg, twelve, Frequency::object, 0));
  EXPECT_FALSE(t.set_bind_group(2, &bg, twelve, Frequency::object, 0));
  EXPECT_KIND(t.set_bind_group(2, &bg, offsets, Frequency::object, 0), TooManyDynamicOffsets);
  // The refused call changed nothing: the twelve are still bound.
  EXPECT_FALSE(t.set_bind_group(2, &bg, twelve, Frequency::object, 0));
  // Only the last of the twelve offsets differs: stored inline, compared in full, issued.
  offsets[11] = 12 * 256;
  EXPECT_TRUE(t.set_bind_group(2, &bg, twelve, Frequency::object, 0));
  // Fewer offsets than bound (a prefix of them): not the same call.
  EXPECT_TRUE(t.set_bind_group(2, &bg, twelve.first(11), Frequency::object, 0));
  EXPECT_EQ(c.set_bind_group, 3u);
  EXPECT_EQ(c.set_bind_group_skipped, 2u);

  // A device allowing 20 + 20 = 40: the tracker holds 32 per group, the 33rd is its own limit.
  Limits wide = Limits::core_defaults();
  wide.maxDynamicUniformBuffersPerPipelineLayout = 20;
  wide.maxDynamicStorageBuffersPerPipelineLayout = 20;
  RenderStateTracker w(c, IntruderPolicy::error, &wide);
  std::array<uint32_t, 41> many{};
  EXPECT_TRUE(
      w.set_bind_group(0, &bg, std::span<const uint32_t>(many.data(), 32), Frequency::object, 0));
  EXPECT_KIND(
      w.set_bind_group(0, &bg, std::span<const uint32_t>(many.data(), 33), Frequency::object, 0),
      ImplementationLimit);
  EXPECT_KIND(w.set_bind_group(0, &bg, many, Frequency::object, 0), TooManyDynamicOffsets);
}

TEST(RenderStateTracker, NullHandlesAndVertexSlotsAreRefused) {
  const Limits limits = Limits::core_defaults();  // maxVertexBuffers 8
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error, &limits);
  int vb = 0;
  EXPECT_KIND(t.set_pipeline(nullptr), InvalidArgument);
  EXPECT_KIND(t.set_bind_group(0, nullptr, {}, Frequency::frame, 0), InvalidArgument);
  EXPECT_KIND(t.set_vertex_buffer(0, nullptr, 0, 16), InvalidArgument);
  EXPECT_KIND(t.set_index_buffer(nullptr, 1, 0, 16), InvalidArgument);
  EXPECT_TRUE(t.set_vertex_buffer(7, &vb, 0, 16));
  EXPECT_KIND(t.set_vertex_buffer(8, &vb, 0, 16), InvalidArgument);
  RenderStateTracker unbounded(c, IntruderPolicy::error);
  EXPECT_TRUE(unbounded.set_vertex_buffer(15, &vb, 0, 16));
  EXPECT_KIND(unbounded.set_vertex_buffer(16, &vb, 0, 16), ImplementationLimit);
  EXPECT_EQ(c.set_pipeline, 0u);
  EXPECT_EQ(c.set_bind_group, 0u);
  EXPECT_EQ(c.set_vertex_buffer, 2u);
  EXPECT_EQ(c.set_index_buffer, 0u);
}

// --- Intruders found after long runs of skipped calls ---------------------------------------

TEST(RenderStateTracker, IntruderStillDetectedAfterManySkippedCalls) {
  // 1000 draws: frame group and material group A (key 0) set before every draw and skipped
  // after the first, object group moving by dynamic offset. Draw 1000 then binds material bind
  // group B under the same material key 0: an intruder, and it is the first report.
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::report);
  int frame = 0, material_a = 0, material_b = 0, object = 0;
  auto one_draw = [&](uint32_t i, const void* material) {
    const uint32_t offset = i * 256;
    t.set_bind_group(0, &frame, {}, Frequency::frame, 0);
    t.set_bind_group(1, material, {}, Frequency::material, 0);
    t.set_bind_group(2, &object, {&offset, 1}, Frequency::object, i);
    t.draw();
  };
  for (uint32_t i = 0; i < 1000; ++i) one_draw(i, &material_a);
  EXPECT_TRUE(t.intruders().empty());
  // Made: group 0 once, group 1 once, group 2 1000 times = 1002; skipped 999 + 999 = 1998.
  EXPECT_EQ(c.set_bind_group, 1002u);
  EXPECT_EQ(c.set_bind_group_skipped, 1998u);
  one_draw(1000, &material_b);
  ASSERT_EQ(t.intruders().size(), 1u);
  EXPECT_EQ(t.intruders()[0].group, 1u);
  EXPECT_EQ(t.intruders()[0].binding, "group 1");
  EXPECT_EQ(t.intruders()[0].declared, Frequency::material);
  EXPECT_EQ(t.intruders()[0].observed, Frequency::object);  // only the object key moved
  // Alternating A / B for 10 more draws: the same intruder, still one report.
  for (uint32_t i = 1001; i < 1011; ++i) one_draw(i, i % 2 ? &material_a : &material_b);
  EXPECT_EQ(t.intruders().size(), 1u);
  // 1011 draws: group 0 made 1, skipped 1010; group 1 made 1 (A) + 1 (B) + 10 = 12, skipped
  // 999; group 2 made 1011. 1 + 12 + 1011 = 1024 made, 1010 + 999 = 2009 skipped.
  EXPECT_EQ(c.draws, 1011u);
  EXPECT_EQ(c.set_bind_group, 1024u);
  EXPECT_EQ(c.set_bind_group_skipped, 2009u);
}

TEST(RenderStateTracker, DynamicOffsetIntruderAfterManySkippedCallsThrowsUnderError) {
  // Group 1 (material, key 5) carries two dynamic offsets, unchanged for 500 draws (skipped),
  // then its second offset moves while the key stays 5: Intruder thrown at that draw, naming
  // the layout's second dynamic binding in binding order (binding 2 before binding 6).
  BindGroupLayoutDesc layout{"material", {}};
  layout.entries.push_back({6, BindingKind::uniform_buffer, kStageFragment, true, 16, "tint"});
  layout.entries.push_back({2, BindingKind::uniform_buffer, kStageFragment, true, 64, "params"});
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error);
  t.describe_group(1, layout);
  int bg = 0;
  uint32_t offsets[2] = {256, 512};
  for (uint32_t i = 0; i < 500; ++i) {
    t.set_bind_group(1, &bg, offsets, Frequency::material, 5);
    t.draw();
  }
  EXPECT_EQ(c.set_bind_group, 1u);
  EXPECT_EQ(c.set_bind_group_skipped, 499u);
  offsets[1] = 768;
  EXPECT_TRUE(t.set_bind_group(1, &bg, offsets, Frequency::material, 5));
  EXPECT_KIND(t.draw(), Intruder);
  EXPECT_EQ(c.draws, 501u);
  ASSERT_EQ(t.intruders().size(), 1u);
  EXPECT_EQ(t.intruders()[0].binding, "tint");
  EXPECT_EQ(t.intruders()[0].observed, Frequency::object);
}

TEST(RenderStateTracker, ChangingBackBeforeTheDrawIsNoIntruder) {
  // A -> draw -> B -> A -> draw: both later calls are issued (3 made), but the second draw uses
  // what the first did, so the material group did not change between the draws.
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error);
  int a = 0, b = 0;
  EXPECT_TRUE(t.set_bind_group(1, &a, {}, Frequency::material, 3));
  t.draw();
  EXPECT_TRUE(t.set_bind_group(1, &b, {}, Frequency::material, 3));
  EXPECT_TRUE(t.set_bind_group(1, &a, {}, Frequency::material, 3));
  t.draw();
  EXPECT_TRUE(t.intruders().empty());
  EXPECT_EQ(c.set_bind_group, 3u);
  // B under key 3 at the third draw is one.
  EXPECT_TRUE(t.set_bind_group(1, &b, {}, Frequency::material, 3));
  EXPECT_KIND(t.draw(), Intruder);
}

TEST(RenderStateTracker, RenamingAGroupReportsItsIntruderUnderTheNewName) {
  // One report per (group, binding name): after describe_group gives group 1 a label, the same
  // change is a binding not reported yet.
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::report);
  std::vector<int> bgs(4);
  for (uint32_t i = 0; i < 2; ++i) {
    t.set_bind_group(1, &bgs[i], {}, Frequency::material, 0);
    t.draw();
  }
  t.describe_group(1, BindGroupLayoutDesc{"material", {}});
  for (uint32_t i = 2; i < 4; ++i) {
    t.set_bind_group(1, &bgs[i], {}, Frequency::material, 0);
    t.draw();
  }
  ASSERT_EQ(t.intruders().size(), 2u);
  EXPECT_EQ(t.intruders()[0].binding, "group 1");
  EXPECT_EQ(t.intruders()[1].binding, "material");
}

TEST(RenderStateTracker, ResetForgetsBoundStateButNotIntruders) {
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::report);
  int a = 0, b = 0, vb = 0;
  t.set_bind_group(0, &a, {}, Frequency::frame, 0);
  t.draw();
  t.set_bind_group(0, &b, {}, Frequency::frame, 0);
  t.draw();
  ASSERT_EQ(t.intruders().size(), 1u);
  t.set_vertex_buffer(3, &vb, 0, 64);
  t.reset();
  // After reset: nothing is skipped, and a change across the reset is no intruder.
  EXPECT_TRUE(t.set_bind_group(0, &a, {}, Frequency::frame, 0));
  EXPECT_TRUE(t.set_vertex_buffer(3, &vb, 0, 64));
  t.draw();
  EXPECT_EQ(t.intruders().size(), 1u);
  EXPECT_EQ(c.set_bind_group, 3u);
  EXPECT_EQ(c.set_vertex_buffer, 2u);
}

TEST(RenderPassState, NullEncoderIsInvalidArgument) {
  Counters c;
  try {
    RenderPassState state(nullptr, c);
    FAIL() << "expected InvalidArgument";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace bindery

namespace bindery {
namespace {

// Issue 18: with the device's limits the tracker checks the dynamic offset rules of setBindGroup
// (WebGPU §14.2.3; validation.hpp validate_dynamic_offsets) before anything is issued.
TEST(RenderStateTrackerDynamicOffsets, MisalignedOffsetIsRefusedWithLimitsAlone) {
  Limits limits = Limits::core_defaults();
  limits.minUniformBufferOffsetAlignment = 32;  // issue 18: offset 40, alignment 32
  limits.minStorageBufferOffsetAlignment = 32;
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error, &limits);
  int bg = 0;
  const uint32_t forty = 40, sixty_four = 64;
  EXPECT_KIND(t.set_bind_group(2, &bg, {&forty, 1}, Frequency::object, 0),
              DynamicOffsetAlignment);
  EXPECT_EQ(c.set_bind_group, 0u);  // nothing issued
  EXPECT_TRUE(t.set_bind_group(2, &bg, {&sixty_four, 1}, Frequency::object, 0));
  // The refusal changed nothing: 64 is still bound.
  EXPECT_KIND(t.set_bind_group(2, &bg, {&forty, 1}, Frequency::object, 1),
              DynamicOffsetAlignment);
  EXPECT_FALSE(t.set_bind_group(2, &bg, {&sixty_four, 1}, Frequency::object, 1));
  // Without limits nothing is known about alignment: the tracker lets it through.
  RenderStateTracker free(c, IntruderPolicy::error);
  EXPECT_TRUE(free.set_bind_group(2, &bg, {&forty, 1}, Frequency::object, 0));
}

TEST(RenderStateTrackerDynamicOffsets, DescribedGroupChecksCountAlignmentPerEntryAndWindows) {
  Limits limits = Limits::core_defaults();
  limits.minUniformBufferOffsetAlignment = 32;
  limits.minStorageBufferOffsetAlignment = 64;
  Counters c;
  RenderStateTracker t(c, IntruderPolicy::error, &limits);
  // Listed out of binding order: offsets apply to binding 1 (uniform), then binding 3 (storage).
  BindGroupLayoutDesc layout{"object", {}};
  BindingLayoutEntry storage{3, BindingKind::read_only_storage_buffer};
  storage.has_dynamic_offset = true;
  BindingLayoutEntry uniform{1, BindingKind::uniform_buffer};
  uniform.has_dynamic_offset = true;
  layout.entries = {storage, uniform};
  // Binding 1: a 256-byte window at 0 of a 1024-byte buffer (offsets up to 768);
  // binding 3: the whole of a 512-byte buffer from 256 (no offset but 0 fits).
  const BufferBindingWindow windows[] = {{1, 0, 256, 1024}, {3, 256, kWholeSize, 512}};
  t.describe_group(2, layout, windows);
  int bg = 0;
  auto set = [&](std::initializer_list<uint32_t> offsets) {
    const std::vector<uint32_t> v(offsets);
    return t.set_bind_group(2, &bg, v, Frequency::object, 0);
  };
  EXPECT_TRUE(set({768, 0}));                          // the last position that fits
  EXPECT_KIND(set({800, 0}), DynamicOffsetOutOfBounds);  // 800 + 256 > 1024 (800 = 25 x 32)
  EXPECT_KIND(set({40, 0}), DynamicOffsetAlignment);   // uniform: 32
  EXPECT_KIND(set({32, 32}), DynamicOffsetAlignment);  // storage: 64
  EXPECT_KIND(set({32, 64}), DynamicOffsetOutOfBounds);  // a whole-size window cannot move
  EXPECT_KIND(set({32}), DynamicOffsetCount);
  EXPECT_KIND(set({32, 0, 0}), DynamicOffsetCount);
  EXPECT_TRUE(set({32, 0}));
  EXPECT_EQ(c.set_bind_group, 2u);
  // A dynamic entry without a window is the caller's mistake.
  EXPECT_KIND(t.describe_group(1, layout, std::span<const BufferBindingWindow>(windows, 1)),
              InvalidArgument);
}

}  // namespace
}  // namespace bindery
