// SPDX-License-Identifier: MIT
#include "bindery/headless/image.hpp"

#include "bindery/core/error.hpp"
#include "bindery/core/io.hpp"

#include <fmt/format.h>
#include <spng.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace bindery {

namespace {
struct CtxDeleter {
  void operator()(spng_ctx* c) const { spng_ctx_free(c); }
};
struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
}  // namespace

void write_png(const std::string& path, const Image& image) {
  check_output_file(path, "PNG");  // never open a pipe or a device for writing (it may block)
  const std::string quoted = escape_for_message(path);
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) throw Error(ErrorKind::Io, fmt::format("cannot open '{}' for writing", quoted));
  // A PNG that could not be completed is removed: no truncated image is left behind.
  auto fail = [&](std::string message) {
    file.reset();
    std::remove(path.c_str());
    return Error(ErrorKind::Io, std::move(message));
  };
  std::unique_ptr<spng_ctx, CtxDeleter> ctx(spng_ctx_new(SPNG_CTX_ENCODER));
  spng_set_png_file(ctx.get(), file.get());
  spng_ihdr ihdr = {};
  ihdr.width = image.width;
  ihdr.height = image.height;
  ihdr.bit_depth = 8;
  ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
  spng_set_ihdr(ctx.get(), &ihdr);
  int rc = spng_encode_image(ctx.get(), image.rgba.data(), image.rgba.size(), SPNG_FMT_PNG,
                             SPNG_ENCODE_FINALIZE);
  ctx.reset();
  if (rc != 0) throw fail(fmt::format("writing PNG '{}': {}", quoted, spng_strerror(rc)));
  // The bytes reach the file only on flush/close: a full disk shows up here, not above.
  const bool flushed = std::fflush(file.get()) == 0 && !std::ferror(file.get());
  if (std::fclose(file.release()) != 0 || !flushed) {
    std::remove(path.c_str());
    throw Error(ErrorKind::Io, fmt::format("writing PNG '{}': the file could not be completed "
                                           "(removed)",
                                           quoted));
  }
}

Image read_png(const std::string& path) {
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error(ErrorKind::Io, fmt::format("cannot open '{}'", path));
  std::unique_ptr<spng_ctx, CtxDeleter> ctx(spng_ctx_new(0));
  spng_set_png_file(ctx.get(), file.get());
  spng_ihdr ihdr = {};
  size_t size = 0;
  if (spng_get_ihdr(ctx.get(), &ihdr) != 0 ||
      spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &size) != 0)
    throw Error(ErrorKind::Io, fmt::format("'{}' is not a readable PNG", path));
  Image img;
  img.width = ihdr.width;
  img.height = ihdr.height;
  img.rgba.resize(size);
  if (spng_decode_image(ctx.get(), img.rgba.data(), size, SPNG_FMT_RGBA8, 0) != 0)
    throw Error(ErrorKind::Io, fmt::format("'{}': PNG decode failed", path));
  return img;
}

uint32_t max_channel_difference(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height)
    throw Error(ErrorKind::InvalidArgument, fmt::format("image sizes differ: {}x{} vs {}x{}",
                                                        a.width, a.height, b.width, b.height));
  uint32_t m = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i)
    m = std::max<uint32_t>(m, static_cast<uint32_t>(std::abs(int(a.rgba[i]) - int(b.rgba[i]))));
  return m;
}

uint64_t count_differing_pixels(const Image& a, const Image& b, uint32_t tolerance) {
  if (a.width != b.width || a.height != b.height)
    throw Error(ErrorKind::InvalidArgument, "image sizes differ");
  uint64_t n = 0;
  for (size_t p = 0; p < a.rgba.size(); p += 4) {
    for (int c = 0; c < 4; ++c)
      if (static_cast<uint32_t>(std::abs(int(a.rgba[p + c]) - int(b.rgba[p + c]))) > tolerance) {
        ++n;
        break;
      }
  }
  return n;
}

std::optional<PixelBox> foreground_box(const Image& image, const uint8_t background[3],
                                       uint32_t tolerance) {
  std::optional<PixelBox> box;
  for (uint32_t y = 0; y < image.height; ++y)
    for (uint32_t x = 0; x < image.width; ++x) {
      const uint8_t* p = image.pixel(x, y);
      bool fg = false;
      for (int c = 0; c < 3; ++c)
        if (static_cast<uint32_t>(std::abs(int(p[c]) - int(background[c]))) > tolerance) fg = true;
      if (!fg) continue;
      if (!box) box = PixelBox{x, y, x, y};
      box->x0 = std::min(box->x0, x);
      box->y0 = std::min(box->y0, y);
      box->x1 = std::max(box->x1, x);
      box->y1 = std::max(box->y1, y);
    }
  return box;
}

}  // namespace bindery
