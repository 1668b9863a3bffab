// SPDX-License-Identifier: MIT
// Binding windows: arena_slot_layout() (buffer_arena.hpp), the one function that splits per-object
// arrays and arenas into buffers for both the renderer's arenas and the bind group planner, and
// the planner's counts for split arrays (shared/cases/inputs.md G15, G15b and relatives).
//
// Every expected value is worked out by hand next to it from the WebGPU spec defaults
// (maxStorageBufferBindingSize 134,217,728 = 2^27, maxUniformBufferBindingSize 65,536 = 2^16,
// maxBufferSize 268,435,456 = 2^28, min*BufferOffsetAlignment 256) and the rules:
//   array (instance_index):  per window floor(min(binding limit, maxBufferSize) / stride)
//   dynamic offset:          stride = element rounded up to the alignment; per buffer
//                            min(floor(maxBufferSize / stride), floor((2^32 - 1) / stride) + 1)
//   windows = ceil(objects / per window); objects take slots in draw order, so a group holding a
//   split member has one bind group (and one setBindGroup per pass, unless it is re-bound per
//   object anyway) per stretch between window boundaries.
#include "support/expect_kind.hpp"
#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/data/buffer_arena.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/data/storage_array.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace bindery {
namespace {

const Limits kDefaults = Limits::core_defaults();

SlotLayout array_layout(BindingKind kind, uint64_t element, const Limits& l = kDefaults,
                        uint64_t stride = 0) {
  return arena_slot_layout({.kind = kind,
                            .addressing = SlotAddressing::array_index,
                            .element_size_bytes = element,
                            .array_stride_bytes = stride},
                           l);
}
SlotLayout dynamic_layout(BindingKind kind, uint64_t element, const Limits& l = kDefaults) {
  return arena_slot_layout(
      {.kind = kind, .addressing = SlotAddressing::dynamic_offset, .element_size_bytes = element},
      l);
}

// ---------------------------------------------------------------- arena_slot_layout

TEST(ArenaSlotLayout, G15StorageArrayOf144ByteElements) {
  // floor(134,217,728 / 144) = 932,067 (932,067 x 144 = 134,217,648; one more = 134,217,792).
  const SlotLayout l = array_layout(BindingKind::read_only_storage_buffer, 144);
  EXPECT_EQ(l.stride, 144u);
  EXPECT_EQ(l.slots_per_chunk, 932067u);
  // 1,000,000 objects: 932,067 + 67,933; buffers 134,217,648 and 67,933 x 144 = 9,782,352 bytes.
  EXPECT_EQ(l.chunk_count(1000000), 2u);
  EXPECT_EQ(l.slots_in_chunk(1, 1000000), 67933u);
  EXPECT_EQ(l.chunk_size_bytes(0, 1000000), 134217648u);
  EXPECT_EQ(l.chunk_size_bytes(1, 1000000), 9782352u);
  // StorageArray's own builder is the same function.
  const SlotLayout s = storage_array_slot_layout(144, 0, kDefaults);
  EXPECT_EQ(s.slots_per_chunk, l.slots_per_chunk);
  EXPECT_EQ(s.stride, l.stride);
}

TEST(ArenaSlotLayout, ExactMultipleAndOneObjectOver) {
  // 128-byte elements: 2^27 / 2^7 = 2^20 = 1,048,576 per window, no remainder.
  const SlotLayout l = array_layout(BindingKind::read_only_storage_buffer, 128);
  EXPECT_EQ(l.slots_per_chunk, 1048576u);
  EXPECT_EQ(l.chunk_count(1048576), 1u);  // exactly one window, full to the byte
  EXPECT_EQ(l.chunk_size_bytes(0, 1048576), 134217728u);
  EXPECT_EQ(l.chunk_count(1048577), 2u);  // one object over: a second window of 1
  EXPECT_EQ(l.slots_in_chunk(1, 1048577), 1u);
  EXPECT_EQ(l.chunk_count(2097152), 2u);  // exactly two
  EXPECT_EQ(l.chunk_count(2097153), 3u);
}

TEST(ArenaSlotLayout, StorageArrayWindowBoundByASmallerMaxBufferSize) {
  // maxBufferSize 1,000,000 < maxStorageBufferBindingSize: floor(1,000,000 / 144) = 6,944
  // (6,944 x 144 = 999,936).
  Limits l = kDefaults;
  l.maxBufferSize = 1000000;
  EXPECT_EQ(array_layout(BindingKind::read_only_storage_buffer, 144, l).slots_per_chunk, 6944u);
}

TEST(ArenaSlotLayout, UniformArrayWindowsFollowMaxUniformBufferBindingSize) {
  // A uniform array indexed in the shader: floor(65,536 / 80) = 819 (819 x 80 = 65,520).
  const SlotLayout l = array_layout(BindingKind::uniform_buffer, 80);
  EXPECT_EQ(l.slots_per_chunk, 819u);
  EXPECT_EQ(l.chunk_count(1000), 2u);  // 819 + 181
  EXPECT_EQ(l.slots_in_chunk(1, 1000), 181u);
  // Compatibility mode, 16,384: floor(16,384 / 80) = 204; 1,000 = 4 x 204 + 184 -> 5 windows.
  const SlotLayout c =
      array_layout(BindingKind::uniform_buffer, 80, Limits::compatibility_defaults());
  EXPECT_EQ(c.slots_per_chunk, 204u);
  EXPECT_EQ(c.chunk_count(1000), 5u);
  EXPECT_EQ(c.slots_in_chunk(4, 1000), 184u);
  // 64-byte elements: 65,536 / 64 = 1,024 exactly; 2,048 -> 2 windows, 2,049 -> 3.
  const SlotLayout e = array_layout(BindingKind::uniform_buffer, 64);
  EXPECT_EQ(e.slots_per_chunk, 1024u);
  EXPECT_EQ(e.chunk_count(2048), 2u);
  EXPECT_EQ(e.chunk_count(2049), 3u);
  // An array stride larger than the element (a vec3 padded to 16): 12-byte element, stride 16.
  EXPECT_EQ(array_layout(BindingKind::uniform_buffer, 12, kDefaults, 16).slots_per_chunk, 4096u);
}

TEST(ArenaSlotLayout, G15bDynamicUniformArenaOf256ByteSlots) {
  // 268,435,456 / 256 = 1,048,576 slots per buffer; 2,000,000 -> 2 buffers (1,048,576 + 951,424).
  const SlotLayout l = dynamic_layout(BindingKind::uniform_buffer, 256);
  EXPECT_EQ(l.stride, 256u);
  EXPECT_EQ(l.slots_per_chunk, 1048576u);
  EXPECT_EQ(l.chunk_count(2000000), 2u);
  EXPECT_EQ(l.slots_in_chunk(1, 2000000), 951424u);
  // DynamicUniformBuffer's own builder is the same function.
  EXPECT_EQ(dynamic_uniform_slot_layout(256, kDefaults).slots_per_chunk, l.slots_per_chunk);
  // An 80-byte element takes a 256-byte slot: the same 1,048,576 per buffer (seed 002).
  EXPECT_EQ(dynamic_layout(BindingKind::uniform_buffer, 80).stride, 256u);
  EXPECT_EQ(dynamic_layout(BindingKind::uniform_buffer, 80).slots_per_chunk, 1048576u);
}

TEST(ArenaSlotLayout, DynamicOffsetReachIsAUint32) {
  // maxBufferSize 16 GiB: by buffer 2^34 / 2^8 = 67,108,864, but a uint32 offset reaches slot
  // floor((2^32 - 1) / 256) = 16,777,215 at most, so 16,777,216 slots (0 .. 16,777,215).
  Limits l = kDefaults;
  l.maxBufferSize = uint64_t(16) << 30;
  EXPECT_EQ(dynamic_layout(BindingKind::uniform_buffer, 256, l).slots_per_chunk, 16777216u);
  // 600 bytes -> stride 768: floor(4,294,967,295 / 768) = 5,592,405 (768 x 5,592,405 =
  // 4,294,967,040 <= 2^32 - 1), so 5,592,406 slots; by buffer it would be 22,369,621.
  const SlotLayout w = dynamic_layout(BindingKind::uniform_buffer, 600, l);
  EXPECT_EQ(w.stride, 768u);
  EXPECT_EQ(w.slots_per_chunk, 5592406u);
  EXPECT_LE(w.offset_in_chunk(w.slots_per_chunk - 1), uint64_t(UINT32_MAX));
}

TEST(ArenaSlotLayout, DynamicStorageUsesTheStorageAlignmentAndLimit) {
  // 100 bytes at minStorageBufferOffsetAlignment 32: stride 128; 2^28 / 2^7 = 2,097,152.
  Limits l = kDefaults;
  l.minStorageBufferOffsetAlignment = 32;
  const SlotLayout s = dynamic_layout(BindingKind::read_only_storage_buffer, 100, l);
  EXPECT_EQ(s.stride, 128u);
  EXPECT_EQ(s.slots_per_chunk, 2097152u);
  // The uniform alignment stays 256 for a uniform of the same size.
  EXPECT_EQ(dynamic_layout(BindingKind::uniform_buffer, 100, l).stride, 256u);
}

TEST(ArenaSlotLayout, ElementsAtAndOverTheLimits) {
  // A dynamic uniform element of exactly maxUniformBufferBindingSize is allowed (window = 65,536
  // bytes, stride 65,536, 2^28 / 2^16 = 4,096 per buffer); one byte more is not.
  EXPECT_EQ(dynamic_layout(BindingKind::uniform_buffer, 65536).slots_per_chunk, 4096u);
  EXPECT_KIND(dynamic_layout(BindingKind::uniform_buffer, 65537), UniformBindingTooLarge);
  EXPECT_EQ(array_layout(BindingKind::uniform_buffer, 65536).slots_per_chunk, 1u);
  EXPECT_KIND(array_layout(BindingKind::uniform_buffer, 65540), UniformBindingTooLarge);
  EXPECT_EQ(array_layout(BindingKind::storage_buffer, 134217728).slots_per_chunk, 1u);
  EXPECT_KIND(array_layout(BindingKind::storage_buffer, 134217732), StorageBindingTooLarge);
  EXPECT_KIND(dynamic_layout(BindingKind::storage_buffer, 134217732), StorageBindingTooLarge);
  // maxBufferSize smaller than one slot.
  Limits small = kDefaults;
  small.maxBufferSize = 200;
  EXPECT_KIND(dynamic_layout(BindingKind::uniform_buffer, 128, small), BufferTooLarge);  // 256
  EXPECT_KIND(array_layout(BindingKind::read_only_storage_buffer, 204, small), BufferTooLarge);
  EXPECT_EQ(array_layout(BindingKind::read_only_storage_buffer, 200, small).slots_per_chunk, 1u);
  // Malformed requests.
  EXPECT_KIND(array_layout(BindingKind::sampled_texture, 16), InvalidArgument);
  EXPECT_KIND(array_layout(BindingKind::storage_buffer, 0), InvalidArgument);
  EXPECT_KIND(dynamic_layout(BindingKind::uniform_buffer, 0), InvalidArgument);
  EXPECT_KIND(array_layout(BindingKind::storage_buffer, 16, kDefaults, 8), InvalidArgument);
  EXPECT_KIND(array_layout(BindingKind::storage_buffer, 6), InvalidArgument);  // stride 6
  Limits odd = kDefaults;
  odd.minUniformBufferOffsetAlignment = 48;
  EXPECT_KIND(dynamic_layout(BindingKind::uniform_buffer, 16, odd), NotPowerOfTwo);
}

// ---------------------------------------------------------------- the planner

BindingSpec buffer(std::string name, uint64_t size, Frequency f,
                   BindingKind kind = BindingKind::uniform_buffer) {
  BindingSpec b;
  b.name = std::move(name);
  b.kind = kind;
  b.size_bytes = size;
  b.frequency = f;
  return b;
}

const PlannedBinding& find(const BindGroupPlan& plan, const std::string& name) {
  auto it = std::find_if(plan.bindings.begin(), plan.bindings.end(),
                         [&](const PlannedBinding& b) { return b.spec.name == name; });
  EXPECT_NE(it, plan.bindings.end()) << name;
  return *it;
}

/// shared/cases/inputs/G15: camera (frame), material (material), object 144 bytes per object as
/// an instance_index storage array.
PlanInput g15(uint64_t objects) {
  PlanInput in;
  in.bindings = {buffer("camera", 80, Frequency::frame),
                 buffer("material", 32, Frequency::material),
                 buffer("object", 144, Frequency::object)};
  in.stats = {objects, 10, 1, DrawOrderKind::material};
  in.options.object_data = ObjectData::storage_buffer;
  return in;
}

TEST(PlanWindows, G15StorageArraySplitsIntoTwoWindows) {
  const BindGroupPlan plan = plan_bind_groups(g15(1000000));
  const PlannedBinding& object = find(plan, "object");
  EXPECT_TRUE(object.instance_indexed);
  EXPECT_EQ(object.stride_bytes, 144u);
  EXPECT_EQ(object.objects_per_window, 932067u);
  EXPECT_EQ(object.windows, 2u);
  // The array joins the frame group (group 0, with camera): 2 bind groups, 2 setBindGroup per
  // pass; the material group 10 and 10. Totals 12 and 12.
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(object.group, 0u);
  EXPECT_EQ(plan.groups[0].windows, 2u);
  EXPECT_EQ(plan.groups[0].bind_groups_created, 2u);
  EXPECT_EQ(plan.groups[0].set_bind_group_per_pass, 2u);
  EXPECT_EQ(plan.groups[1].bind_groups_created, 10u);
  EXPECT_EQ(plan.set_bind_group_per_pass, 12u);
  EXPECT_EQ(plan.bind_groups_created, 12u);
  // One reason for the move, one for the split.
  EXPECT_EQ(plan.reasons.size(), 2u);
}

TEST(PlanWindows, G15RelativesAtTheWindowEdges) {
  // 932,067 objects: one full window, bound once.
  BindGroupPlan p = plan_bind_groups(g15(932067));
  EXPECT_EQ(find(p, "object").windows, 1u);
  EXPECT_EQ(p.groups[0].set_bind_group_per_pass, 1u);
  EXPECT_EQ(p.groups[0].bind_groups_created, 1u);
  EXPECT_EQ(p.reasons.size(), 1u);  // the move only
  // One object over: 2 windows.
  p = plan_bind_groups(g15(932068));
  EXPECT_EQ(find(p, "object").windows, 2u);
  EXPECT_EQ(p.groups[0].set_bind_group_per_pass, 2u);
  // Exactly 2 x 932,067 = 1,864,134: 2 windows; one more: 3.
  EXPECT_EQ(find(plan_bind_groups(g15(1864134)), "object").windows, 2u);
  p = plan_bind_groups(g15(1864135));
  EXPECT_EQ(find(p, "object").windows, 3u);
  EXPECT_EQ(p.groups[0].bind_groups_created, 3u);
  EXPECT_EQ(p.groups[0].set_bind_group_per_pass, 3u);
  // Three passes: the frame group is set once per pass per window: 2 x 3 = 6 per frame from it.
  PlanInput in = g15(1000000);
  in.stats.passes = 3;
  p = plan_bind_groups(in);
  EXPECT_EQ(p.groups[0].set_bind_group_per_pass, 2u);
  EXPECT_EQ(p.groups[0].bind_groups_created, 2u);  // frame data: the same bind groups every pass
  EXPECT_EQ(p.set_bind_group_per_frame, 3u * (2 + 10));
}

TEST(PlanWindows, G15bDynamicArenaNeedsTwoBuffers) {
  PlanInput in;
  in.bindings = {buffer("camera", 80, Frequency::frame),
                 buffer("material", 32, Frequency::material),
                 buffer("object", 256, Frequency::object)};
  in.stats = {2000000, 10, 1, DrawOrderKind::material};
  const BindGroupPlan plan = plan_bind_groups(in);
  const PlannedBinding& object = find(plan, "object");
  EXPECT_TRUE(object.has_dynamic_offset);
  EXPECT_EQ(object.stride_bytes, 256u);
  EXPECT_EQ(object.objects_per_window, 1048576u);
  EXPECT_EQ(object.windows, 2u);
  ASSERT_EQ(plan.groups.size(), 3u);
  // The object group: 2 bind groups (one per buffer); set on every draw anyway (2,000,000).
  EXPECT_EQ(plan.groups[2].bind_groups_created, 2u);
  EXPECT_EQ(plan.groups[2].set_bind_group_per_pass, 2000000u);
  EXPECT_EQ(plan.bind_groups_created, 1u + 10 + 2);
  EXPECT_EQ(plan.set_bind_group_per_pass, 1u + 10 + 2000000);
}

TEST(PlanWindows, DynamicArenaWithASmallMaxBufferSize) {
  // maxBufferSize 4,096 and 256-byte slots: 16 per buffer. C01's 12 objects: one buffer; 40
  // objects: 16 + 16 + 8 = 3 buffers, 3 bind groups for the object group.
  PlanInput in;
  in.bindings = {buffer("camera", 80, Frequency::frame), buffer("object", 200, Frequency::object)};
  in.stats = {12, 1, 1, DrawOrderKind::material};
  in.limits.maxBufferSize = 4096;
  BindGroupPlan p = plan_bind_groups(in);
  EXPECT_EQ(find(p, "object").windows, 1u);
  EXPECT_EQ(p.groups[1].bind_groups_created, 1u);
  in.stats.objects = 40;
  p = plan_bind_groups(in);
  EXPECT_EQ(find(p, "object").objects_per_window, 16u);
  EXPECT_EQ(find(p, "object").windows, 3u);
  EXPECT_EQ(p.groups[1].bind_groups_created, 3u);
  EXPECT_EQ(p.groups[1].set_bind_group_per_pass, 40u);
  // minUniformBufferOffsetAlignment 64: stride 256 still (200 -> 256); at 8: 200 -> 200, so
  // floor(4,096 / 200) = 20 per buffer, 40 objects -> exactly 2.
  in.limits.minUniformBufferOffsetAlignment = 8;
  p = plan_bind_groups(in);
  EXPECT_EQ(find(p, "object").stride_bytes, 200u);
  EXPECT_EQ(find(p, "object").windows, 2u);
  EXPECT_EQ(p.groups[1].bind_groups_created, 2u);
}

TEST(PlanWindows, DynamicUniformElementAtMaxUniformBufferBindingSize) {
  // maxUniformBufferBindingSize 4,096 and a 4,096-byte per-object uniform: allowed, stride 4,096,
  // 2^28 / 2^12 = 65,536 per buffer; 100,000 objects -> 2 buffers.
  PlanInput in;
  in.bindings = {buffer("object", 4096, Frequency::object)};
  in.stats = {100000, 1, 1, DrawOrderKind::material};
  in.limits.maxUniformBufferBindingSize = 4096;
  BindGroupPlan p = plan_bind_groups(in);
  EXPECT_EQ(find(p, "object").objects_per_window, 65536u);
  EXPECT_EQ(find(p, "object").windows, 2u);
  // 4,100 bytes: over the limit, an error naming the limit's kind.
  in.bindings[0].size_bytes = 4100;
  EXPECT_KIND(plan_bind_groups(in), UniformBindingTooLarge);
}

TEST(PlanWindows, SeveralSplitArraysInOneGroupCountTheUnionOfBoundaries) {
  // 3,000,000 objects, two per-object arrays in the frame group: 'a' 144 bytes (932,067 per
  // window: boundaries at 932,067, 1,864,134, 2,796,201) and 'b' 64 bytes (2^27 / 2^6 =
  // 2,097,152: boundary at 2,097,152). 4 distinct boundaries -> 5 stretches: 5 bind groups and
  // 5 setBindGroup per pass.
  PlanInput in;
  in.bindings = {buffer("camera", 80, Frequency::frame), buffer("a", 144, Frequency::object),
                 buffer("b", 64, Frequency::object)};
  in.stats = {3000000, 1, 1, DrawOrderKind::material};
  in.options.object_data = ObjectData::storage_buffer;
  BindGroupPlan p = plan_bind_groups(in);
  EXPECT_EQ(find(p, "a").windows, 4u);
  EXPECT_EQ(find(p, "b").windows, 2u);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].windows, 5u);
  EXPECT_EQ(p.groups[0].bind_groups_created, 5u);
  EXPECT_EQ(p.groups[0].set_bind_group_per_pass, 5u);
  // 128 and 64 bytes: boundaries 1,048,576 and 2,097,152 for one, 2,097,152 for the other:
  // the shared boundary counts once -> 3 stretches.
  in.bindings[1].size_bytes = 128;
  p = plan_bind_groups(in);
  EXPECT_EQ(p.groups[0].windows, 3u);
  EXPECT_EQ(p.groups[0].bind_groups_created, 3u);
}

TEST(PlanWindows, WindowsInsideAMaterialGroup) {
  // maxBindGroups 1 merges everything into one group: camera, material (10 materials) and the
  // G15 array. Sorted by material, each material's 100,000 objects are consecutive slots; the
  // window boundary at slot 932,067 falls inside material 9's run (900,000 .. 999,999) and splits
  // it: 10 + 1 = 11 stretches, 11 bind groups and 11 setBindGroup per pass.
  PlanInput in = g15(1000000);
  in.limits.maxBindGroups = 1;
  const BindGroupPlan p = plan_bind_groups(in);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].windows, 2u);
  EXPECT_EQ(p.groups[0].bind_groups_created, 11u);
  EXPECT_EQ(p.groups[0].set_bind_group_per_pass, 11u);
}

TEST(PlanWindows, BuffersOverMaxBufferSizeAreErrors) {
  // A frame uniform of 2,048 bytes with maxBufferSize 1,024: one buffer cannot hold it.
  PlanInput in;
  in.bindings = {buffer("camera", 2048, Frequency::frame)};
  in.stats = {1, 1, 1, DrawOrderKind::material};
  in.limits.maxBufferSize = 1024;
  EXPECT_KIND(plan_bind_groups(in), BufferTooLarge);
  // A dynamic-offset slot (256) larger than maxBufferSize (128).
  in.bindings = {buffer("object", 64, Frequency::object)};
  in.limits.maxBufferSize = 128;
  EXPECT_KIND(plan_bind_groups(in), BufferTooLarge);
}

TEST(PlanWindows, JsonCarriesWindows) {
  const auto j = nlohmann::json::parse(plan_bind_groups(g15(1000000)).to_json());
  EXPECT_EQ(j["groups"][0]["windows"], 2);
  EXPECT_EQ(j["groups"][1]["windows"], 1);
  const auto& object = j["groups"][0]["bindings"][1];
  EXPECT_EQ(object["name"], "object");
  EXPECT_EQ(object["stride"], 144);
  EXPECT_EQ(object["objects_per_window"], 932067);
  EXPECT_EQ(object["windows"], 2);
}

}  // namespace
}  // namespace bindery
