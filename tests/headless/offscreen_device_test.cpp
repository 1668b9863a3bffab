// SPDX-License-Identifier: MIT
// bindery/offscreen.hpp on a device (lavapipe on CPU-only machines): OffscreenTarget + read_back.
// Each pixel is written by a shader from its own coordinates, (x, y, 51, 255) for pixel (x, y):
// floor(position.xy) / 255 stored in RGBA8Unorm is exactly x and y (k / 255 x 255 = k), 0.2 x 255
// = 51. A 100 x 37 target has 400 bytes of pixels per row and a 512-byte copy pitch, so any
// mistake in the row padding moves pixels. Depth: the first triangle is nearer (0.25) than the
// second (0.75), so with depth cleared to 1 the first one's colour stays; cleared to 0.1 neither
// passes the "less" test and the clear colour stays.
#include "bindery/core/device.hpp"
#include "bindery/headless/offscreen.hpp"

#include "support/device.hpp"
#include "support/expect_kind.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>
#include <cstring>

namespace bindery {
namespace {

using test::shared_device;

constexpr const char* kCoordinates = R"(
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let p = array(vec2f(-1, -1), vec2f(3, -1), vec2f(-1, 3));  // one triangle covers the target
  return vec4f(p[i], 0.5, 1.0);
}
@fragment fn fs(@builtin(position) pos: vec4f) -> @location(0) vec4f {
  return vec4f(floor(pos.x) / 255.0, floor(pos.y) / 255.0, 0.2, 1.0);
})";

constexpr const char* kTwoDepths = R"(
struct Out { @builtin(position) pos: vec4f, @location(0) color: vec4f };
@vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
  let p = array(vec2f(-1, -1), vec2f(3, -1), vec2f(-1, 3));
  let first = i < 3u;  // vertices 0..2: depth 0.25, red; 3..5: depth 0.75, green
  var o: Out;
  o.pos = vec4f(p[i % 3u], select(0.75, 0.25, first), 1.0);
  o.color = select(vec4f(0.0, 1.0, 0.0, 1.0), vec4f(1.0, 0.0, 0.0, 1.0), first);
  return o;
}
@fragment fn fs(@location(0) color: vec4f) -> @location(0) vec4f { return color; })";

gpu::RenderPipeline make_pipeline(const Device& d, const OffscreenTarget& target,
                                  const char* wgsl) {
  gpu::ShaderModule module = d.create_shader_module("offscreen test", wgsl);
  WGPUColorTargetState color = WGPU_COLOR_TARGET_STATE_INIT;
  color.format = target.color_format();
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = module.get();
  fs.entryPoint = gpu::sv("fs");
  fs.targetCount = 1;
  fs.targets = &color;
  WGPUDepthStencilState ds = WGPU_DEPTH_STENCIL_STATE_INIT;
  ds.format = target.depth_format();
  ds.depthWriteEnabled = WGPUOptionalBool_True;
  ds.depthCompare = WGPUCompareFunction_Less;
  WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  pd.vertex.module = module.get();
  pd.vertex.entryPoint = gpu::sv("vs");
  pd.fragment = &fs;
  if (target.depth_format() != WGPUTextureFormat_Undefined) pd.depthStencil = &ds;
  auto pipeline = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(d.get(), &pd));
  d.check();
  return pipeline;
}

void submit(const Device& d, gpu::CommandEncoder& encoder) {
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  wgpuQueueSubmit(d.queue(), 1, &raw);
  d.check();
}

gpu::CommandEncoder new_encoder(const Device& d) {
  return gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
}

// Draws `vertices` vertices of `wgsl` into `target` after clearing to `clear` / `clear_depth`.
void draw(const OffscreenTarget& target, const char* wgsl, uint32_t vertices, WGPUColor clear,
          float clear_depth = 1.0f) {
  const Device& d = shared_device();
  gpu::RenderPipeline pipeline = make_pipeline(d, target, wgsl);
  gpu::CommandEncoder encoder = new_encoder(d);
  {
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), clear, clear_depth);
    wgpuRenderPassEncoderSetPipeline(pass.get(), pipeline.get());
    wgpuRenderPassEncoderDraw(pass.get(), vertices, 1, 0, 0);
    wgpuRenderPassEncoderEnd(pass.get());
  }
  submit(d, encoder);
}

void expect_coordinates(const Image& image, uint32_t width, uint32_t height) {
  ASSERT_EQ(image.width, width);
  ASSERT_EQ(image.height, height);
  ASSERT_EQ(image.rgba.size(), size_t(width) * height * 4);
  int wrong = 0;
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const uint8_t* p = image.pixel(x, y);
      if (p[0] != x || p[1] != y || p[2] != 51 || p[3] != 255) {
        if (++wrong <= 5)
          ADD_FAILURE() << "pixel (" << x << ", " << y << ") = " << int(p[0]) << " " << int(p[1])
                        << " " << int(p[2]) << " " << int(p[3]);
      }
    }
  EXPECT_EQ(wrong, 0);
}

TEST(OffscreenDevice, ReadBackDropsTheRowPadding) {
  OffscreenTarget target(shared_device(), {.width = 100, .height = 37, .depth_format = {}});
  EXPECT_EQ(target.width(), 100u);
  EXPECT_EQ(target.height(), 37u);
  EXPECT_EQ(target.color_format(), WGPUTextureFormat_RGBA8Unorm);
  EXPECT_EQ(target.depth(), nullptr);
  draw(target, kCoordinates, 3, {0, 0, 0, 1});
  expect_coordinates(read_back(shared_device(), target), 100, 37);
}

TEST(OffscreenDevice, WidthsOnAndOffThe256ByteBoundary) {
  for (uint32_t width : {1u, 63u, 64u, 65u}) {
    SCOPED_TRACE(width);
    OffscreenTarget target(shared_device(), {.width = width, .height = 3, .depth_format = {}});
    draw(target, kCoordinates, 3, {0, 0, 0, 1});
    expect_coordinates(read_back(shared_device(), target), width, 3);
  }
}

TEST(OffscreenDevice, Bgra8IsReturnedAsRgba) {
  OffscreenTarget target(
      shared_device(),
      {.width = 70, .height = 5, .color_format = WGPUTextureFormat_BGRA8Unorm, .depth_format = {}});
  draw(target, kCoordinates, 3, {0, 0, 0, 1});
  expect_coordinates(read_back(shared_device(), target), 70, 5);
}

TEST(OffscreenDevice, DepthIsClearedAndTested) {
  OffscreenTarget target(shared_device(), {.width = 8, .height = 8});
  ASSERT_NE(target.depth_view(), nullptr);
  EXPECT_EQ(target.depth_format(), WGPUTextureFormat_Depth24Plus);
  draw(target, kTwoDepths, 6, {0, 0, 1, 1}, 1.0f);  // red (0.25) wins over green (0.75)
  Image image = read_back(shared_device(), target);
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 8; ++x) {
      const uint8_t* p = image.pixel(x, y);
      ASSERT_TRUE(p[0] == 255 && p[1] == 0 && p[2] == 0) << x << "," << y;
    }
  draw(target, kTwoDepths, 6, {0, 0, 1, 1}, 0.1f);  // both fail "less than 0.1": blue stays
  image = read_back(shared_device(), target);
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 8; ++x) {
      const uint8_t* p = image.pixel(x, y);
      ASSERT_TRUE(p[0] == 0 && p[1] == 0 && p[2] == 255) << x << "," << y;
    }
}

TEST(OffscreenDevice, TextureReadbackRecordsIntoTheCallersEncoder) {
  const Device& d = shared_device();
  OffscreenTarget target(d, {.width = 20, .height = 2, .depth_format = {}});
  TextureReadback readback(d, target.color());
  EXPECT_EQ(readback.bytes_per_row(), 256u);  // 20 x 4 = 80 -> 256
  // Frame 1: clear to (0.2, 0.4, 0.6, 1) = (51, 102, 153, 255), copy in the same encoder.
  // Frame 2: clear to (1, 0, 0.2, 0) = (255, 0, 51, 0); the same readback object reads it.
  const WGPUColor clears[] = {{0.2, 0.4, 0.6, 1.0}, {1.0, 0.0, 0.2, 0.0}};
  const uint8_t expected[][4] = {{51, 102, 153, 255}, {255, 0, 51, 0}};
  for (int frame = 0; frame < 2; ++frame) {
    gpu::CommandEncoder encoder = new_encoder(d);
    {
      gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), clears[frame]);
      wgpuRenderPassEncoderEnd(pass.get());
    }
    readback.record_copy(encoder.get());
    submit(d, encoder);
    const Image image = readback.read();
    ASSERT_EQ(image.rgba.size(), 20u * 2 * 4);
    for (size_t p = 0; p < image.rgba.size(); p += 4)
      for (int c = 0; c < 4; ++c) ASSERT_EQ(image.rgba[p + c], expected[frame][c]) << p;
  }
}

TEST(OffscreenDevice, AttachmentsDescribeTheTarget) {
  OffscreenTarget target(shared_device(), {.width = 4, .height = 4});
  const WGPURenderPassColorAttachment c = target.color_attachment({1, 0, 0, 1}, WGPULoadOp_Load);
  EXPECT_EQ(c.view, target.color_view());
  EXPECT_EQ(c.loadOp, WGPULoadOp_Load);
  EXPECT_EQ(c.storeOp, WGPUStoreOp_Store);
  const WGPURenderPassDepthStencilAttachment z = target.depth_attachment(0.5f);
  EXPECT_EQ(z.view, target.depth_view());
  EXPECT_EQ(z.depthLoadOp, WGPULoadOp_Clear);
  EXPECT_EQ(z.depthClearValue, 0.5f);
  EXPECT_EQ(z.stencilLoadOp, WGPULoadOp_Undefined);  // depth24plus has no stencil aspect
}

TEST(OffscreenDevice, BadSizesAndDepthValues) {
  const Device& d = shared_device();
  const uint32_t max = d.limits().maxTextureDimension2D;
  EXPECT_KIND(OffscreenTarget(d, {.width = 0, .height = 4}), TextureSizeOutOfRange);
  EXPECT_KIND(OffscreenTarget(d, {.width = 4, .height = 0}), TextureSizeOutOfRange);
  EXPECT_KIND(OffscreenTarget(d, {.width = max + 1, .height = 4}), TextureSizeOutOfRange);
  EXPECT_KIND(OffscreenTarget(d, {.width = 4, .height = max + 1}), TextureSizeOutOfRange);
  EXPECT_KIND(OffscreenTarget(d, {.width = 4, .height = 4, .color_format = {}}), InvalidArgument);

  OffscreenTarget no_depth(d, {.width = 4, .height = 4, .depth_format = {}});
  EXPECT_KIND(no_depth.depth_attachment(), InvalidArgument);
  OffscreenTarget with_depth(d, {.width = 4, .height = 4});
  EXPECT_KIND(with_depth.depth_attachment(1.5f), InvalidArgument);
  EXPECT_KIND(with_depth.depth_attachment(-0.1f), InvalidArgument);
  EXPECT_KIND(with_depth.depth_attachment(std::nanf("")), InvalidArgument);
  EXPECT_KIND(with_depth.begin_render_pass(nullptr, {0, 0, 0, 1}), InvalidArgument);
}

TEST(OffscreenDevice, ReadBackRefusesTexturesItCannotCopy) {
  const Device& d = shared_device();
  auto make = [&](WGPUTextureFormat format, WGPUTextureUsage usage) {
    WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
    td.size = {4, 4, 1};
    td.format = format;
    td.usage = usage;
    return gpu::Texture::acquire(wgpuDeviceCreateTexture(d.get(), &td));
  };
  gpu::Texture no_copy_src = make(WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_TextureBinding);
  EXPECT_KIND(read_back(d, no_copy_src.get()), InvalidArgument);
  gpu::Texture float16 = make(WGPUTextureFormat_RGBA16Float,
                              WGPUTextureUsage_RenderAttachment | WGPUTextureUsage_CopySrc);
  EXPECT_KIND(read_back(d, float16.get()), InvalidArgument);
  OffscreenTarget target(d, {.width = 4, .height = 4});
  EXPECT_KIND(read_back(d, target.depth()), InvalidArgument);  // no COPY_SRC, not a colour format
  EXPECT_KIND(read_back(d, nullptr), InvalidArgument);
  d.check();  // nothing reached the implementation
}

}  // namespace
}  // namespace bindery

namespace bindery {
namespace {

// Issue 26: reading the culling counts back took 12 lines of MapAsync and polling.
TEST(BufferReadbackDevice, ReadsWhatWasWrittenAtAnOffset) {
  const Device device = Device::create();
  gpu::Buffer source =
      device.create_buffer("source", 64, WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
  std::vector<uint32_t> words(16);
  for (uint32_t i = 0; i < 16; ++i) words[i] = 0x01010101u * i + 7;
  device.write_buffer(source.get(), 0, words.data(), 64);
  // Words 4..7 (bytes 16..31): 0x01010101 * i + 7 for i = 4..7.
  const std::vector<std::byte> bytes = read_back_buffer(device, source.get(), 16, 16);
  ASSERT_EQ(bytes.size(), 16u);
  uint32_t got[4];
  std::memcpy(got, bytes.data(), 16);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(got[i], 0x01010101u * (i + 4) + 7) << i;
  // Two steps, into the caller's encoder, read twice with a new write between.
  BufferReadback readback(device, 8);
  for (uint32_t round = 0; round < 2; ++round) {
    const uint32_t pair[2] = {100 + round, 200 + round};
    device.write_buffer(source.get(), 56, pair, 8);
    auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}));
    readback.record_copy(encoder.get(), source.get(), 56);
    const gpu::CommandBuffer commands = device.finish(encoder.get(), "readback");
    const WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
    const std::vector<std::byte> two = readback.read();
    uint32_t back[2];
    std::memcpy(back, two.data(), 8);
    EXPECT_EQ(back[0], 100 + round);
    EXPECT_EQ(back[1], 200 + round);
  }
}

TEST(BufferReadbackDevice, RefusesCopiesWebGPUWouldRefuse) {
  const Device device = Device::create();
  EXPECT_KIND(BufferReadback(device, 0), InvalidArgument);
  EXPECT_KIND(BufferReadback(device, 6), InvalidArgument);
  gpu::Buffer source =
      device.create_buffer("source", 32, WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
  gpu::Buffer no_copy = device.create_buffer("uniform", 32, WGPUBufferUsage_Uniform);
  EXPECT_KIND(read_back_buffer(device, source.get(), 2, 8), InvalidArgument);    // offset % 4
  EXPECT_KIND(read_back_buffer(device, source.get(), 28, 8), InvalidArgument);   // past the end
  EXPECT_KIND(read_back_buffer(device, no_copy.get(), 0, 8), InvalidArgument);   // no COPY_SRC
  EXPECT_KIND(read_back_buffer(device, nullptr, 0, 8), InvalidArgument);
  EXPECT_NO_THROW(device.check());  // refused before WebGPU saw anything
}

}  // namespace
}  // namespace bindery
