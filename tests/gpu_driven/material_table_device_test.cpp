// SPDX-License-Identifier: MIT
// MaterialTable on a device (lavapipe on CPU-only machines). A scene of 8 materials over 6
// textures in 5 sizes (64x64 with 7 levels twice, 64x64 with 1 level, 32x16, 20x12, 16x16) and 3
// samplers (seed 003's clamp/linear/nearest-mip; repeat + mirror, nearest magnification, linear
// mips; clamp, nearest, level 0 only) is drawn twice into a 128 x 64 target, one quad per
// material in a 4 x 2 grid:
//   A. through the MaterialTable: one bind group for all draws, the fragment stage reads the
//      material's record and samples with material_texel() (textureSample of every pair in
//      uniform control flow for at most kMaxImplicitLodPairs (array, sampler) pairs, else
//      textureSampleGrad with dpdx/dpdy);
//   B. as the CPU strategies draw: one bind group per material (its texture view and sampler from
//      upload_scene(), src/render/gpu_scene.cpp), sampled with the call A uses: textureSample
//      (the CPU strategies' own) or textureSampleGrad with the same dpdx/dpdy.
// Each quad has per-vertex clip w (perspective-correct texture coordinates, so the derivatives vary
// per pixel) and coordinates beyond [0, 1] (address modes), at 1x to 3x repetition (minified,
// magnified and in between, so several mip levels are chosen). A and B must give identical
// images: zero pixels differ. Then with one layer per array (every texture its own array), after
// set_material, the record bytes at the offsets worked out from WGSL §14.4, and the limits.
#include "bindery/device.hpp"
#include "bindery/gpu_driven/material_table.hpp"
#include "bindery/offscreen.hpp"

#include "support/device.hpp"
#include "support/expect_kind.hpp"
#include "headless/map_and_wait.hpp"
#include "render/strategies/strategy.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <cstring>

namespace bindery::gpu_driven {
namespace {

using test::shared_device;

constexpr uint32_t kWidth = 128, kHeight = 64;

// Every vertex stage: quad `material` (instance_index) in cell (material % 4, material / 4).
constexpr const char* kVertex = R"(
struct VOut {
  @builtin(position) pos: vec4f,
  @location(0) uv: vec2f,
  @location(1) @interpolate(flat) material: u32,
};
@vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) material: u32) -> VOut {
  let corners = array(vec2f(0, 0), vec2f(1, 0), vec2f(0, 1), vec2f(0, 1), vec2f(1, 0), vec2f(1, 1));
  let c = corners[v];
  let cell = vec2f(f32(material % 4u), f32(material / 4u));
  let ndc = vec2f(-1.0 + (cell.x + 0.05 + 0.9 * c.x) * 0.5, 1.0 - (cell.y + 0.05 + 0.9 * c.y));
  let w = 1.0 + 1.5 * c.x + 0.75 * c.y;
  var o: VOut;
  o.pos = vec4f(ndc * w, 0.5, w);
  o.uv = (c * 1.5 - 0.25) * (1.0 + f32(material % 3u));
  o.material = material;
  return o;
}
)";

constexpr const char* kTableFragment = R"(
@fragment fn fs(in: VOut) -> @location(0) vec4f {
  let ddx = dpdx(in.uv);
  let ddy = dpdy(in.uv);
  let m = materialRecords[in.material];
  return material_texel(m, in.uv, ddx, ddy) * m.color;
}
)";

constexpr const char* kReferenceBindings = R"(
@group(0) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(0) @binding(1) var diffuseSampler: sampler;
@group(0) @binding(2) var<uniform> color: vec4f;
)";

// What the CPU strategies' shade() is given (shaders/cubes_common.wgsl): textureSample.
constexpr const char* kImplicitFragment = R"(
@fragment fn fs(in: VOut) -> @location(0) vec4f {
  return textureSample(diffuseTexture, diffuseSampler, in.uv) * color;
}
)";

// The same texture and sampler with the table's explicit derivatives.
constexpr const char* kGradFragment = R"(
@fragment fn fs(in: VOut) -> @location(0) vec4f {
  let ddx = dpdx(in.uv);
  let ddy = dpdy(in.uv);
  return textureSampleGrad(diffuseTexture, diffuseSampler, in.uv, ddx, ddy) * color;
}
)";

// Level L of texture `index`: a different pattern per level (so the chosen level shows) and per
// texel (so the filter shows).
TextureData test_texture(uint32_t index, uint32_t w, uint32_t h, uint32_t levels) {
  TextureData t;
  t.name = "t" + std::to_string(index);
  t.width = w;
  t.height = h;
  for (uint32_t level = 0; level < levels; ++level) {
    const uint32_t lw = std::max(1u, w >> level), lh = std::max(1u, h >> level);
    std::vector<uint8_t> px(size_t(lw) * lh * 4);
    for (uint32_t y = 0; y < lh; ++y)
      for (uint32_t x = 0; x < lw; ++x) {
        uint8_t* p = &px[(size_t(y) * lw + x) * 4];
        p[0] = uint8_t(x * 17 + level * 40 + index * 23);
        p[1] = uint8_t(y * 29 + level * 60);
        p[2] = uint8_t((x ^ y) * 13 + index * 71);
        p[3] = 255;
      }
    t.mips.push_back(std::move(px));
  }
  return t;
}

Scene test_scene() {
  Scene s;
  s.textures = {test_texture(0, 64, 64, 7), test_texture(1, 64, 64, 7), test_texture(2, 32, 16, 6),
                test_texture(3, 64, 64, 1), test_texture(4, 20, 12, 5),
                test_texture(5, 16, 16, 5)};
  SamplerData repeat;
  repeat.address_mode_u = AddressMode::repeat;
  repeat.address_mode_v = AddressMode::mirror_repeat;
  repeat.mag_filter = FilterMode::nearest;
  repeat.mipmap_filter = FilterMode::linear;
  SamplerData level0;
  level0.mag_filter = level0.min_filter = FilterMode::nearest;
  level0.use_mipmaps = false;
  s.samplers = {SamplerData{}, repeat, level0};
  const uint32_t texture[8] = {0, 1, 2, 3, 4, 5, 2, 0};
  const uint32_t sampler[8] = {0, 1, 0, 1, 2, 0, 1, 2};
  for (uint32_t m = 0; m < 8; ++m) {
    Material mat;
    mat.texture = texture[m];
    mat.sampler = sampler[m];
    mat.color = glm::vec4(1.0f - 0.1f * float(m), 0.5f + 0.05f * float(m), 1.0f, 1.0f);
    s.materials.push_back(mat);
  }
  return s;
}

gpu::BindGroupLayout make_layout(const Device& d, std::span<const WGPUBindGroupLayoutEntry> e) {
  WGPUBindGroupLayoutDescriptor desc = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  desc.entryCount = e.size();
  desc.entries = e.data();
  return gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(d.get(), &desc));
}

gpu::BindGroup make_group(const Device& d, WGPUBindGroupLayout layout,
                          std::span<const WGPUBindGroupEntry> e) {
  WGPUBindGroupDescriptor desc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  desc.layout = layout;
  desc.entryCount = e.size();
  desc.entries = e.data();
  return d.create_bind_group(desc);
}

gpu::RenderPipeline make_pipeline(const Device& d, const std::string& wgsl,
                                  WGPUBindGroupLayout group0) {
  gpu::ShaderModule module = d.create_shader_module("material table test", wgsl);
  WGPUPipelineLayoutDescriptor pl = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  pl.bindGroupLayoutCount = 1;
  pl.bindGroupLayouts = &group0;
  auto layout = gpu::PipelineLayout::acquire(wgpuDeviceCreatePipelineLayout(d.get(), &pl));
  WGPUColorTargetState color = WGPU_COLOR_TARGET_STATE_INIT;
  color.format = kOffscreenColorFormat;
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = module.get();
  fs.entryPoint = gpu::sv("fs");
  fs.targetCount = 1;
  fs.targets = &color;
  WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  pd.layout = layout.get();
  pd.vertex.module = module.get();
  pd.vertex.entryPoint = gpu::sv("vs");
  pd.fragment = &fs;
  auto pipeline = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(d.get(), &pd));
  d.check();
  return pipeline;
}

// Draws quad m with groups[m] (or groups[0] for every quad when there is one group).
Image draw(const Device& d, WGPURenderPipeline pipeline, std::span<const gpu::BindGroup> groups,
           uint32_t quads) {
  OffscreenTarget target(d, {.width = kWidth, .height = kHeight,
                             .depth_format = WGPUTextureFormat_Undefined});
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  {
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0.1, 0.2, 0.3, 1.0});
    wgpuRenderPassEncoderSetPipeline(pass.get(), pipeline);
    for (uint32_t m = 0; m < quads; ++m) {
      if (m == 0 || groups.size() > 1)
        wgpuRenderPassEncoderSetBindGroup(pass.get(), 0, groups[groups.size() > 1 ? m : 0].get(),
                                          0, nullptr);
      wgpuRenderPassEncoderDraw(pass.get(), 6, 1, 0, m);
    }
    wgpuRenderPassEncoderEnd(pass.get());
  }
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  d.submit({&raw, 1});
  return read_back(d, target);
}

Image draw_with_table(const Device& d, const MaterialTable& table, uint32_t quads) {
  const auto entries = table.layout_entries(0);
  gpu::BindGroupLayout layout = make_layout(d, entries);
  const auto bindings = table.group_entries(0);
  std::vector<gpu::BindGroup> groups;
  groups.push_back(make_group(d, layout.get(), bindings));
  gpu::RenderPipeline p =
      make_pipeline(d, table.wgsl(0, 0) + kVertex + kTableFragment, layout.get());
  return draw(d, p.get(), groups, quads);
}

// One bind group per material: the CPU strategies' texture views and samplers (upload_scene).
Image draw_per_material(const Device& d, const Scene& scene, bool implicit_lod = false) {
  const strategies::GpuScene gpu = strategies::upload_scene(d, scene);
  WGPUBindGroupLayoutEntry e[3] = {WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT,
                                   WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT,
                                   WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT};
  for (uint32_t i = 0; i < 3; ++i) {
    e[i].binding = i;
    e[i].visibility = WGPUShaderStage_Fragment;
  }
  e[0].texture.sampleType = WGPUTextureSampleType_Float;
  e[0].texture.viewDimension = WGPUTextureViewDimension_2D;
  e[1].sampler.type = WGPUSamplerBindingType_Filtering;
  e[2].buffer.type = WGPUBufferBindingType_Uniform;
  gpu::BindGroupLayout layout = make_layout(d, e);
  std::vector<gpu::Buffer> colors;
  std::vector<gpu::BindGroup> groups;
  for (const Material& m : scene.materials) {
    colors.push_back(d.create_buffer("color", 16, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst));
    d.write_buffer(colors.back().get(), 0, &m.color, 16);
    WGPUBindGroupEntry b[3] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT,
                               WGPU_BIND_GROUP_ENTRY_INIT};
    for (uint32_t i = 0; i < 3; ++i) b[i].binding = i;
    b[0].textureView = gpu.views[m.texture].get();
    b[1].sampler = gpu.samplers[m.sampler].get();
    b[2].buffer = colors.back().get();
    b[2].size = 16;
    groups.push_back(make_group(d, layout.get(), b));
  }
  gpu::RenderPipeline p =
      make_pipeline(d, std::string(kVertex) + kReferenceBindings +
                                       (implicit_lod ? kImplicitFragment : kGradFragment),
                                   layout.get());
  return draw(d, p.get(), groups, static_cast<uint32_t>(scene.materials.size()));
}

struct QuadDiff {
  size_t pixels = 0;  ///< pixels of the quad's cell that differ in any channel
  int worst = 0;      ///< largest difference of one channel, levels
};

// Per quad (cell (q % 4, q / 4), 32 x 32 pixels): the pixels that differ. Also checks that every
// quad drew something (no quad is the clear colour (26, 51, 77) at its centre).
std::array<QuadDiff, 8> differing_per_quad(const Image& a, const Image& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  std::array<QuadDiff, 8> q{};
  for (uint32_t y = 0; y < a.height; ++y)
    for (uint32_t x = 0; x < a.width; ++x)
      if (std::memcmp(a.pixel(x, y), b.pixel(x, y), 4) != 0) {
        QuadDiff& d = q[(y / 32) * 4 + x / 32];
        d.pixels++;
        for (int c = 0; c < 4; ++c)
          d.worst = std::max(d.worst, std::abs(int(a.pixel(x, y)[c]) - int(b.pixel(x, y)[c])));
      }
  for (uint32_t m = 0; m < 8; ++m) {
    const uint8_t* centre = a.pixel((m % 4) * 32 + 16, (m / 4) * 32 + 16);
    EXPECT_FALSE(centre[0] == 26 && centre[1] == 51 && centre[2] == 77) << "quad " << m;
  }
  return q;
}

// All differing pixels; each quad with any is reported.
size_t differing_pixels(const Image& a, const Image& b) {
  size_t n = 0;
  const std::array<QuadDiff, 8> q = differing_per_quad(a, b);
  for (uint32_t m = 0; m < 8; ++m) {
    n += q[m].pixels;
    if (q[m].pixels > 0)
      ADD_FAILURE() << "quad " << m << ": " << q[m].pixels << " pixels differ, by up to "
                    << q[m].worst << " levels";
  }
  return n;
}

TEST(MaterialTableDevice, SameImageAsOneBindGroupPerMaterial) {
  const Device& d = shared_device();
  const Scene scene = test_scene();
  const MaterialTable table(d, scene.materials, scene.textures, scene.samplers);
  // 64x64x7 (textures 0, 1), 32x16x6, 64x64x1, 20x12x5, 16x16x5.
  ASSERT_EQ(table.classes().size(), 5u);
  EXPECT_EQ(table.classes()[0].layers, 2u);
  EXPECT_EQ(table.slot(1), (TextureSlot{0, 1}));
  EXPECT_EQ(table.slot(5), (TextureSlot{4, 0}));
  const Image expected = draw_per_material(d, scene, table.implicit_lod());
  const Image actual = draw_with_table(d, table, 8);
  EXPECT_EQ(differing_pixels(actual, expected), 0u);
}

// Every texture its own 1-layer array (6 arrays): the same image again.
TEST(MaterialTableDevice, OneLayerArraysGiveTheSameImage) {
  const Device& d = shared_device();
  const Scene scene = test_scene();
  MaterialTableDesc desc;
  desc.max_array_layers = 1;
  const MaterialTable table(d, scene.materials, scene.textures, scene.samplers, desc);
  ASSERT_EQ(table.classes().size(), 6u);
  for (uint32_t t = 0; t < 6; ++t) EXPECT_EQ(table.slot(t), (TextureSlot{t, 0}));
  EXPECT_EQ(differing_pixels(draw_with_table(d, table, 8),
                             draw_per_material(d, scene, table.implicit_lod())),
            0u);
}

// Against textureSample (the CPU strategies' call): the quads whose sampling does not depend on
// the level of detail are identical: 3 (texture 3 has one level), 4 and 7 (sampler 2 samples level
// 0 only). The others may differ, and on lavapipe do, because lavapipe (llvmpipe) computes an
// implicit level of detail once per 2x2 quad from the derivatives at its top-left pixel, while
// textureSampleGrad takes each pixel's own dpdx/dpdy (lavapipe's dpdx and dpdy are per row and
// column of the quad) and its level-of-detail arithmetic differs slightly. Measured at 128 x 64:
// with nearest mip filtering about 10 boundary pixels per quad pick the neighbouring level; with
// linear mip filtering most pixels differ, by up to about 120 levels with these textures, whose
// levels are deliberately unlike each other. WGSL allows both (textureSample's derivatives are
// implementation-defined, WGSL §17.5 "derivative builtin functions"), so the exact comparison is
// the one above, with the same derivatives on both sides.
TEST(MaterialTableDevice, LodIndependentQuadsMatchTextureSample) {
  const Device& d = shared_device();
  const Scene scene = test_scene();
  const MaterialTable table(d, scene.materials, scene.textures, scene.samplers);
  const std::array<QuadDiff, 8> q =
      differing_per_quad(draw_with_table(d, table, 8), draw_per_material(d, scene, true));
  for (uint32_t m : {3u, 4u, 7u}) EXPECT_EQ(q[m].pixels, 0u) << "quad " << m;
  for (uint32_t m = 0; m < 8; ++m)
    std::printf("quad %u (texture %u, sampler %u): %zu pixels differ from textureSample, by up to "
                "%d levels\n",
                m, scene.materials[m].texture, scene.materials[m].sampler, q[m].pixels,
                q[m].worst);
}

// set_material moves material 3 to texture 4 with sampler 0 and material 6 to texture 1 with
// sampler 2: the image follows.
TEST(MaterialTableDevice, SetMaterialRewritesOneRecord) {
  const Device& d = shared_device();
  Scene scene = test_scene();
  MaterialTable table(d, scene.materials, scene.textures, scene.samplers);
  scene.materials[3].texture = 4;
  scene.materials[3].sampler = 0;
  scene.materials[6].texture = 1;
  scene.materials[6].sampler = 2;
  scene.materials[6].color = glm::vec4(0.25f, 1.0f, 0.5f, 1.0f);
  table.set_material(3, scene.materials[3]);
  table.set_material(6, scene.materials[6]);
  EXPECT_EQ(differing_pixels(draw_with_table(d, table, 8),
                             draw_per_material(d, scene, table.implicit_lod())),
            0u);
  EXPECT_KIND(table.set_material(8, scene.materials[0]), InvalidArgument);
  Material bad;
  bad.texture = 6;
  EXPECT_KIND(table.set_material(0, bad), InvalidArgument);
  bad.texture = 0;
  bad.sampler = 3;
  EXPECT_KIND(table.set_material(0, bad), InvalidArgument);
}

// The record bytes as the GPU holds them, at WGSL §14.4's offsets (material_table_test.cpp):
// color 0, shininess 16, alphaCutoff 20 (0 opaque, the cutoff for mask, -1 blend),
// textureArray 24, layer 28, sampler 32; stride 48.
TEST(MaterialTableDevice, RecordBytes) {
  const Device& d = shared_device();
  Scene scene = test_scene();
  scene.materials[1].alpha_mode = AlphaMode::mask;
  scene.materials[1].alpha_cutoff = 0.375f;
  scene.materials[1].shininess = 77.0f;
  scene.materials[2].alpha_mode = AlphaMode::blend;
  const MaterialTable table(d, scene.materials, scene.textures, scene.samplers);
  ASSERT_EQ(table.record_layout().size, 48u);
  const uint64_t bytes = 48 * 8;
  gpu::Buffer copy = d.create_buffer("read", bytes, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), table.buffer(), 0, copy.get(), 0, bytes);
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  d.submit({&raw, 1});
  map_and_wait(d, copy.get(), WGPUMapMode_Read, bytes);
  std::vector<std::byte> got(bytes);
  std::memcpy(got.data(), wgpuBufferGetConstMappedRange(copy.get(), 0, bytes), bytes);
  wgpuBufferUnmap(copy.get());
  auto f32 = [&](size_t at) { float v; std::memcpy(&v, &got[at], 4); return v; };
  auto u32 = [&](size_t at) { uint32_t v; std::memcpy(&v, &got[at], 4); return v; };
  // Material 1: texture 1 = array 0 layer 1, sampler 1, colour (0.9, 0.55, 1, 1).
  EXPECT_EQ(f32(48 + 0), 0.9f);
  EXPECT_EQ(f32(48 + 4), 0.55f);
  EXPECT_EQ(f32(48 + 8), 1.0f);
  EXPECT_EQ(f32(48 + 16), 77.0f);
  EXPECT_EQ(f32(48 + 20), 0.375f);
  EXPECT_EQ(u32(48 + 24), 0u);
  EXPECT_EQ(u32(48 + 28), 1u);
  EXPECT_EQ(u32(48 + 32), 1u);
  // Material 2 (blend): texture 2 = array 1 layer 0, sampler 0. Material 0 (opaque): cutoff 0.
  EXPECT_EQ(f32(96 + 20), -1.0f);
  EXPECT_EQ(u32(96 + 24), 1u);
  EXPECT_EQ(u32(96 + 28), 0u);
  EXPECT_EQ(u32(96 + 32), 0u);
  EXPECT_EQ(f32(20), 0.0f);
  EXPECT_EQ(f32(16), 30.0f);
  // Material 4: texture 4 = array 3 layer 0 (20x12), sampler 2.
  EXPECT_EQ(u32(4 * 48 + 24), 3u);
  EXPECT_EQ(u32(4 * 48 + 32), 2u);
}

TEST(MaterialTableDevice, LimitsAndBadInput) {
  const Device& d = shared_device();
  const Scene scene = test_scene();  // 5 arrays, 3 samplers
  const Limits& l = d.limits();
  // 4 texture bindings left for 5 arrays; 2 sampler bindings left for 3 samplers.
  EXPECT_KIND(MaterialTable(d, scene.materials, scene.textures, scene.samplers, {},
                            l.maxSampledTexturesPerShaderStage - 4, 0),
              StrategyUnavailable);
  EXPECT_KIND(MaterialTable(d, scene.materials, scene.textures, scene.samplers, {}, 0,
                            l.maxSamplersPerShaderStage - 2),
              StrategyUnavailable);
  // Exactly enough: 5 and 3 left.
  EXPECT_NO_THROW(MaterialTable(d, scene.materials, scene.textures, scene.samplers, {},
                                l.maxSampledTexturesPerShaderStage - 5,
                                l.maxSamplersPerShaderStage - 3));
  Scene bad = scene;
  bad.materials[0].texture = 6;
  EXPECT_KIND(MaterialTable(d, bad.materials, bad.textures, bad.samplers), InvalidArgument);
  bad = scene;
  bad.textures[2].mips[1].pop_back();
  EXPECT_KIND(MaterialTable(d, bad.materials, bad.textures, bad.samplers), InvalidArgument);
  bad = scene;
  bad.textures[0].width = l.maxTextureDimension2D + 1;
  EXPECT_KIND(MaterialTable(d, bad.materials, bad.textures, bad.samplers), TextureSizeOutOfRange);
  // No texture at all: material_texel is white, the pipeline still builds.
  const MaterialTable none(d, scene.materials, {}, {});
  EXPECT_TRUE(none.classes().empty());
  EXPECT_NO_THROW(draw_with_table(d, none, 8));
}

}  // namespace
}  // namespace bindery::gpu_driven
