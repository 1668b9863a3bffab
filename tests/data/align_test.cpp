// SPDX-License-Identifier: MIT
// align_to and the limit-derived strides (align.hpp). Expected values are worked out by hand from
// seeds 000 / 002 and shared/cases/layout.md (D01, D02), never copied from the implementation.
#include "support/expect_kind.hpp"
#include "bindery/data/align.hpp"
#include "bindery/core/error.hpp"
#include "bindery/core/limits.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace bindery {
namespace {


// Usable in constant expressions (no throw on the taken path).
static_assert(align_to(80, 256) == 256);
static_assert(is_power_of_two(1) && is_power_of_two(64) && !is_power_of_two(0) &&
              !is_power_of_two(48));

Limits with_uniform_alignment(uint32_t a) {
  Limits l = Limits::core_defaults();
  l.minUniformBufferOffsetAlignment = a;
  return l;
}

TEST(AlignTo, RoundsUpToMultiples) {
  EXPECT_EQ(align_to(80, 256), 256u);   // seed 002: mat4x4 + vec4 = 80 bytes -> stride 256
  EXPECT_EQ(align_to(128, 256), 256u);  // seed 000: two mat4x4 at the guaranteed alignment
  EXPECT_EQ(align_to(128, 64), 128u);   // seed 000: same data on a device with alignment 64
  EXPECT_EQ(align_to(0, 256), 0u);
  EXPECT_EQ(align_to(256, 256), 256u);
  EXPECT_EQ(align_to(257, 256), 512u);
  EXPECT_EQ(align_to(6, 4), 8u);        // three u16 rounded up for writeBuffer (W01)
  EXPECT_EQ(align_to(7, 1), 7u);
  // 2^63 - 1 rounded to 2^32: the next multiple is 2^63.
  EXPECT_EQ(align_to((uint64_t(1) << 63) - 1, uint64_t(1) << 32), uint64_t(1) << 63);
}

TEST(AlignTo, RejectsAlignmentsThatAreNotPowersOfTwo) {
  EXPECT_KIND(align_to(1, 48), NotPowerOfTwo);  // D02 (e): 48 is not a power of two
  EXPECT_KIND(align_to(1, 0), NotPowerOfTwo);
  EXPECT_KIND(align_to(100, 3), NotPowerOfTwo);
}

TEST(AlignTo, RejectsOverflow) {
  EXPECT_KIND(align_to(UINT64_MAX, 2), InvalidArgument);
  EXPECT_KIND(align_to(UINT64_MAX - 10, 256), InvalidArgument);
}

TEST(DynamicUniformStride, ComesFromTheLimitNotAConstant) {
  // D01: a 64-byte mat4x4 at the default alignment -> stride 256; at alignment 64 -> 64.
  EXPECT_EQ(dynamic_uniform_stride(64, Limits::core_defaults()), 256u);
  EXPECT_EQ(dynamic_uniform_stride(64, with_uniform_alignment(64)), 64u);
  // D02: 96-byte object; device alignment (a) 256 -> 256, (b) 64 -> 128, (c) 128 -> 128.
  EXPECT_EQ(dynamic_uniform_stride(96, with_uniform_alignment(256)), 256u);
  EXPECT_EQ(dynamic_uniform_stride(96, with_uniform_alignment(64)), 128u);
  EXPECT_EQ(dynamic_uniform_stride(96, with_uniform_alignment(128)), 128u);
  // Issue 4: 128-byte objects, 256 by default, 128 where the device allows less.
  EXPECT_EQ(dynamic_uniform_stride(128, with_uniform_alignment(16)), 128u);
}

TEST(DynamicStorageStride, UsesTheStorageAlignment) {
  Limits l = Limits::core_defaults();
  l.minUniformBufferOffsetAlignment = 256;
  l.minStorageBufferOffsetAlignment = 32;
  EXPECT_EQ(dynamic_storage_stride(80, l), 96u);   // 80 -> next multiple of 32
  EXPECT_EQ(dynamic_uniform_stride(80, l), 256u);  // the uniform limit is separate
}

TEST(DynamicStride, RejectsBadInput) {
  EXPECT_KIND(dynamic_uniform_stride(0, Limits::core_defaults()), InvalidArgument);
  EXPECT_KIND(dynamic_uniform_stride(64, with_uniform_alignment(48)), NotPowerOfTwo);
  EXPECT_KIND(dynamic_uniform_stride(64, with_uniform_alignment(0)), NotPowerOfTwo);
  Limits l = Limits::core_defaults();
  l.minStorageBufferOffsetAlignment = 100;
  EXPECT_KIND(dynamic_storage_stride(64, l), NotPowerOfTwo);
}

}  // namespace
}  // namespace bindery
