// SPDX-License-Identifier: MIT
// The CPU core of the per-draw data arenas: slot/chunk arithmetic, the shadow copy, dirty marks
// and upload ranges (dynamic_uniform_buffer.hpp), plus the frames-in-flight helper and seed 004's
// decision tree. No device. Expected values are hand calculations written next to them.
#include "support/expect_kind.hpp"
#include "bindery/data/data_placement.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/data/frames_in_flight.hpp"
#include "bindery/data/validation.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace bindery {
namespace {

const Limits kDefaults = Limits::core_defaults();

Limits small_buffers(uint64_t max_buffer_size) {
  Limits l = Limits::core_defaults();
  l.maxBufferSize = max_buffer_size;
  return l;
}

uint64_t total_bytes(const std::vector<UploadRange>& ranges) {
  uint64_t n = 0;
  for (const UploadRange& r : ranges) n += r.size;
  return n;
}

// ---------------------------------------------------------------- SlotLayout

TEST(SlotLayout, StrideFromTheDeviceLimit) {
  // Issue 4: 2000 objects of 128 bytes: stride 256 by default, 128 where the device allows less.
  const SlotLayout def = dynamic_uniform_slot_layout(128, kDefaults);
  EXPECT_EQ(def.stride, 256u);
  EXPECT_EQ(def.chunk_count(2000), 1u);
  EXPECT_EQ(def.chunk_size_bytes(0, 2000), 2000u * 256u);  // 512000 bytes
  Limits l = kDefaults;
  l.minUniformBufferOffsetAlignment = 64;
  const SlotLayout small = dynamic_uniform_slot_layout(128, l);
  EXPECT_EQ(small.stride, 128u);
  EXPECT_EQ(small.chunk_size_bytes(0, 2000), 2000u * 128u);
  // D01: 5 objects of 64 bytes at 256: last offset 1024; at 64: last offset 256.
  EXPECT_EQ(dynamic_uniform_slot_layout(64, kDefaults).offset_in_chunk(4), 1024u);
  l.minUniformBufferOffsetAlignment = 64;
  EXPECT_EQ(dynamic_uniform_slot_layout(64, l).offset_in_chunk(4), 256u);
}

TEST(SlotLayout, ChunksByMaxBufferSize) {
  // maxBufferSize 1024, stride 256 -> 4 slots per chunk; 10 slots -> chunks of 4, 4, 2.
  const SlotLayout sl = dynamic_uniform_slot_layout(128, small_buffers(1024));
  EXPECT_EQ(sl.slots_per_chunk, 4u);
  EXPECT_EQ(sl.chunk_count(10), 3u);
  EXPECT_EQ(sl.slots_in_chunk(0, 10), 4u);
  EXPECT_EQ(sl.slots_in_chunk(2, 10), 2u);
  EXPECT_EQ(sl.slots_in_chunk(3, 10), 0u);
  EXPECT_EQ(sl.chunk_size_bytes(1, 10), 1024u);
  EXPECT_EQ(sl.chunk_size_bytes(2, 10), 512u);
  EXPECT_EQ(sl.chunk_of(5), 1u);           // 5 / 4
  EXPECT_EQ(sl.offset_in_chunk(5), 256u);  // (5 % 4) × 256
  EXPECT_EQ(sl.chunk_count(0), 0u);
  // A maxBufferSize that is not a multiple of the stride: floor(1000 / 256) = 3.
  EXPECT_EQ(dynamic_uniform_slot_layout(128, small_buffers(1000)).slots_per_chunk, 3u);
}

TEST(SlotLayout, ChunksNeverPassWhatAUint32DynamicOffsetReaches) {
  // maxBufferSize 16 GiB, stride 256: a uint32_t offset reaches floor((2^32 - 1) / 256) = 16777215
  // slots past the first, so 16777216 slots per chunk; the last offset is 16777215 × 256
  // = 4294967040 <= 4294967295.
  const SlotLayout sl = dynamic_uniform_slot_layout(128, small_buffers(uint64_t(16) << 30));
  EXPECT_EQ(sl.slots_per_chunk, 16777216u);
  EXPECT_EQ(sl.offset_in_chunk(16777215u), 4294967040u);
  EXPECT_EQ(sl.chunk_of(16777216u), 1u);
}

TEST(SlotLayout, RejectsImpossibleElements) {
  EXPECT_KIND(dynamic_uniform_slot_layout(0, kDefaults), InvalidArgument);
  EXPECT_KIND(dynamic_uniform_slot_layout(65537, kDefaults), UniformBindingTooLarge);
  EXPECT_KIND(dynamic_uniform_slot_layout(128, small_buffers(128)), BufferTooLarge);  // 256 > 128
  Limits l = kDefaults;
  l.minUniformBufferOffsetAlignment = 96;
  EXPECT_KIND(dynamic_uniform_slot_layout(128, l), NotPowerOfTwo);
  EXPECT_KIND(SlotShadow(SlotLayout{128, 130, 4}, 1), InvalidArgument);  // stride not x4
  EXPECT_KIND(SlotShadow(SlotLayout{128, 64, 4}, 1), InvalidArgument);   // stride < element
}

// ---------------------------------------------------------------- SlotShadow

TEST(SlotShadow, StartsCleanAndZero) {
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 10);
  EXPECT_EQ(s.dirty_count(), 0u);
  EXPECT_TRUE(s.take_upload_ranges().empty());
  EXPECT_EQ(s.bytes().size(), 10u * 256u);
  for (std::byte b : s.bytes()) ASSERT_EQ(b, std::byte{0});
}

TEST(SlotShadow, WriteGoesToSlotTimesStride) {
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 4);
  std::vector<std::byte> v(128, std::byte{0xAB});
  s.write(3, v);
  EXPECT_TRUE(s.is_dirty(3));
  EXPECT_FALSE(s.is_dirty(2));
  EXPECT_EQ(s.bytes()[3 * 256], std::byte{0xAB});
  EXPECT_EQ(s.bytes()[3 * 256 + 127], std::byte{0xAB});
  EXPECT_EQ(s.bytes()[3 * 256 - 1], std::byte{0});  // slot 2's padding untouched
  const std::vector<std::byte> four(4, std::byte{0x11});
  s.write(1, four, 124);  // last 4 bytes of the element
  EXPECT_EQ(s.slot_data(1)[124], std::byte{0x11});
  EXPECT_EQ(s.slot_data(1).size(), 128u);
  EXPECT_KIND(s.write(1, four, 125), InvalidArgument);
  EXPECT_KIND(s.write(0, std::vector<std::byte>(129)), InvalidArgument);
  EXPECT_KIND(s.write(4, four), InvalidArgument);  // slot out of range
  EXPECT_KIND(s.mark_dirty(4), InvalidArgument);
  EXPECT_KIND(s.slot_data(100), InvalidArgument);
}

TEST(SlotShadow, MovingThreeOfTwoThousandUploadsThreeElements) {
  // Issue 4 "done when": 3 of 2000 128-byte objects move -> at most 3 strides uploaded.
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 2000);
  s.mark_dirty(1999);
  s.mark_dirty(10);
  s.mark_dirty(500);
  s.mark_dirty(10);  // twice counts once
  EXPECT_EQ(s.dirty_count(), 3u);
  const auto& r = s.take_upload_ranges();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].buffer_offset, 10u * 256u);    // 2560
  EXPECT_EQ(r[1].buffer_offset, 500u * 256u);   // 128000
  EXPECT_EQ(r[2].buffer_offset, 1999u * 256u);  // 511744
  for (const UploadRange& x : r) {
    EXPECT_EQ(x.size, 128u);
    EXPECT_EQ(x.chunk, 0u);
    EXPECT_EQ(x.shadow_offset, x.buffer_offset);
  }
  EXPECT_LE(total_bytes(r), 3u * 256u);
  EXPECT_EQ(s.dirty_count(), 0u);
  EXPECT_TRUE(s.take_upload_ranges().empty());  // marks cleared
}

TEST(SlotShadow, MarkDirtyRange) {
  // 2000 slots of 128 bytes at stride 256 (core default alignment).
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 2000);
  // Slots [10, 13) and 12 again: 3 dirty, one range of 3 slots = 2 x 256 + 128 = 640 bytes.
  s.mark_dirty_range(10, 13);
  s.mark_dirty(12);
  EXPECT_EQ(s.dirty_count(), 3u);
  EXPECT_TRUE(s.is_dirty(10) && s.is_dirty(12) && !s.is_dirty(13) && !s.is_dirty(9));
  {
    const auto& r = s.take_upload_ranges();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].buffer_offset, 10u * 256u);
    EXPECT_EQ(r[0].size, 640u);
  }
  // Every slot: the same as mark_all_dirty, one range of 1999 x 256 + 128 = 511,872 bytes.
  s.mark_dirty_range(0, 2000);
  EXPECT_EQ(s.dirty_count(), 2000u);
  {
    const auto& r = s.take_upload_ranges();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].buffer_offset, 0u);
    EXPECT_EQ(r[0].size, 1999u * 256u + 128u);
  }
  // An empty range marks nothing; a range past the slot count or reversed is refused.
  s.mark_dirty_range(7, 7);
  s.mark_dirty_range(2000, 2000);
  EXPECT_EQ(s.dirty_count(), 0u);
  EXPECT_KIND(s.mark_dirty_range(1990, 2001), InvalidArgument);
  EXPECT_KIND(s.mark_dirty_range(5, 4), InvalidArgument);
  EXPECT_EQ(s.dirty_count(), 0u);
}

TEST(SlotShadow, AdjacentSlotsCoalesce) {
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 100);
  for (uint32_t i : {6u, 4u, 5u, 20u}) s.mark_dirty(i);
  const auto& r = s.take_upload_ranges();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].buffer_offset, 4u * 256u);
  EXPECT_EQ(r[0].size, 2u * 256u + 128u);  // slots 4..6: two strides + one element = 640
  EXPECT_EQ(r[1].buffer_offset, 20u * 256u);
  EXPECT_EQ(r[1].size, 128u);
}

TEST(SlotShadow, MergeGapTradesBytesForCalls) {
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 100);
  s.mark_dirty(4);
  s.mark_dirty(6);
  EXPECT_EQ(s.take_upload_ranges().size(), 2u);  // gap of one clean slot: not merged by default
  s.mark_dirty(4);
  s.mark_dirty(6);
  const auto& r = s.take_upload_ranges(FlushPolicy{.merge_gap_slots = 1});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].buffer_offset, 1024u);
  EXPECT_EQ(r[0].size, 640u);  // 4..6
}

TEST(SlotShadow, MostSlotsDirtyGivesOneCoveringRange) {
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 2000);
  for (uint32_t i = 1; i < 1999; ++i) s.mark_dirty(i);  // all but 0 and 1999
  const auto& r = s.take_upload_ranges();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].buffer_offset, 256u);
  EXPECT_EQ(r[0].size, 1997u * 256u + 128u);  // slots 1..1998
}

TEST(SlotShadow, FullUploadThresholdIsTheFractionOfSlots) {
  // 10 slots, fraction 0.5: 5 dirty (0,2,4,6,8) -> one range 0..8; 4 dirty -> 4 ranges.
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 10);
  for (uint32_t i : {0u, 2u, 4u, 6u, 8u}) s.mark_dirty(i);
  const auto& one = s.take_upload_ranges();
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].buffer_offset, 0u);
  EXPECT_EQ(one[0].size, 8u * 256u + 128u);
  for (uint32_t i : {0u, 2u, 4u, 6u}) s.mark_dirty(i);
  EXPECT_EQ(s.take_upload_ranges().size(), 4u);
}

TEST(SlotShadow, MarkAllDirtyUploadsEveryChunkWhole) {
  // 4 slots per chunk, 10 slots: chunks of 1024, 1024 and 512 bytes; the last slot of each range
  // uploads its element (128 bytes), not its padding.
  SlotShadow s(dynamic_uniform_slot_layout(128, small_buffers(1024)), 10);
  s.mark_all_dirty();
  EXPECT_EQ(s.dirty_count(), 10u);
  const auto& r = s.take_upload_ranges();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].chunk, 0u);
  EXPECT_EQ(r[0].size, 3u * 256u + 128u);
  EXPECT_EQ(r[1].chunk, 1u);
  EXPECT_EQ(r[1].buffer_offset, 0u);
  EXPECT_EQ(r[1].shadow_offset, 1024u);
  EXPECT_EQ(r[2].chunk, 2u);
  EXPECT_EQ(r[2].size, 256u + 128u);
  EXPECT_EQ(r[2].shadow_offset, 2048u);
}

TEST(SlotShadow, RangesNeverCrossAChunk) {
  // Slots 3 and 4 are adjacent but 3 ends chunk 0 and 4 starts chunk 1.
  SlotShadow s(dynamic_uniform_slot_layout(128, small_buffers(1024)), 10);
  s.mark_dirty(3);
  s.mark_dirty(4);
  const auto& r = s.take_upload_ranges(FlushPolicy{.full_upload_fraction = 0.9});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].chunk, 0u);
  EXPECT_EQ(r[0].buffer_offset, 768u);
  EXPECT_EQ(r[1].chunk, 1u);
  EXPECT_EQ(r[1].buffer_offset, 0u);
  EXPECT_EQ(r[1].shadow_offset, 1024u);
}

TEST(SlotShadow, ElementNotAMultipleOfFourUploadsWholeWords) {
  // A 6-byte element (vec3<f16>): each upload is rounded to 8 bytes, still inside the stride.
  SlotShadow s(dynamic_uniform_slot_layout(6, kDefaults), 3);
  s.mark_dirty(2);
  const auto& r = s.take_upload_ranges();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].size, 8u);
  EXPECT_EQ(r[0].buffer_offset, 512u);
}

TEST(SlotShadow, GrowthKeepsDataAndMarksRecreatedChunks) {
  SlotShadow s(dynamic_uniform_slot_layout(128, kDefaults), 3);
  const std::vector<std::byte> v(128, std::byte{7});
  s.write(1, v);
  (void)s.take_upload_ranges();
  EXPECT_EQ(s.resize(5), 0u);  // the single chunk grows: its buffer is recreated
  EXPECT_EQ(s.slot_count(), 5u);
  EXPECT_EQ(s.slot_data(1)[0], std::byte{7});
  EXPECT_EQ(s.slot_data(1)[127], std::byte{7});
  EXPECT_EQ(s.slot_data(4)[0], std::byte{0});
  EXPECT_EQ(s.dirty_count(), 5u);
  EXPECT_EQ(s.resize(5), 1u);  // no change: returns chunk_count()
}

TEST(SlotShadow, ChunkedGrowthOnlyTouchesTheChangedChunks) {
  // 4 slots per chunk; 6 slots = chunk 0 (4) + chunk 1 (2). Growing to 9 changes chunk 1 and
  // adds chunk 2: slots 4..8 dirty, 0..3 clean.
  SlotShadow s(dynamic_uniform_slot_layout(128, small_buffers(1024)), 6);
  EXPECT_EQ(s.resize(9), 1u);
  EXPECT_EQ(s.dirty_count(), 5u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_FALSE(s.is_dirty(i));
  for (uint32_t i = 4; i < 9; ++i) EXPECT_TRUE(s.is_dirty(i));
  // Shrinking to 5 drops dirty slots 5..8; chunk 1 changes size (2 -> 1 slot).
  EXPECT_EQ(s.resize(5), 1u);
  const auto& r = s.take_upload_ranges(FlushPolicy{.full_upload_fraction = 1.0});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].chunk, 1u);
  EXPECT_EQ(r[0].size, 128u);
  // 8 -> 4 with 4 per chunk removes chunk 1 and leaves chunk 0 as it is.
  s.resize(8);
  (void)s.take_upload_ranges();
  EXPECT_EQ(s.resize(4), 1u);
  EXPECT_EQ(s.chunk_count(), 1u);
  EXPECT_EQ(s.dirty_count(), 0u);
}

TEST(SlotShadow, RandomPatternsReproduceTheShadowOnTheGpuSide) {
  // Property check with a fixed seed: applying the upload ranges to mirror "buffers" makes every
  // element equal to the shadow, and every range is a valid writeBuffer on its chunk.
  const SlotLayout sl = dynamic_uniform_slot_layout(80, small_buffers(4096));  // 16 per chunk
  const uint32_t n = 150;                                                      // 10 chunks
  SlotShadow s(sl, n);
  std::vector<std::vector<std::byte>> gpu(sl.chunk_count(n));
  for (uint32_t c = 0; c < gpu.size(); ++c) gpu[c].resize(sl.chunk_size_bytes(c, n));
  std::mt19937 rng(12345);
  for (int frame = 0; frame < 200; ++frame) {
    const uint32_t moving = rng() % (frame % 3 == 0 ? n : 12);
    for (uint32_t k = 0; k < moving; ++k) {
      const uint32_t slot = rng() % n;
      std::vector<std::byte> v(80);
      for (auto& b : v) b = std::byte(rng() & 0xFF);
      s.write(slot, v);
    }
    const FlushPolicy p{.full_upload_fraction = (frame % 2) ? 0.5 : 0.05,
                        .merge_gap_slots = uint32_t(frame % 4)};
    for (const UploadRange& r : s.take_upload_ranges(p)) {
      ASSERT_LT(r.chunk, gpu.size());
      ASSERT_NO_THROW(validate_write_buffer(r.buffer_offset, r.size, gpu[r.chunk].size()));
      ASSERT_EQ(r.shadow_offset,
                uint64_t(r.chunk) * sl.slots_per_chunk * sl.stride + r.buffer_offset);
      std::memcpy(gpu[r.chunk].data() + r.buffer_offset, s.bytes().data() + r.shadow_offset,
                  r.size);
    }
    for (uint32_t slot = 0; slot < n; ++slot) {
      const auto want = s.slot_data(slot);
      const std::byte* got = gpu[sl.chunk_of(slot)].data() + sl.offset_in_chunk(slot);
      ASSERT_EQ(std::memcmp(want.data(), got, want.size()), 0)
          << "frame " << frame << " slot " << slot;
    }
  }
}

// ---------------------------------------------------------------- FramesInFlight

TEST(FramesInFlight, CyclesThroughTheCopies) {
  FramesInFlight<int> f(3, [](uint32_t i) { return int(i) * 10; });
  EXPECT_EQ(f.count(), 3u);
  EXPECT_EQ(f.current(), 0);
  EXPECT_EQ(f.advance(), 10);
  EXPECT_EQ(f.advance(), 20);
  EXPECT_EQ(f.advance(), 0);  // frame 3 reuses frame 0's copy
  EXPECT_EQ(f.frame(), 3u);
  EXPECT_EQ(f.index(), 0u);
  EXPECT_KIND(f.at(3), InvalidArgument);
}

TEST(FramesInFlight, NeverHandsOutACopyOfTheLastNMinusOneFrames) {
  // Triple buffering: the copies written in frames f-1 and f-2 (possibly still read by the GPU)
  // are never the one handed out in frame f.
  FramesInFlight<std::vector<int>> f(3, [](uint32_t) { return std::vector<int>(4); });
  std::vector<const std::vector<int>*> history;
  for (int frame = 0; frame < 10; ++frame) {
    const std::vector<int>* cur = &f.current();
    for (size_t back = 1; back <= 2 && back <= history.size(); ++back) {
      EXPECT_NE(cur, history[history.size() - back]) << "frame " << frame;
    }
    history.push_back(cur);
    f.advance();
  }
  EXPECT_KIND(FramesInFlight<int>(0, [](uint32_t) { return 0; }), InvalidArgument);
}

// ---------------------------------------------------------------- seed 004 decision tree

TEST(DataPlacement, Seed004DecisionTree) {
  // Camera: 208 bytes, read uniformly, shared by all draws -> plain uniform buffer.
  EXPECT_EQ(choose_data_placement({.read_uniformly = true, .size_bytes = 208}).placement,
            DataPlacement::uniform_buffer);
  // Per-object model + normal matrices: 128 bytes, different per draw -> dynamic offset.
  EXPECT_EQ(choose_data_placement({.size_bytes = 128, .changes_per_draw = true}).placement,
            DataPlacement::dynamic_uniform_buffer);
  // luces[u32(entrada.idMaterial)]: the index diverges -> storage.
  EXPECT_EQ(choose_data_placement({.read_uniformly = false, .size_bytes = 64}).placement,
            DataPlacement::storage_buffer);
  // A light array that grows with the scene -> storage, even if it fits today.
  EXPECT_EQ(choose_data_placement({.size_bytes = 4096, .size_grows_with_scene = true}).placement,
            DataPlacement::storage_buffer);
  // 16 KiB is the budget: 16384 fits, 16385 does not; a core budget of 64 KiB accepts it.
  EXPECT_EQ(choose_data_placement({.size_bytes = 16384}).placement, DataPlacement::uniform_buffer);
  EXPECT_EQ(choose_data_placement({.size_bytes = 16385}).placement, DataPlacement::storage_buffer);
  EXPECT_EQ(choose_data_placement({.size_bytes = 16385},
                                  Limits::core_defaults().maxUniformBufferBindingSize)
                .placement,
            DataPlacement::uniform_buffer);
  EXPECT_FALSE(choose_data_placement({.size_bytes = 1}).reason.empty());
  EXPECT_EQ(to_string(DataPlacement::dynamic_uniform_buffer), "dynamic_uniform_buffer");
}

}  // namespace
}  // namespace bindery
