// SPDX-License-Identifier: MIT
// The CPU half of bindery/offscreen.hpp: the bytesPerRow padding of a texture-to-buffer copy
// (WebGPU "validating GPUTexelCopyBufferInfo": a multiple of 256) and dropping it again.
// Expected pitches are hand-computed: ceil(width x 4 / 256) x 256.
#include "bindery/headless/offscreen.hpp"
#include "support/expect_kind.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bindery {
namespace {

TEST(PaddedBytesPerRow, RoundsRowsUpTo256Bytes) {
  EXPECT_EQ(padded_bytes_per_row(1, 4), 256u);         // 4 bytes
  EXPECT_EQ(padded_bytes_per_row(64, 4), 256u);        // 256: already aligned
  EXPECT_EQ(padded_bytes_per_row(65, 4), 512u);        // 260
  EXPECT_EQ(padded_bytes_per_row(100, 4), 512u);       // 400
  EXPECT_EQ(padded_bytes_per_row(640, 4), 2560u);      // 2560: already aligned
  EXPECT_EQ(padded_bytes_per_row(641, 4), 2816u);      // 2564 -> 11 x 256
  EXPECT_EQ(padded_bytes_per_row(3, 1), 256u);         // one byte per texel (r8unorm)
  EXPECT_EQ(padded_bytes_per_row(8192, 16), 131072u);  // rgba32float at the default max width
}

TEST(PaddedBytesPerRow, RejectsZeroAndOverflow) {
  EXPECT_KIND(padded_bytes_per_row(0, 4), InvalidArgument);
  EXPECT_KIND(padded_bytes_per_row(4, 0), InvalidArgument);
  // 2^30 texels x 4 bytes = 2^32 bytes: does not fit a uint32_t bytesPerRow.
  EXPECT_KIND(padded_bytes_per_row(1u << 30, 4), InvalidArgument);
  EXPECT_EQ(padded_bytes_per_row((1u << 30) - 64, 4), (1ull << 32) - 256);  // the largest that fits
}

// Rows of 3 RGBA8 pixels (12 bytes) at a 16-byte pitch; padding bytes are 0xEE and must vanish.
TEST(UnpadRows, DropsThePaddingOfEveryRow) {
  const uint32_t width = 3, height = 2, pitch = 16;
  std::vector<uint8_t> rows(pitch * height, 0xEE);
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t i = 0; i < width * 4; ++i) rows[y * pitch + i] = uint8_t(y * 100 + i);
  const Image image = unpad_rows(rows, width, height, pitch);
  ASSERT_EQ(image.width, 3u);
  ASSERT_EQ(image.height, 2u);
  ASSERT_EQ(image.rgba.size(), 24u);
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t i = 0; i < width * 4; ++i) EXPECT_EQ(image.rgba[y * 12 + i], y * 100 + i);
  // Pixel (2, 1) = bytes 8..11 of row 1 = 108, 109, 110, 111.
  EXPECT_EQ(image.pixel(2, 1)[0], 108);
  EXPECT_EQ(image.pixel(2, 1)[3], 111);
}

TEST(UnpadRows, SwapsRedAndBlueForBgra) {
  const std::vector<uint8_t> bgra = {10, 20, 30, 40, 50, 60, 70, 80};  // B G R A, B G R A
  const Image image = unpad_rows(bgra, 2, 1, 8, /*bgra=*/true);
  EXPECT_EQ(image.rgba, (std::vector<uint8_t>{30, 20, 10, 40, 70, 60, 50, 80}));
}

TEST(UnpadRows, LastRowNeedsNoPadding) {
  // Like a WebGPU copy: (height - 1) x pitch + width x 4 bytes suffice: 256 + 8 for 2x2.
  const std::vector<uint8_t> rows(256 + 8, 7);
  EXPECT_EQ(unpad_rows(rows, 2, 2, 256).rgba.size(), 16u);
  const std::vector<uint8_t> short_rows(256 + 7, 7);
  EXPECT_KIND(unpad_rows(short_rows, 2, 2, 256), InvalidArgument);
}

TEST(UnpadRows, RejectsAPitchShorterThanARow) {
  const std::vector<uint8_t> rows(64, 0);
  EXPECT_KIND(unpad_rows(rows, 5, 2, 16), InvalidArgument);  // 5 x 4 = 20 > 16
}

}  // namespace
}  // namespace bindery
