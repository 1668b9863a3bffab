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
#include "bindery/draw_list.hpp"
#include "bindery/error.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>

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
    calls.made[1] += t.set_bind_group(1, &h.materials[item.material], {}, Frequency::material,
                                      item.material);
    if (dynamic) {
      const uint32_t offset = item.object_slot * 256;
      const bool made = t.set_bind_group(2, &h.object_dynamic, {&offset, 1}, Frequency::object,
                                         item.object_slot);
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
