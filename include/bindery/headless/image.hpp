// SPDX-License-Identifier: MIT
/// @file
/// bindery/headless/image.hpp — RGBA8 frames on the CPU: PNG output (libspng) and the comparisons
/// the image tests use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bindery {

/// A tightly packed RGBA8 image, rows top to bottom.
struct Image {
  /// Size in pixels.
  ///@{
  uint32_t width = 0, height = 0;
  ///@}
  std::vector<uint8_t> rgba;  ///< width * height * 4 bytes

  /// The 4 bytes (R, G, B, A) of pixel (x, y); x < width, y < height (not checked).
  const uint8_t* pixel(uint32_t x, uint32_t y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};

/// Writes `image` as an 8-bit RGBA PNG. Throws Io when the file cannot be written.
void write_png(const std::string& path, const Image& image);
/// Reads an 8-bit RGBA PNG (any PNG is converted to RGBA8). Throws Io.
Image read_png(const std::string& path);

/// Largest per-channel absolute difference between two images of the same size
/// (throws InvalidArgument when sizes differ).
uint32_t max_channel_difference(const Image& a, const Image& b);
/// Number of pixels where any channel differs by more than `tolerance`.
uint64_t count_differing_pixels(const Image& a, const Image& b, uint32_t tolerance);

/// Pixel bounding box, inclusive: [x0, x1] x [y0, y1].
struct PixelBox {
  /// Pixels: columns x0..x1, rows y0..y1, both ends included.
  ///@{
  uint32_t x0, y0, x1, y1;
  ///@}
};
/// Bounding box of the pixels whose RGB differs from `background` by more than `tolerance` in
/// any channel; nullopt when every pixel is background.
std::optional<PixelBox> foreground_box(const Image& image, const uint8_t background[3],
                                       uint32_t tolerance);

}  // namespace bindery
