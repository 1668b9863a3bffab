// SPDX-License-Identifier: MIT
// Offscreen colour + depth target and texture readback (include/bindery/offscreen.hpp).
#include "bindery/headless/offscreen.hpp"

#include "bindery/core/error.hpp"
#include "headless/map_and_wait.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace bindery {

namespace {

constexpr uint32_t kBytesPerTexel = 4;  // the RGBA8 / BGRA8 formats read_back takes

bool is_bgra8(WGPUTextureFormat f) {
  return f == WGPUTextureFormat_BGRA8Unorm || f == WGPUTextureFormat_BGRA8UnormSrgb;
}
bool is_rgba8(WGPUTextureFormat f) {
  return f == WGPUTextureFormat_RGBA8Unorm || f == WGPUTextureFormat_RGBA8UnormSrgb;
}

gpu::Texture create_texture(const Device& device, const std::string& label, uint32_t width,
                            uint32_t height, WGPUTextureFormat format, WGPUTextureUsage usage) {
  WGPUTextureDescriptor d = WGPU_TEXTURE_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.dimension = WGPUTextureDimension_2D;
  d.size = {width, height, 1};
  d.format = format;
  d.usage = usage;
  return gpu::Texture::acquire(wgpuDeviceCreateTexture(device.get(), &d));
}

}  // namespace

uint32_t padded_bytes_per_row(uint32_t width, uint32_t bytes_per_texel) {
  if (width == 0 || bytes_per_texel == 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("padded_bytes_per_row: width {} and bytes per texel {} must be >= 1",
                            width, bytes_per_texel));
  const uint64_t row = uint64_t(width) * bytes_per_texel;
  const uint64_t padded =
      (row + kCopyBytesPerRowAlignment - 1) / kCopyBytesPerRowAlignment * kCopyBytesPerRowAlignment;
  if (padded > std::numeric_limits<uint32_t>::max())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("padded_bytes_per_row: {} texels x {} bytes padded to {} is {} bytes, "
                            "more than a uint32_t bytesPerRow holds",
                            width, bytes_per_texel, kCopyBytesPerRowAlignment, padded));
  return static_cast<uint32_t>(padded);
}

Image unpad_rows(std::span<const uint8_t> rows, uint32_t width, uint32_t height,
                 uint32_t bytes_per_row, bool bgra) {
  const uint64_t row_bytes = uint64_t(width) * kBytesPerTexel;
  if (bytes_per_row < row_bytes)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("unpad_rows: bytes_per_row {} is less than width {} x 4 bytes",
                            bytes_per_row, width));
  // The last row needs only its pixels, not its padding (as in a WebGPU copy).
  const uint64_t needed = height == 0 ? 0 : uint64_t(height - 1) * bytes_per_row + row_bytes;
  if (rows.size() < needed)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("unpad_rows: {} rows of {} bytes (pitch {}) need {} bytes, got {}",
                            height, row_bytes, bytes_per_row, needed, rows.size()));
  Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(size_t(row_bytes) * height);
  for (uint32_t y = 0; y < height; ++y)
    std::memcpy(&image.rgba[size_t(y) * row_bytes], rows.data() + size_t(y) * bytes_per_row,
                size_t(row_bytes));
  if (bgra)
    for (size_t p = 0; p < image.rgba.size(); p += kBytesPerTexel)
      std::swap(image.rgba[p], image.rgba[p + 2]);
  return image;
}

// --- OffscreenTarget -----------------------------------------------------------------------

OffscreenTarget::OffscreenTarget(const Device& device, const OffscreenTargetDesc& desc)
    : width_(desc.width),
      height_(desc.height),
      color_format_(desc.color_format),
      depth_format_(desc.depth_format) {
  const CallScope scope(device);
  const uint32_t max_dim = device.limits().maxTextureDimension2D;
  if (desc.width == 0 || desc.height == 0 || desc.width > max_dim || desc.height > max_dim)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("OffscreenTarget '{}': size {}x{} is outside 1..{} "
                            "(maxTextureDimension2D) in each dimension",
                            desc.label, desc.width, desc.height, max_dim));
  if (desc.color_format == WGPUTextureFormat_Undefined)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("OffscreenTarget '{}': color_format is Undefined", desc.label));
  with_context(
      fmt::format("creating OffscreenTarget '{}' ({}x{})", desc.label, desc.width, desc.height),
      [&] {
        color_ = create_texture(
            device, desc.label + " colour", width_, height_, color_format_,
            WGPUTextureUsage_RenderAttachment | WGPUTextureUsage_CopySrc | desc.extra_color_usage);
        device.check();
        color_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(color_.get(), nullptr));
        if (depth_format_ != WGPUTextureFormat_Undefined) {
          depth_ = create_texture(device, desc.label + " depth", width_, height_, depth_format_,
                                  WGPUTextureUsage_RenderAttachment | desc.extra_depth_usage);
          device.check();
          depth_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(depth_.get(), nullptr));
        }
        device.check();
      });
}

WGPURenderPassColorAttachment OffscreenTarget::color_attachment(WGPUColor clear,
                                                                WGPULoadOp load) const {
  WGPURenderPassColorAttachment a = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
  a.view = color_view_.get();
  a.loadOp = load;
  a.storeOp = WGPUStoreOp_Store;
  a.clearValue = clear;
  return a;
}

WGPURenderPassDepthStencilAttachment OffscreenTarget::depth_attachment(float clear_depth,
                                                                       WGPULoadOp load) const {
  if (!depth_view_)
    throw Error(ErrorKind::InvalidArgument,
                "OffscreenTarget::depth_attachment: the target was made without a depth texture "
                "(depth_format Undefined)");
  if (!(clear_depth >= 0.0f && clear_depth <= 1.0f))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("OffscreenTarget: depth clear value {} is outside [0, 1] "
                            "(GPURenderPassDepthStencilAttachment.depthClearValue)",
                            clear_depth));
  WGPURenderPassDepthStencilAttachment a = WGPU_RENDER_PASS_DEPTH_STENCIL_ATTACHMENT_INIT;
  a.view = depth_view_.get();
  a.depthLoadOp = load;
  a.depthStoreOp = WGPUStoreOp_Store;
  a.depthClearValue = clear_depth;
  return a;
}

gpu::RenderPassEncoder OffscreenTarget::begin_render_pass(WGPUCommandEncoder encoder,
                                                          WGPUColor clear,
                                                          float clear_depth) const {
  if (!encoder)
    throw Error(ErrorKind::InvalidArgument, "OffscreenTarget::begin_render_pass: null encoder");
  WGPURenderPassColorAttachment ca = color_attachment(clear);
  WGPURenderPassDepthStencilAttachment da = WGPU_RENDER_PASS_DEPTH_STENCIL_ATTACHMENT_INIT;
  WGPURenderPassDescriptor pd = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
  pd.colorAttachmentCount = 1;
  pd.colorAttachments = &ca;
  if (depth_view_) {
    da = depth_attachment(clear_depth);
    pd.depthStencilAttachment = &da;
  }
  return gpu::RenderPassEncoder::acquire(wgpuCommandEncoderBeginRenderPass(encoder, &pd));
}

// --- TextureReadback -----------------------------------------------------------------------

TextureReadback::TextureReadback(const Device& device, WGPUTexture texture)
    : device_(&device), texture_(texture) {
  if (!texture) throw Error(ErrorKind::InvalidArgument, "read_back: null texture");
  const WGPUTextureFormat format = wgpuTextureGetFormat(texture);
  if (!(wgpuTextureGetUsage(texture) & WGPUTextureUsage_CopySrc))
    throw Error(ErrorKind::InvalidArgument,
                "read_back: the texture lacks WGPUTextureUsage_CopySrc (copyTextureToBuffer "
                "needs it as its source)");
  if (wgpuTextureGetSampleCount(texture) != 1)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("read_back: a multisampled texture (sampleCount {}) cannot be copied; "
                            "resolve it first",
                            wgpuTextureGetSampleCount(texture)));
  if (!is_rgba8(format) && !is_bgra8(format))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("read_back: texture format {} is not RGBA8Unorm(Srgb) or "
                            "BGRA8Unorm(Srgb)",
                            static_cast<int>(format)));
  width_ = wgpuTextureGetWidth(texture);
  height_ = wgpuTextureGetHeight(texture);
  bgra_ = is_bgra8(format);
  bytes_per_row_ = padded_bytes_per_row(width_, kBytesPerTexel);
  buffer_ = device.create_buffer("texture readback", uint64_t(bytes_per_row_) * height_,
                                 WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
}

void TextureReadback::record_copy(WGPUCommandEncoder encoder) const {
  if (!encoder)
    throw Error(ErrorKind::InvalidArgument, "TextureReadback::record_copy: null encoder");
  WGPUTexelCopyTextureInfo src = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
  src.texture = texture_;
  WGPUTexelCopyBufferInfo dst = WGPU_TEXEL_COPY_BUFFER_INFO_INIT;
  dst.buffer = buffer_.get();
  dst.layout.bytesPerRow = bytes_per_row_;
  dst.layout.rowsPerImage = height_;
  const WGPUExtent3D size = {width_, height_, 1};
  wgpuCommandEncoderCopyTextureToBuffer(encoder, &src, &dst, &size);
}

Image TextureReadback::read() const {
  const uint64_t size = uint64_t(bytes_per_row_) * height_;
  map_and_wait(*device_, buffer_.get(), WGPUMapMode_Read, size);
  const auto* data =
      static_cast<const uint8_t*>(wgpuBufferGetConstMappedRange(buffer_.get(), 0, size));
  if (!data) {
    wgpuBufferUnmap(buffer_.get());
    throw Error(ErrorKind::WebGPUValidation, "read_back: getMappedRange returned null");
  }
  Image image;
  try {
    image = unpad_rows({data, size_t(size)}, width_, height_, bytes_per_row_, bgra_);
  } catch (...) {
    wgpuBufferUnmap(buffer_.get());
    throw;
  }
  wgpuBufferUnmap(buffer_.get());
  return image;
}

// --- BufferReadback ------------------------------------------------------------------------

BufferReadback::BufferReadback(const Device& device, uint64_t size, std::string_view label)
    : device_(&device), size_(size) {
  if (size == 0 || size % 4 != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("BufferReadback '{}': size {} is not a non-zero multiple of 4 "
                            "(copyBufferToBuffer copies whole 4-byte words)",
                            label, size));
  buffer_ = device.create_buffer(label, size, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
}

void BufferReadback::record_copy(WGPUCommandEncoder encoder, WGPUBuffer source,
                                 uint64_t offset) const {
  if (!encoder || !source)
    throw Error(ErrorKind::InvalidArgument,
                "BufferReadback::record_copy: the encoder and the source must not be null");
  if (!(wgpuBufferGetUsage(source) & WGPUBufferUsage_CopySrc))
    throw Error(ErrorKind::InvalidArgument,
                "BufferReadback::record_copy: the source lacks WGPUBufferUsage_CopySrc "
                "(copyBufferToBuffer needs it)");
  const uint64_t source_size = wgpuBufferGetSize(source);
  if (offset % 4 != 0 || offset > source_size || size_ > source_size - offset)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("BufferReadback::record_copy: bytes [{}, {}) are not inside the "
                            "{}-byte source, or the offset is not a multiple of 4",
                            offset, offset + size_, source_size));
  wgpuCommandEncoderCopyBufferToBuffer(encoder, source, offset, buffer_.get(), 0, size_);
}

std::vector<std::byte> BufferReadback::read() const {
  const CallScope scope(*device_);
  map_and_wait(*device_, buffer_.get(), WGPUMapMode_Read, size_);
  const void* data = wgpuBufferGetConstMappedRange(buffer_.get(), 0, size_);
  if (!data) {
    wgpuBufferUnmap(buffer_.get());
    throw Error(ErrorKind::WebGPUValidation, "BufferReadback::read: getMappedRange returned null");
  }
  std::vector<std::byte> bytes(size_);
  std::memcpy(bytes.data(), data, size_);
  wgpuBufferUnmap(buffer_.get());
  return bytes;
}

std::vector<std::byte> read_back_buffer(const Device& device, WGPUBuffer buffer, uint64_t offset,
                                        uint64_t size) {
  const CallScope scope(device);
  BufferReadback readback(device, size);
  gpu::CommandEncoder encoder =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  readback.record_copy(encoder.get(), buffer, offset);
  with_context("read_back_buffer: copying the buffer", [&] {
    const gpu::CommandBuffer commands = device.finish(encoder.get(), "read_back_buffer");
    const WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
  });
  return readback.read();
}

Image read_back(const Device& device, WGPUTexture texture) {
  const CallScope scope(device);
  TextureReadback readback(device, texture);
  gpu::CommandEncoder encoder =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  readback.record_copy(encoder.get());
  with_context("read_back: copying the texture", [&] {
    const gpu::CommandBuffer commands = device.finish(encoder.get(), "read_back");
    const WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
  });
  return readback.read();
}

Image read_back(const Device& device, const OffscreenTarget& target) {
  return read_back(device, target.color());
}

}  // namespace bindery
