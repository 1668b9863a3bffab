// SPDX-License-Identifier: MIT
/// @file
/// bindery/headless/offscreen.hpp — rendering without a window: an offscreen colour + depth target,
/// and reading a rendered texture back into a bindery::Image (then write_png from image.hpp).
///
/// WebGPU terms: render attachment, texture view, GPUTexelCopyBufferLayout (bytesPerRow,
/// rowsPerImage), copyTextureToBuffer, mapAsync. A texture-to-buffer copy needs bytesPerRow to be
/// a multiple of 256 (WebGPU spec, "validating GPUTexelCopyBufferInfo": a fixed constant of the
/// spec, not a device limit), so each row of the buffer is padded and read_back
/// drops the padding: a 100-pixel-wide RGBA8 frame has 400 bytes of pixels per row and
/// 512 bytes per row in the buffer. Pattern: the headless capture of wgpu-native's examples.
///
/// Use:
/// @code
///   bindery::OffscreenTarget target(device, {.width = 640, .height = 480});
///   gpu::RenderPassEncoder pass = target.begin_render_pass(encoder, {0.1, 0.1, 0.1, 1.0});
///   ... draws ...;  wgpuRenderPassEncoderEnd(pass.get());  submit
///   bindery::write_png("frame.png", bindery::read_back(device, target));
/// @endcode
///
/// Limits read: maxTextureDimension2D (target size). Errors: TextureSizeOutOfRange (size 0 or
/// beyond the limit), InvalidArgument (a texture read_back cannot copy), WebGPUValidation
/// (the implementation rejected a call, or the map failed).
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/headless/image.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// bytesPerRow of a texture-to-buffer copy must be a multiple of this many bytes (WebGPU spec,
/// "validating GPUTexelCopyBufferInfo"; a constant of the spec, the same on every device).
inline constexpr uint32_t kCopyBytesPerRowAlignment = 256;

/// The colour format bindery's renderer draws into (and OffscreenTargetDesc's default).
inline constexpr WGPUTextureFormat kOffscreenColorFormat = WGPUTextureFormat_RGBA8Unorm;
/// The depth format bindery's renderer uses (and OffscreenTargetDesc's default).
inline constexpr WGPUTextureFormat kOffscreenDepthFormat = WGPUTextureFormat_Depth24Plus;

/// Bytes one row of a `width`-texel copy takes in the buffer: width × bytes_per_texel rounded up
/// to kCopyBytesPerRowAlignment (256 for widths 1..64 at 4 bytes per texel, 512 for 65..128).
/// Throws InvalidArgument when width or bytes_per_texel is 0 or the result exceeds uint32_t.
uint32_t padded_bytes_per_row(uint32_t width, uint32_t bytes_per_texel);

/// Builds an Image of `width` × `height` RGBA8 pixels from buffer rows `bytes_per_row` bytes apart
/// (padding after each row dropped). `bgra` swaps the red and blue channels (BGRA8 textures).
/// Throws InvalidArgument when bytes_per_row < width × 4 or `rows` holds fewer than
/// (height - 1) × bytes_per_row + width × 4 bytes.
Image unpad_rows(std::span<const uint8_t> rows, uint32_t width, uint32_t height,
                 uint32_t bytes_per_row, bool bgra = false);

/// Options for OffscreenTarget. Zero / default-initialised members mean "the default".
struct OffscreenTargetDesc {
  uint32_t width = 0;   ///< texels, 1..maxTextureDimension2D
  uint32_t height = 0;  ///< texels, 1..maxTextureDimension2D
  /// Colour attachment format; read_back supports the 4-byte RGBA8 / BGRA8 (Unorm, UnormSrgb).
  WGPUTextureFormat color_format = kOffscreenColorFormat;
  /// Depth attachment format; WGPUTextureFormat_Undefined: no depth texture.
  WGPUTextureFormat depth_format = kOffscreenDepthFormat;
  /// Usage bits added to the colour texture's RENDER_ATTACHMENT | COPY_SRC (e.g.
  /// WGPUTextureUsage_TextureBinding to sample the result in a later pass).
  WGPUTextureUsage extra_color_usage = WGPUTextureUsage_None;
  /// Usage bits added to the depth texture's RENDER_ATTACHMENT (e.g. WGPUTextureUsage_TextureBinding
  /// to build a depth pyramid from it, as the gpu-driven strategy does).
  WGPUTextureUsage extra_depth_usage = WGPUTextureUsage_None;
  std::string label = "offscreen";  ///< prefix of the texture labels ("offscreen colour", ...)
};

/// A colour texture (usage RENDER_ATTACHMENT | COPY_SRC, so read_back can copy it) and an optional
/// depth texture (RENDER_ATTACHMENT) of the same size, with one view each. Move-only; owns its
/// textures and views. The draw code needs only the attachments or begin_render_pass().
class OffscreenTarget {
 public:
  /// Creates the textures and views. Throws TextureSizeOutOfRange when width or height is 0 or
  /// exceeds the device's maxTextureDimension2D, WebGPUValidation when the implementation rejects
  /// a format (e.g. a depth format as colour).
  OffscreenTarget(const Device& device, const OffscreenTargetDesc& desc);

  uint32_t width() const { return width_; }                         ///< texels
  uint32_t height() const { return height_; }                       ///< texels
  WGPUTextureFormat color_format() const { return color_format_; }  ///< colour texture format
  /// Depth texture format, WGPUTextureFormat_Undefined when there is no depth texture.
  WGPUTextureFormat depth_format() const { return depth_format_; }
  WGPUTexture color() const { return color_.get(); }                ///< the colour texture (lent)
  WGPUTextureView color_view() const { return color_view_.get(); }  ///< its view (lent)
  WGPUTexture depth() const { return depth_.get(); }  ///< depth texture or null (lent)
  WGPUTextureView depth_view() const { return depth_view_.get(); }  ///< its view or null (lent)

  /// A colour attachment on color_view(), storeOp store. `load`: WGPULoadOp_Clear (to `clear`)
  /// or WGPULoadOp_Load (keep what an earlier pass drew).
  WGPURenderPassColorAttachment color_attachment(WGPUColor clear,
                                                 WGPULoadOp load = WGPULoadOp_Clear) const;
  /// A depth attachment on depth_view(), depthStoreOp store, no stencil operations (the default
  /// depth24plus has no stencil aspect). `load`: WGPULoadOp_Clear (to `clear_depth`, 0..1) or
  /// WGPULoadOp_Load. Throws InvalidArgument when the target has no depth texture or
  /// `clear_depth` is outside [0, 1].
  WGPURenderPassDepthStencilAttachment depth_attachment(float clear_depth = 1.0f,
                                                        WGPULoadOp load = WGPULoadOp_Clear) const;

  /// Begins a render pass on `encoder` over both attachments (colour cleared to `clear`, depth to
  /// `clear_depth`; no depth attachment when the target has none). End it with
  /// wgpuRenderPassEncoderEnd before finishing the encoder.
  gpu::RenderPassEncoder begin_render_pass(WGPUCommandEncoder encoder, WGPUColor clear,
                                           float clear_depth = 1.0f) const;

 private:
  uint32_t width_ = 0, height_ = 0;
  WGPUTextureFormat color_format_ = kOffscreenColorFormat;
  WGPUTextureFormat depth_format_ = kOffscreenDepthFormat;
  gpu::Texture color_, depth_;
  gpu::TextureView color_view_, depth_view_;
};

/// A texture-to-buffer copy in two steps, for callers that record the copy into a command encoder
/// of their own (e.g. after the last frame's passes) and read it after submitting:
/// @code
///   TextureReadback readback(device, target.color());
///   readback.record_copy(encoder);           // before wgpuCommandEncoderFinish
///   submit ...
///   Image image = readback.read();           // maps (polling the device) and unpads the rows
/// @endcode
/// The buffer (usage MAP_READ | COPY_DST) has padded_bytes_per_row(width, 4) × height bytes.
/// Move-only; the texture is borrowed and must outlive record_copy().
class TextureReadback {
 public:
  /// Prepares a copy of mip level 0, array layer (or depth slice) 0 of `texture`: width × height
  /// texels. Throws InvalidArgument when the texture is null, lacks COPY_SRC usage, is
  /// multisampled or its format is not RGBA8Unorm, RGBA8UnormSrgb, BGRA8Unorm or BGRA8UnormSrgb;
  /// BufferTooLarge when the buffer would exceed maxBufferSize.
  TextureReadback(const Device& device, WGPUTexture texture);

  /// Records copyTextureToBuffer into `encoder`. May be called again for a later frame.
  void record_copy(WGPUCommandEncoder encoder) const;
  /// Maps the buffer once the submitted copy is done (polls the device), returns the pixels as
  /// tightly packed RGBA8 rows (BGRA swapped to RGBA) and unmaps. Throws WebGPUValidation when
  /// the map fails, or a device error recorded meanwhile (Device::check()).
  Image read() const;

  uint32_t width() const { return width_; }                  ///< texels
  uint32_t height() const { return height_; }                ///< texels
  uint32_t bytes_per_row() const { return bytes_per_row_; }  ///< padded row pitch in the buffer

 private:
  const Device* device_;
  WGPUTexture texture_;
  uint32_t width_ = 0, height_ = 0, bytes_per_row_ = 0;
  bool bgra_ = false;
  gpu::Buffer buffer_;
};

/// A buffer-to-buffer copy read back in two steps, like TextureReadback: e.g. the culling counts
/// (gpu_driven::Culling::copy_stats into buffer(), then Culling::read_stats(read().data(), n)).
/// @code
///   BufferReadback readback(device, 16);
///   readback.record_copy(encoder, source, 0);  // or a part's own copy into readback.buffer()
///   submit ...
///   std::vector<std::byte> bytes = readback.read();  // maps (polling the device), copies, unmaps
/// @endcode
/// Move-only.
class BufferReadback {
 public:
  /// A MAP_READ | COPY_DST buffer of `size` bytes. Throws InvalidArgument when `size` is 0 or not
  /// a multiple of 4 (WebGPU §5.1.2 / copyBufferToBuffer sizes), BufferTooLarge beyond
  /// maxBufferSize.
  BufferReadback(const Device& device, uint64_t size, std::string_view label = "buffer readback");

  /// Records copyBufferToBuffer(source, offset -> buffer(), 0, size()). Throws InvalidArgument
  /// when `encoder` or `source` is null, `source` lacks COPY_SRC usage, `offset` is not a multiple
  /// of 4, or offset + size() exceeds the source's size (WebGPU §13.3.1 copyBufferToBuffer).
  void record_copy(WGPUCommandEncoder encoder, WGPUBuffer source, uint64_t offset = 0) const;
  /// Maps the buffer once the submitted copy is done (polls the device), returns its size() bytes
  /// and unmaps. Throws WebGPUValidation when the map fails, or a device error recorded meanwhile.
  std::vector<std::byte> read() const;

  /// The destination buffer (lent), for copies a part records itself.
  WGPUBuffer buffer() const { return buffer_.get(); }
  uint64_t size() const { return size_; }  ///< bytes

 private:
  const Device* device_;
  uint64_t size_ = 0;
  gpu::Buffer buffer_;
};

/// Copies bytes [offset, offset + size) of `buffer` (COPY_SRC) to the CPU: one encoder of its own,
/// checked finish, submit, wait. Throws like BufferReadback.
std::vector<std::byte> read_back_buffer(const Device& device, WGPUBuffer buffer, uint64_t offset,
                                        uint64_t size);

/// Copies `texture` (see TextureReadback for the formats it takes) into an Image: records the
/// copy in an encoder of its own, submits it, waits and unpads. Throws like TextureReadback.
Image read_back(const Device& device, WGPUTexture texture);
/// read_back(device, target.color()).
Image read_back(const Device& device, const OffscreenTarget& target);

}  // namespace bindery
