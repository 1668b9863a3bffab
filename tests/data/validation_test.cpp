// SPDX-License-Identifier: MIT
// The CPU-side WebGPU binding rules (validation.hpp), driven by the D, M, W, B, U and C cases of
// shared/cases/layout.md. Expected outcomes are the cases' (worked out from the spec); tests
// assert error KINDS, never message text.
#include "support/expect_kind.hpp"
#include "bindery/data/validation.hpp"

#include "bindery/data/dynamic_uniform_buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bindery {
namespace {


constexpr uint32_t kVF = kStageVertex | kStageFragment;

BindingLayoutEntry uniform(uint32_t binding, bool dynamic, uint32_t visibility = kVF) {
  BindingLayoutEntry e;
  e.binding = binding;
  e.kind = BindingKind::uniform_buffer;
  e.visibility = visibility;
  e.has_dynamic_offset = dynamic;
  return e;
}

BindingLayoutEntry entry(uint32_t binding, BindingKind kind, uint32_t visibility,
                         bool dynamic = false) {
  BindingLayoutEntry e;
  e.binding = binding;
  e.kind = kind;
  e.visibility = visibility;
  e.has_dynamic_offset = dynamic;
  return e;
}

// n entries of one kind, binding numbers first..first+n-1.
BindGroupLayoutDesc group_of(uint32_t n, BindingKind kind, uint32_t visibility, bool dynamic,
                             uint32_t first = 0) {
  BindGroupLayoutDesc g;
  for (uint32_t i = 0; i < n; ++i) g.entries.push_back(entry(first + i, kind, visibility, dynamic));
  return g;
}

Limits uniform_alignment(uint32_t a) {
  Limits l = Limits::core_defaults();
  l.minUniformBufferOffsetAlignment = a;
  return l;
}

const Limits kDefaults = Limits::core_defaults();

// ------------------------------------------------ dynamic offsets (D01, D02, D05, D06)

TEST(DynamicOffsets, D01_OffsetNotAMultipleOfTheAlignment) {
  BindGroupLayoutDesc g{"model", {uniform(0, true, kStageVertex)}};
  const std::vector<uint32_t> offsets{64};
  const std::vector<BufferBindingWindow> win{{0, 0, 64, 1088}};
  // minUniformBufferOffsetAlignment 256: 64 is rejected.
  EXPECT_KIND(validate_dynamic_offsets(1, g, offsets, win, kDefaults), DynamicOffsetAlignment);
  // Per-object stride 256: offsets 0, 256, 512, 768, 1024 pass; buffer 1024 + 64 = 1088.
  for (uint32_t off : {0u, 256u, 512u, 768u, 1024u}) {
    const std::vector<uint32_t> o{off};
    EXPECT_NO_THROW(validate_dynamic_offsets(1, g, o, win, kDefaults)) << off;
  }
  // Device created with alignment 64: stride 64, offsets up to 256, buffer >= 256 + 64 = 320.
  const std::vector<BufferBindingWindow> small{{0, 0, 64, 320}};
  const std::vector<uint32_t> last{256};
  EXPECT_NO_THROW(validate_dynamic_offsets(1, g, last, small, uniform_alignment(64)));
  const std::vector<BufferBindingWindow> too_small{{0, 0, 64, 319}};
  EXPECT_KIND(validate_dynamic_offsets(1, g, last, too_small, uniform_alignment(64)),
              DynamicOffsetOutOfBounds);
}

TEST(DynamicOffsets, D02_ValidationUsesTheDeviceLimitNotTheAdapters) {
  // Adapter offers 64. Device alignment: (a) none requested -> 256, (b) 64, (c) 128.
  const uint32_t a = resolve_alignment_limit("minUniformBufferOffsetAlignment", std::nullopt, 64,
                                             kDefaults.minUniformBufferOffsetAlignment);
  const uint32_t b = resolve_alignment_limit("minUniformBufferOffsetAlignment", 64u, 64,
                                             kDefaults.minUniformBufferOffsetAlignment);
  const uint32_t c = resolve_alignment_limit("minUniformBufferOffsetAlignment", 128u, 64,
                                             kDefaults.minUniformBufferOffsetAlignment);
  EXPECT_EQ(a, 256u);
  EXPECT_EQ(b, 64u);
  EXPECT_EQ(c, 128u);
  // (d) 32 is better than the adapter's 64; (e) 48 is not a power of two.
  EXPECT_KIND(resolve_alignment_limit("minUniformBufferOffsetAlignment", 32u, 64, 256),
              DeviceCreation);
  EXPECT_KIND(resolve_alignment_limit("minUniformBufferOffsetAlignment", 48u, 64, 256),
              DeviceCreation);
  // A request worse than the default leaves the default.
  EXPECT_EQ(resolve_alignment_limit("minStorageBufferOffsetAlignment", 512u, 64, 256), 256u);

  // Offset 64 for a 96-byte object: (a) error, (b) ok, (c) error.
  BindGroupLayoutDesc g{"obj", {uniform(0, true)}};
  const std::vector<uint32_t> off{64};
  const std::vector<BufferBindingWindow> win{{0, 0, 96, 4096}};
  EXPECT_KIND(validate_dynamic_offsets(0, g, off, win, uniform_alignment(a)),
              DynamicOffsetAlignment);
  EXPECT_NO_THROW(validate_dynamic_offsets(0, g, off, win, uniform_alignment(b)));
  EXPECT_KIND(validate_dynamic_offsets(0, g, off, win, uniform_alignment(c)),
              DynamicOffsetAlignment);
}

// D05: entries listed 3 (dyn), 0 (dyn), 1 (static); offsets go by binding number.
BindGroupLayoutDesc d05_layout() {
  return {"d05", {uniform(3, true), uniform(0, true), uniform(1, false)}};
}

TEST(DynamicOffsets, D05_OffsetsFollowBindingNumberNotListingOrder) {
  const BindGroupLayoutDesc g = d05_layout();
  EXPECT_EQ(dynamic_binding_order(g), (std::vector<uint32_t>{0, 3}));
  // X (binding 3) >= 0 + 256 + 768 = 1024; Y (binding 0) >= 0 + 256 + 256 = 512.
  const std::vector<BufferBindingWindow> win{
      {3, 0, 256, 1024}, {0, 0, 256, 512}, {1, 512, 256, 768}};
  const std::vector<uint32_t> offsets{256, 768};
  const auto applied = validate_dynamic_offsets(0, g, offsets, win, kDefaults);
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(applied[0].binding, 0u);
  EXPECT_EQ(applied[0].dynamic_offset, 256u);  // Y at 256
  EXPECT_EQ(applied[1].binding, 3u);
  EXPECT_EQ(applied[1].dynamic_offset, 768u);  // X at 768
  // Z (static, offset 512 size 256) needs a buffer of at least 768: a createBindGroup check.
  EXPECT_EQ(validate_buffer_binding({1, BindingKind::uniform_buffer, 512, 256, 768}, kDefaults),
            256u);
  EXPECT_KIND(validate_buffer_binding({1, BindingKind::uniform_buffer, 512, 256, 767}, kDefaults),
              BindingOutOfBounds);
}

TEST(DynamicOffsets, D05_StrictBoundsOnEachBuffer) {
  const BindGroupLayoutDesc g = d05_layout();
  const std::vector<uint32_t> offsets{256, 768};
  const std::vector<BufferBindingWindow> x_short{
      {3, 0, 256, 1023}, {0, 0, 256, 512}, {1, 512, 256, 768}};
  EXPECT_KIND(validate_dynamic_offsets(0, g, offsets, x_short, kDefaults),
              DynamicOffsetOutOfBounds);
  const std::vector<BufferBindingWindow> y_short{
      {3, 0, 256, 1024}, {0, 0, 256, 511}, {1, 512, 256, 768}};
  EXPECT_KIND(validate_dynamic_offsets(0, g, offsets, y_short, kDefaults),
              DynamicOffsetOutOfBounds);
  // A caller assuming listing order passes [768, 256]: 768 lands on binding 0 (Y, 512 bytes).
  const std::vector<BufferBindingWindow> win{
      {3, 0, 256, 1024}, {0, 0, 256, 512}, {1, 512, 256, 768}};
  const std::vector<uint32_t> swapped{768, 256};
  EXPECT_KIND(validate_dynamic_offsets(0, g, swapped, win, kDefaults), DynamicOffsetOutOfBounds);
}

TEST(DynamicOffsets, StrictRuleNotTheLooserSpecText) {
  // Binding with the size omitted (whole buffer 1024 from offset 0), minBindingSize 256,
  // dynamic offset 256. Spec text: 0 + 256 + 256 <= 1024 would pass. Strict rule (Dawn, wgpu):
  // 0 + 1024 + 256 > 1024 -> error.
  BindingLayoutEntry e = uniform(0, true);
  e.min_binding_size = 256;
  BindGroupLayoutDesc g{"whole", {e}};
  const std::vector<uint32_t> off{256};
  const std::vector<BufferBindingWindow> whole{{0, 0, kWholeSize, 1024}};
  EXPECT_KIND(validate_dynamic_offsets(0, g, off, whole, kDefaults), DynamicOffsetOutOfBounds);
  // Seed 002: bind the ELEMENT (size 256), not the whole buffer, and the same offset is fine.
  const std::vector<BufferBindingWindow> element{{0, 0, 256, 1024}};
  EXPECT_NO_THROW(validate_dynamic_offsets(0, g, off, element, kDefaults));
  // Offset 0 with the whole buffer bound is in bounds.
  const std::vector<uint32_t> zero{0};
  EXPECT_NO_THROW(validate_dynamic_offsets(0, g, zero, whole, kDefaults));
  // Huge values do not wrap around.
  const std::vector<uint32_t> max_off{UINT32_MAX & ~255u};
  const std::vector<BufferBindingWindow> near_end{{0, UINT64_MAX - 512, 256, UINT64_MAX}};
  EXPECT_KIND(validate_dynamic_offsets(0, g, max_off, near_end, kDefaults),
              DynamicOffsetOutOfBounds);
}

TEST(DynamicOffsets, D06_CountMustMatchExactly) {
  BindGroupLayoutDesc g0{"g0", {uniform(0, true)}};
  BindGroupLayoutDesc g1{"g1", {uniform(0, true), uniform(1, false), uniform(2, true)}};
  const std::vector<BufferBindingWindow> none;
  const std::vector<uint32_t> one_256{256}, one_0{0}, two{0, 512}, three{0, 512, 1024};
  EXPECT_NO_THROW(validate_dynamic_offsets(0, g0, one_256, none, kDefaults));       // (1)
  EXPECT_KIND(validate_dynamic_offsets(1, g1, one_0, none, kDefaults), DynamicOffsetCount);  // (2)
  const auto applied = validate_dynamic_offsets(1, g1, two, none, kDefaults);      // (3)
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(applied[0].binding, 0u);
  EXPECT_EQ(applied[0].dynamic_offset, 0u);
  EXPECT_EQ(applied[1].binding, 2u);
  EXPECT_EQ(applied[1].dynamic_offset, 512u);
  EXPECT_KIND(validate_dynamic_offsets(1, g1, three, none, kDefaults), DynamicOffsetCount);  // (4)
  // No dynamic entries: exactly zero offsets.
  BindGroupLayoutDesc stat{"static", {uniform(0, false)}};
  EXPECT_NO_THROW(validate_dynamic_offsets(2, stat, {}, none, kDefaults));
  EXPECT_KIND(validate_dynamic_offsets(2, stat, one_0, none, kDefaults), DynamicOffsetCount);
}

TEST(DynamicOffsets, StorageOffsetsUseTheStorageAlignment) {
  Limits l = Limits::core_defaults();
  l.minUniformBufferOffsetAlignment = 64;
  l.minStorageBufferOffsetAlignment = 256;
  const std::vector<uint32_t> off{128};
  const std::vector<BufferBindingWindow> none;
  BindGroupLayoutDesc ro{"ro", {entry(0, BindingKind::read_only_storage_buffer, kVF, true)}};
  BindGroupLayoutDesc rw{"rw", {entry(0, BindingKind::storage_buffer, kStageCompute, true)}};
  BindGroupLayoutDesc un{"un", {uniform(0, true)}};
  EXPECT_KIND(validate_dynamic_offsets(0, ro, off, none, l), DynamicOffsetAlignment);
  EXPECT_KIND(validate_dynamic_offsets(0, rw, off, none, l), DynamicOffsetAlignment);
  EXPECT_NO_THROW(validate_dynamic_offsets(0, un, off, none, l));  // 128 is a multiple of 64
}

TEST(DynamicOffsets, MissingWindowIsAnError) {
  BindGroupLayoutDesc g{"g", {uniform(0, true), uniform(1, true)}};
  const std::vector<uint32_t> off{0, 0};
  const std::vector<BufferBindingWindow> only0{{0, 0, 256, 256}};
  EXPECT_KIND(validate_dynamic_offsets(0, g, off, only0, kDefaults), InvalidArgument);
}

// ---------------------------------------------------------------- layouts (M01, M03, rule 7)

TEST(PipelineLayout, M01_DynamicUniformBuffersSummedOverGroups) {
  const BindGroupLayoutDesc bgl0 = group_of(3, BindingKind::uniform_buffer, kVF, true);
  const BindGroupLayoutDesc bgl1 = group_of(6, BindingKind::uniform_buffer, kStageFragment, true);
  EXPECT_NO_THROW(validate_bind_group_layout(bgl0, kDefaults));  // 3 <= 8
  EXPECT_NO_THROW(validate_bind_group_layout(bgl1, kDefaults));  // 6 <= 8
  const std::vector<BindGroupLayoutDesc> nine{bgl0, bgl1};
  const BindingUsage u9 = count_binding_usage(nine);
  EXPECT_EQ(u9.dynamic_uniform_buffers, 9u);  // BGL0 counts 3, not 6 (visibility does not multiply)
  EXPECT_EQ(u9.vertex.uniform_buffers, 3u);
  EXPECT_EQ(u9.fragment.uniform_buffers, 9u);
  EXPECT_KIND(validate_pipeline_layout(nine, kDefaults), TooManyDynamicUniformBuffers);

  const std::vector<BindGroupLayoutDesc> eight{
      bgl0, group_of(5, BindingKind::uniform_buffer, kStageFragment, true)};
  const BindingUsage u8 = validate_pipeline_layout(eight, kDefaults);
  EXPECT_EQ(u8.dynamic_uniform_buffers, 8u);
  EXPECT_EQ(u8.vertex.uniform_buffers, 3u);
  EXPECT_EQ(u8.fragment.uniform_buffers, 8u);
}

BindGroupLayoutDesc m03_layout(uint32_t lights) {
  // K = 3 engine uniform buffers + L per-light uniform buffers, all VERTEX|FRAGMENT.
  return group_of(3 + lights, BindingKind::uniform_buffer, kVF, false);
}

TEST(BindGroupLayout, M03_UniformBuffersPerStage) {
  EXPECT_KIND(validate_bind_group_layout(m03_layout(10), kDefaults),
              TooManyUniformBuffersPerStage);  // 13 > 12
  EXPECT_NO_THROW(validate_bind_group_layout(m03_layout(9), kDefaults));  // 12: max lights 9
  const std::vector<BindGroupLayoutDesc> one{m03_layout(10)};
  EXPECT_KIND(validate_pipeline_layout(one, kDefaults), TooManyUniformBuffersPerStage);
}

TEST(PipelineLayout, PerStageCountsAreSummedOverGroups) {
  // 7 + 6 vertex uniform buffers: each group alone is fine, the pipeline layout has 13 > 12.
  const std::vector<BindGroupLayoutDesc> groups{
      group_of(7, BindingKind::uniform_buffer, kStageVertex, false),
      group_of(6, BindingKind::uniform_buffer, kStageVertex, false)};
  EXPECT_NO_THROW(validate_bind_group_layout(groups[0], kDefaults));
  EXPECT_NO_THROW(validate_bind_group_layout(groups[1], kDefaults));
  EXPECT_KIND(validate_pipeline_layout(groups, kDefaults), TooManyUniformBuffersPerStage);
  // 12 in vertex and 12 in fragment are separate budgets.
  const std::vector<BindGroupLayoutDesc> split{
      group_of(12, BindingKind::uniform_buffer, kStageVertex, false),
      group_of(12, BindingKind::uniform_buffer, kStageFragment, false)};
  EXPECT_NO_THROW(validate_pipeline_layout(split, kDefaults));
}

TEST(PipelineLayout, DynamicStorageCountsReadOnlyToo) {
  // 3 dynamic "storage" (compute) + 2 dynamic "read-only-storage" = 5 > 4.
  const std::vector<BindGroupLayoutDesc> five{
      group_of(3, BindingKind::storage_buffer, kStageCompute, true),
      group_of(2, BindingKind::read_only_storage_buffer, kStageCompute, true)};
  EXPECT_EQ(count_binding_usage(five).dynamic_storage_buffers, 5u);
  EXPECT_KIND(validate_pipeline_layout(five, kDefaults), TooManyDynamicStorageBuffers);
  const std::vector<BindGroupLayoutDesc> four{
      group_of(3, BindingKind::storage_buffer, kStageCompute, true),
      group_of(1, BindingKind::read_only_storage_buffer, kStageCompute, true)};
  EXPECT_NO_THROW(validate_pipeline_layout(four, kDefaults));
  // Within one group: 5 dynamic read-only storage buffers already fail createBindGroupLayout.
  EXPECT_KIND(validate_bind_group_layout(
                  group_of(5, BindingKind::read_only_storage_buffer, kStageCompute, true),
                  kDefaults),
              TooManyDynamicStorageBuffers);
}

TEST(PipelineLayout, GroupCountAtMostMaxBindGroups) {
  const BindGroupLayoutDesc g = group_of(1, BindingKind::uniform_buffer, kVF, false);
  const std::vector<BindGroupLayoutDesc> four(4, g), five(5, g);
  EXPECT_NO_THROW(validate_pipeline_layout(four, kDefaults));  // group indices 0..3
  EXPECT_KIND(validate_pipeline_layout(five, kDefaults), TooManyBindGroups);
}

TEST(PipelineLayout, C01_FrequencyGroupsFitTheBudget) {
  // Group 0 = frame, group 1 = material, group 2 = object (one dynamic uniform, stride 256).
  const std::vector<BindGroupLayoutDesc> groups{
      {"frame", {uniform(0, false)}},
      {"material", {uniform(0, false, kStageFragment),
                    entry(1, BindingKind::sampled_texture, kStageFragment),
                    entry(2, BindingKind::sampler, kStageFragment)}},
      {"object", {uniform(0, true, kStageVertex)}}};
  const BindingUsage u = validate_pipeline_layout(groups, kDefaults);
  EXPECT_EQ(u.dynamic_uniform_buffers, 1u);  // 1 <= 8
  // The 12 object slots at stride 256 (binding size 256) take offsets 0, 256, ..., 2816.
  const SlotLayout sl = dynamic_uniform_slot_layout(256, kDefaults);
  EXPECT_EQ(sl.offset_in_chunk(0), 0u);
  EXPECT_EQ(sl.offset_in_chunk(1), 256u);
  EXPECT_EQ(sl.offset_in_chunk(11), 2816u);
}

TEST(BindGroupLayout, ReadWriteStorageNotVisibleToVertex) {
  BindGroupLayoutDesc rw_vertex{"rw", {entry(0, BindingKind::storage_buffer, kVF)}};
  EXPECT_KIND(validate_bind_group_layout(rw_vertex, kDefaults), StorageVisibleToVertex);
  BindGroupLayoutDesc ro_vertex{"ro", {entry(0, BindingKind::read_only_storage_buffer, kVF)}};
  EXPECT_NO_THROW(validate_bind_group_layout(ro_vertex, kDefaults));
  BindGroupLayoutDesc rw_fc{
      "rw", {entry(0, BindingKind::storage_buffer, kStageFragment | kStageCompute)}};
  EXPECT_NO_THROW(validate_bind_group_layout(rw_fc, kDefaults));
}

TEST(BindGroupLayout, BindingNumberBelowMaxBindingsPerBindGroup) {
  BindGroupLayoutDesc ok{"ok", {uniform(999, false)}};
  BindGroupLayoutDesc bad{"bad", {uniform(1000, false)}};
  EXPECT_NO_THROW(validate_bind_group_layout(ok, kDefaults));
  EXPECT_KIND(validate_bind_group_layout(bad, kDefaults), BindingNumberTooLarge);
}

TEST(BindGroupLayout, MalformedEntries) {
  BindGroupLayoutDesc dup{"dup", {uniform(1, false), uniform(1, false)}};
  EXPECT_KIND(validate_bind_group_layout(dup, kDefaults), InvalidArgument);
  BindGroupLayoutDesc dyn_sampler{"s", {entry(0, BindingKind::sampler, kVF, true)}};
  EXPECT_KIND(validate_bind_group_layout(dyn_sampler, kDefaults), InvalidArgument);
  BindGroupLayoutDesc bad_vis{"v", {uniform(0, false, 0x8)}};
  EXPECT_KIND(validate_bind_group_layout(bad_vis, kDefaults), InvalidArgument);
}

TEST(BindGroupLayout, TexturesSamplersAndStoragePerStage) {
  EXPECT_NO_THROW(validate_bind_group_layout(
      group_of(16, BindingKind::sampled_texture, kStageFragment, false), kDefaults));
  EXPECT_KIND(validate_bind_group_layout(
                  group_of(17, BindingKind::sampled_texture, kStageFragment, false), kDefaults),
              TooManySampledTexturesPerStage);
  EXPECT_KIND(validate_bind_group_layout(group_of(17, BindingKind::sampler, kStageFragment, false),
                                         kDefaults),
              TooManySamplersPerStage);
  EXPECT_NO_THROW(validate_bind_group_layout(
      group_of(8, BindingKind::read_only_storage_buffer, kStageVertex, false), kDefaults));
  EXPECT_KIND(validate_bind_group_layout(
                  group_of(9, BindingKind::read_only_storage_buffer, kStageVertex, false),
                  kDefaults),
              TooManyStorageBuffersPerStage);
  // Compatibility mode allows only 4 storage buffers per stage.
  EXPECT_KIND(validate_bind_group_layout(
                  group_of(5, BindingKind::read_only_storage_buffer, kStageFragment, false),
                  Limits::compatibility_defaults()),
              TooManyStorageBuffersPerStage);
}

// ---------------------------------------------------------------- buffer bindings (M04, U01, B03)

BufferBindingDesc uniform_binding(uint64_t size) {
  BufferBindingDesc b;
  b.kind = BindingKind::uniform_buffer;
  b.size = size;
  b.buffer_size = size;
  return b;
}

TEST(BufferBinding, M04_UniformBindingSize) {
  // struct I { m: array<mat4x4<f32>, N> }: SizeOf = 64 × N.
  EXPECT_KIND(validate_buffer_binding(uniform_binding(64 * 10000), kDefaults),
              UniformBindingTooLarge);  // 640000 > 65536
  EXPECT_EQ(validate_buffer_binding(uniform_binding(64 * 1024), kDefaults), 65536u);
  EXPECT_KIND(validate_buffer_binding(uniform_binding(64 * 1025), kDefaults),
              UniformBindingTooLarge);  // 65600
  // Compatibility budget (16 KiB): max N = 256.
  const BufferBindingOptions compat{.compatibility_uniform_budget = true};
  EXPECT_EQ(validate_buffer_binding(uniform_binding(64 * 256), kDefaults, compat), 16384u);
  EXPECT_KIND(validate_buffer_binding(uniform_binding(64 * 257), kDefaults, compat),
              UniformBindingTooLarge);
  EXPECT_NO_THROW(validate_buffer_binding(uniform_binding(64 * 257), kDefaults));
  // Alternative: the same 640000 bytes as a storage binding (<= 134217728, multiple of 4).
  BufferBindingDesc s = uniform_binding(64 * 10000);
  s.kind = BindingKind::read_only_storage_buffer;
  EXPECT_EQ(validate_buffer_binding(s, kDefaults), 640000u);
  s.size = s.buffer_size = 134217728ull + 4;
  EXPECT_KIND(validate_buffer_binding(s, kDefaults), StorageBindingTooLarge);
}

TEST(BufferBinding, U01_StorageSizeMultipleOfFour) {
  BufferBindingDesc b;
  b.kind = BindingKind::read_only_storage_buffer;
  b.buffer_size = 16;
  b.shader_min_binding_size = 4;  // array<u32>: one element
  b.size = 4;
  EXPECT_EQ(validate_buffer_binding(b, kDefaults), 4u);
  b.size = 8;
  EXPECT_EQ(validate_buffer_binding(b, kDefaults), 8u);
  b.size = 10;
  EXPECT_KIND(validate_buffer_binding(b, kDefaults), BindingSizeAlignment);
}

TEST(BufferBinding, B03_BindingSmallerThanTheShadersStruct) {
  // struct Sc { a: mat4x4, b: mat4x4, l: vec3 }: SizeOf 144; the buffer was sized 140.
  BufferBindingDesc b = uniform_binding(kWholeSize);
  b.buffer_size = 140;
  b.shader_min_binding_size = 144;
  EXPECT_KIND(validate_buffer_binding(b, kDefaults), MinBindingSizeTooSmall);
  b.shader_min_binding_size = 0;
  b.layout_min_binding_size = 144;  // the layout declares minBindingSize 144
  EXPECT_KIND(validate_buffer_binding(b, kDefaults), MinBindingSizeTooSmall);
  b.buffer_size = 144;  // the correct size
  b.shader_min_binding_size = 144;
  EXPECT_EQ(validate_buffer_binding(b, kDefaults), 144u);
  // Pipeline creation: a layout minBindingSize below the shader's size is rejected, 0 defers.
  BindingLayoutEntry e = uniform(0, false);
  e.min_binding_size = 140;
  EXPECT_KIND(validate_min_binding_size(e, 144), MinBindingSizeTooSmall);
  e.min_binding_size = 144;
  EXPECT_NO_THROW(validate_min_binding_size(e, 144));
  e.min_binding_size = 0;
  EXPECT_NO_THROW(validate_min_binding_size(e, 144));
}

TEST(BufferBinding, OffsetAlignmentAndBounds) {
  BufferBindingDesc b = uniform_binding(256);
  b.buffer_size = 1024;
  b.offset = 128;
  EXPECT_KIND(validate_buffer_binding(b, kDefaults), BindingOffsetAlignment);
  EXPECT_NO_THROW(validate_buffer_binding(b, uniform_alignment(64)));
  b.offset = 768;
  EXPECT_EQ(validate_buffer_binding(b, kDefaults), 256u);
  b.offset = 1024;
  EXPECT_KIND(validate_buffer_binding(b, kDefaults), BindingOutOfBounds);
  b.offset = 2048;
  b.size = kWholeSize;
  EXPECT_KIND(validate_buffer_binding(b, kDefaults), BindingOutOfBounds);
  b.offset = 512;  // whole-size binding from 512: 512 bytes
  EXPECT_EQ(validate_buffer_binding(b, kDefaults), 512u);
  b.kind = BindingKind::sampler;
  EXPECT_KIND(validate_buffer_binding(b, kDefaults), InvalidArgument);
}

// ---------------------------------------------------------------- writeBuffer (W01)

TEST(WriteBuffer, W01_OffsetsAndSizesMultiplesOfFour) {
  const uint64_t buf = 8;                                            // 8-byte index buffer
  EXPECT_KIND(validate_write_buffer(0, 6, buf), WriteBufferAlignment);  // (a) three u16
  EXPECT_NO_THROW(validate_write_buffer(0, 8, buf));                 // (b) four u16
  EXPECT_NO_THROW(validate_write_buffer(0, 4, buf));                 // (c) 2 elements = 4 bytes
  EXPECT_KIND(validate_write_buffer(2, 4, buf), WriteBufferAlignment);  // (d) offset 2
  EXPECT_KIND(validate_write_buffer(4, 8, buf), WriteBufferOutOfBounds);  // (e) 4 + 8 > 8
  EXPECT_KIND(validate_write_buffer(UINT64_MAX - 3, 8, buf), WriteBufferOutOfBounds);
}

}  // namespace
}  // namespace bindery
