// SPDX-License-Identifier: MIT
// src/render/gltf_image.hpp — a glTF image's bytes to RGBA8 pixels, with the checks a hostile
// file needs. Private to bindery (scene_gltf.cpp; tests/gltf_hostile_test.cpp).
//
// glTF 2.0 "Images": PNG or JPEG. The format is told by the file's signature (refused by name
// otherwise: BMP, GIF, WebP, ...); the size is read from the header (PNG's IHDR with libspng,
// JPEG's frame header with stb_image) and checked before any pixel is decoded: at most
// kMaxImagePixels pixels, and the image's decoded bytes with its full mip chain within what is
// left of the model's budget (GltfLoadOptions::image_budget_bytes). Pixels are decoded once,
// straight into the RGBA8 buffer that becomes the texture's level 0 (8-bit PNGs), or through one
// row (16-bit PNGs) or the decoder's own RGBA8 buffer (JPEG), so loading one image needs at most
// about twice its decoded bytes with mips.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::gltf {

/// Most pixels of one image (16384 x 16384), checked from the header before decoding.
inline constexpr uint64_t kMaxImagePixels = 1ull << 28;

/// Bytes of a w x h RGBA8 image with every mip level down to 1x1 (what make_texture_with_mips
/// keeps): sum over levels i of max(1, w >> i) * max(1, h >> i) * 4.
uint64_t rgba8_bytes_with_mips(uint64_t width, uint64_t height);

/// "PNG", "JPEG", or the name of another image format the signature shows ("BMP", "GIF",
/// "WebP", "KTX2", "DDS", "TIFF", "PSD", "Radiance HDR", "QOI", "AVIF"); "" when unknown.
std::string_view image_format_name(std::span<const uint8_t> bytes);

/// A decoded image: width x height RGBA8 pixels, rows top to bottom.
struct DecodedImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

/// Decodes the PNG or JPEG `bytes` of `what` (e.g. "image 2", for messages) to RGBA8: grey
/// replicated to RGB, missing alpha 255, palette and tRNS applied, 16-bit samples v scaled to
/// round(v * 255 / 65535). Adds rgba8_bytes_with_mips() to `used_bytes` first and refuses the
/// image when the sum exceeds `budget_bytes`. Throws ModelLoad (not PNG or JPEG, too many pixels,
/// over the budget, corrupt data); nothing else (std::bad_alloc included) escapes.
DecodedImage decode_gltf_image(std::span<const uint8_t> bytes, const std::string& what,
                               uint64_t budget_bytes, uint64_t& used_bytes);

}  // namespace bindery::gltf
