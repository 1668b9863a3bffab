// SPDX-License-Identifier: MIT
// glTF images to RGBA8 (gltf_image.hpp): PNG with libspng, JPEG with stb_image.
#include "gltf_image.hpp"

#include "bindery/core/error.hpp"

#include <fmt/format.h>
#include <spng.h>
#include <stb/stb_image.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

namespace bindery::gltf {
namespace {

/// Largest ancillary chunk libspng keeps in memory (text, ICC profiles), and all of them together.
constexpr size_t kMaxPngChunkBytes = 64u << 20;

bool starts_with(std::span<const uint8_t> bytes, std::string_view magic, size_t at = 0) {
  return bytes.size() >= at + magic.size() &&
         std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
}

[[noreturn]] void refuse(const std::string& what, const std::string& why) {
  throw Error(ErrorKind::ModelLoad, fmt::format("{} {}", what, why));
}

// The size checks made from the header, before any pixel is decoded.
void check_size(const std::string& what, uint64_t w, uint64_t h, uint64_t budget,
                uint64_t& used) {
  if (w * h > kMaxImagePixels)
    refuse(what, fmt::format("is {} x {} pixels, more than the {} bindery decodes (16384 x 16384)",
                             w, h, kMaxImagePixels));
  const uint64_t bytes = rgba8_bytes_with_mips(w, h);
  if (bytes > budget || used > budget - bytes)
    refuse(what, fmt::format("is {} x {} pixels: {:.1f} MiB decoded with its mips, which with the "
                             "model's images before it ({:.1f} MiB) exceeds the model's image "
                             "budget of {:.1f} MiB (raise it with --image-budget-mib or "
                             "GltfLoadOptions::image_budget_bytes)",
                             w, h, bytes / 1048576.0, used / 1048576.0, budget / 1048576.0));
  used += bytes;
}

struct SpngFree {
  void operator()(spng_ctx* c) const { spng_ctx_free(c); }
};

uint8_t unorm16_to_8(uint16_t v) {
  return static_cast<uint8_t>((uint32_t(v) * 255u + 32767u) / 65535u);
}

void check_spng(int rc, const std::string& what) {
  if (rc != 0) refuse(what, fmt::format("is not a readable PNG: {}", spng_strerror(rc)));
}

// 16-bit PNGs: RGBA16 rows (or, interlaced, the whole RGBA16 image) scaled into `out`.
void decode_png16(spng_ctx* ctx, const spng_ihdr& ihdr, const std::string& what,
                  std::vector<uint8_t>& out) {
  const size_t row_samples = size_t(ihdr.width) * 4;
  if (ihdr.interlace_method != SPNG_INTERLACE_NONE) {
    std::vector<uint16_t> all(row_samples * ihdr.height);
    check_spng(spng_decode_image(ctx, all.data(), all.size() * 2, SPNG_FMT_RGBA16,
                                 SPNG_DECODE_TRNS),
               what);
    std::transform(all.begin(), all.end(), out.begin(), unorm16_to_8);
    return;
  }
  check_spng(spng_decode_image(ctx, nullptr, 0, SPNG_FMT_RGBA16,
                               SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE),
             what);
  std::vector<uint16_t> row(row_samples);
  for (;;) {
    spng_row_info info{};
    int rc = spng_get_row_info(ctx, &info);
    if (rc == SPNG_EOI) break;
    check_spng(rc, what);
    rc = spng_decode_row(ctx, row.data(), row.size() * 2);
    if (rc != 0 && rc != SPNG_EOI) check_spng(rc, what);
    std::transform(row.begin(), row.end(), out.begin() + ptrdiff_t(info.row_num * row_samples),
                   unorm16_to_8);
    if (rc == SPNG_EOI) break;
  }
}

DecodedImage decode_png(std::span<const uint8_t> bytes, const std::string& what, uint64_t budget,
                        uint64_t& used) {
  std::unique_ptr<spng_ctx, SpngFree> ctx(spng_ctx_new(0));
  if (!ctx) throw std::bad_alloc();
  // Checksums are not checked (as stb_image, which decoded glTF images before, does not): a
  // wrong CRC is a transmission fault, not a safety one, and libspng checks every length.
  spng_set_crc_action(ctx.get(), SPNG_CRC_USE, SPNG_CRC_USE);
  spng_set_chunk_limits(ctx.get(), kMaxPngChunkBytes, kMaxPngChunkBytes);
  check_spng(spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size()), what);
  spng_ihdr ihdr{};
  check_spng(spng_get_ihdr(ctx.get(), &ihdr), what);
  check_size(what, ihdr.width, ihdr.height, budget, used);
  DecodedImage image{ihdr.width, ihdr.height, {}};
  image.rgba.resize(size_t(ihdr.width) * ihdr.height * 4);
  if (ihdr.bit_depth == 16)
    decode_png16(ctx.get(), ihdr, what, image.rgba);
  else
    check_spng(spng_decode_image(ctx.get(), image.rgba.data(), image.rgba.size(), SPNG_FMT_RGBA8,
                                 SPNG_DECODE_TRNS),
               what);
  return image;
}

DecodedImage decode_jpeg(std::span<const uint8_t> bytes, const std::string& what, uint64_t budget,
                         uint64_t& used) {
  int w = 0, h = 0, components = 0;
  const int size = static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX));
  if (!stbi_info_from_memory(bytes.data(), size, &w, &h, &components) || w <= 0 || h <= 0)
    refuse(what, "is not a readable JPEG (its header is truncated or corrupt)");
  check_size(what, uint64_t(w), uint64_t(h), budget, used);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(bytes.data(), size, &w, &h, &components, 4), &stbi_image_free);
  if (!pixels) refuse(what, "is not a readable JPEG (truncated or corrupt)");
  DecodedImage image{uint32_t(w), uint32_t(h), {}};
  image.rgba.assign(pixels.get(), pixels.get() + size_t(w) * size_t(h) * 4);
  return image;
}

}  // namespace

uint64_t rgba8_bytes_with_mips(uint64_t width, uint64_t height) {
  uint64_t total = 0;
  for (;;) {
    total += width * height * 4;
    if (width == 1 && height == 1) return total;
    width = std::max<uint64_t>(1, width / 2);
    height = std::max<uint64_t>(1, height / 2);
  }
}

std::string_view image_format_name(std::span<const uint8_t> b) {
  if (starts_with(b, "\x89PNG\r\n\x1a\n")) return "PNG";
  if (starts_with(b, "\xff\xd8\xff")) return "JPEG";
  if (starts_with(b, "BM")) return "BMP";
  if (starts_with(b, "GIF87a") || starts_with(b, "GIF89a")) return "GIF";
  if (starts_with(b, "RIFF") && starts_with(b, "WEBP", 8)) return "WebP";
  if (starts_with(b, "\xabKTX 20\xbb")) return "KTX2";
  if (starts_with(b, "DDS ")) return "DDS";
  if (starts_with(b, std::string_view("II*\0", 4)) || starts_with(b, std::string_view("MM\0*", 4)))
    return "TIFF";
  if (starts_with(b, "8BPS")) return "PSD";
  if (starts_with(b, "#?RADIANCE") || starts_with(b, "#?RGBE")) return "Radiance HDR";
  if (starts_with(b, "qoif")) return "QOI";
  if (starts_with(b, "ftypavif", 4)) return "AVIF";
  return "";
}

DecodedImage decode_gltf_image(std::span<const uint8_t> bytes, const std::string& what,
                               uint64_t budget_bytes, uint64_t& used_bytes) {
  const std::string_view format = image_format_name(bytes);
  try {
    if (format == "PNG") return decode_png(bytes, what, budget_bytes, used_bytes);
    if (format == "JPEG") return decode_jpeg(bytes, what, budget_bytes, used_bytes);
  } catch (const std::bad_alloc&) {
    refuse(what, "could not be decoded: not enough memory for its pixels");
  }
  if (format.empty())
    refuse(what, "is neither PNG nor JPEG (its first bytes are no image signature bindery "
                 "knows); glTF 2.0 images are PNG or JPEG");
  refuse(what, fmt::format("is a {} file; glTF 2.0 images are PNG or JPEG", format));
}

}  // namespace bindery::gltf
