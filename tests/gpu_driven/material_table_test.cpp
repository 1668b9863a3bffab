// SPDX-License-Identifier: MIT
// bindery/gpu_driven/material_table.hpp without a device: size-class grouping (worked by hand
// below), the split at max_layers, the samplers' descriptors, and the layout of the generated
// WGSL's MaterialRecord (WGSL §14.4: vec4f at 0 (align 16), four 4-byte scalars at 16, 20, 24,
// 28, one more at 32; the struct ends at 36, rounded up to its alignment 16 = 48 bytes).
#include "bindery/gpu_driven/material_table.hpp"
#include "support/expect_kind.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace bindery::gpu_driven {
namespace {

// A texture of w x h with `levels` mip levels of the right byte sizes (contents irrelevant here).
TextureData texture(uint32_t w, uint32_t h, uint32_t levels) {
  TextureData t;
  t.width = w;
  t.height = h;
  for (uint32_t i = 0; i < levels; ++i)
    t.mips.emplace_back(size_t(std::max(1u, w >> i)) * std::max(1u, h >> i) * 4, uint8_t(0));
  return t;
}

void expect_class(const TextureClass& c, uint32_t w, uint32_t h, uint32_t mips, uint32_t layers) {
  EXPECT_EQ(c.width, w);
  EXPECT_EQ(c.height, h);
  EXPECT_EQ(c.mip_levels, mips);
  EXPECT_EQ(c.format, WGPUTextureFormat_RGBA8Unorm);
  EXPECT_EQ(c.layers, layers);
}

// 64x64 (7 levels), 64x64 (7), 32x16 (6), 64x64 with 1 level: the two full 64x64 share an array,
// the 64x64 with fewer levels is a class of its own.
TEST(PlanTextureClasses, GroupsBySizeAndMipCount) {
  const std::vector<TextureData> t = {texture(64, 64, 7), texture(64, 64, 7), texture(32, 16, 6),
                                      texture(64, 64, 1)};
  const TextureClassPlan plan = plan_texture_classes(t, 256);
  ASSERT_EQ(plan.classes.size(), 3u);
  expect_class(plan.classes[0], 64, 64, 7, 2);
  expect_class(plan.classes[1], 32, 16, 6, 1);
  expect_class(plan.classes[2], 64, 64, 1, 1);
  const std::vector<TextureSlot> expected = {{0, 0}, {0, 1}, {1, 0}, {2, 0}};
  EXPECT_EQ(plan.slots, expected);
}

// Width and height are not interchangeable: 20x12 and 12x20 (both 5 levels) are two classes.
TEST(PlanTextureClasses, TransposedSizesAreDifferentClasses) {
  const std::vector<TextureData> t = {texture(20, 12, 5), texture(12, 20, 5), texture(20, 12, 5)};
  const TextureClassPlan plan = plan_texture_classes(t, 256);
  ASSERT_EQ(plan.classes.size(), 2u);
  expect_class(plan.classes[0], 20, 12, 5, 2);
  expect_class(plan.classes[1], 12, 20, 5, 1);
  const std::vector<TextureSlot> expected = {{0, 0}, {1, 0}, {0, 1}};
  EXPECT_EQ(plan.slots, expected);
}

// max_layers 2: five 8x8 textures with a 4x4 among them. 8x8 #0, #1 fill array 0; the 4x4 opens
// array 1; the third 8x8 finds array 0 full and opens array 2, the fourth joins it, the fifth
// opens array 3.
TEST(PlanTextureClasses, SplitsAClassAtMaxLayers) {
  const std::vector<TextureData> t = {texture(8, 8, 4), texture(8, 8, 4), texture(4, 4, 3),
                                      texture(8, 8, 4), texture(8, 8, 4), texture(8, 8, 4)};
  const TextureClassPlan plan = plan_texture_classes(t, 2);
  ASSERT_EQ(plan.classes.size(), 4u);
  expect_class(plan.classes[0], 8, 8, 4, 2);
  expect_class(plan.classes[1], 4, 4, 3, 1);
  expect_class(plan.classes[2], 8, 8, 4, 2);
  expect_class(plan.classes[3], 8, 8, 4, 1);
  const std::vector<TextureSlot> expected = {{0, 0}, {0, 1}, {1, 0}, {2, 0}, {2, 1}, {3, 0}};
  EXPECT_EQ(plan.slots, expected);
}

// max_layers 1: every texture an array of its own, even equal ones.
TEST(PlanTextureClasses, OneLayerPerArray) {
  const std::vector<TextureData> t = {texture(4, 4, 3), texture(4, 4, 3), texture(4, 4, 3)};
  const TextureClassPlan plan = plan_texture_classes(t, 1);
  ASSERT_EQ(plan.classes.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    expect_class(plan.classes[i], 4, 4, 3, 1);
    EXPECT_EQ(plan.slots[i], (TextureSlot{i, 0}));
  }
}

// 257 equal textures at the spec's default maxTextureArrayLayers (256): 256 + 1.
TEST(PlanTextureClasses, DefaultLimitSplitsAt256) {
  const std::vector<TextureData> t(257, texture(2, 2, 2));
  const TextureClassPlan plan = plan_texture_classes(t, 256);
  ASSERT_EQ(plan.classes.size(), 2u);
  EXPECT_EQ(plan.classes[0].layers, 256u);
  EXPECT_EQ(plan.classes[1].layers, 1u);
  EXPECT_EQ(plan.slots[255], (TextureSlot{0, 255}));
  EXPECT_EQ(plan.slots[256], (TextureSlot{1, 0}));
}

TEST(PlanTextureClasses, NoTexturesNoArrays) {
  const TextureClassPlan plan = plan_texture_classes({}, 256);
  EXPECT_TRUE(plan.classes.empty());
  EXPECT_TRUE(plan.slots.empty());
}

TEST(PlanTextureClasses, RejectsBadInput) {
  const std::vector<TextureData> good = {texture(4, 4, 1)};
  EXPECT_KIND(plan_texture_classes(good, 0), InvalidArgument);
  std::vector<TextureData> no_levels = {texture(4, 4, 1)};
  no_levels[0].mips.clear();
  EXPECT_KIND(plan_texture_classes(no_levels, 4), InvalidArgument);
  const std::vector<TextureData> zero = {texture(0, 4, 1)};
  EXPECT_KIND(plan_texture_classes(zero, 4), InvalidArgument);
}

// The descriptors the CPU strategies create (src/render/gpu_scene.cpp): seed 003's default is
// clamp-to-edge, linear/linear, nearest mips and the spec's lodMaxClamp 32.
TEST(SamplerDescriptor, MapsEveryField) {
  const WGPUSamplerDescriptor d = sampler_descriptor(SamplerData{});
  EXPECT_EQ(d.addressModeU, WGPUAddressMode_ClampToEdge);
  EXPECT_EQ(d.addressModeV, WGPUAddressMode_ClampToEdge);
  EXPECT_EQ(d.magFilter, WGPUFilterMode_Linear);
  EXPECT_EQ(d.minFilter, WGPUFilterMode_Linear);
  EXPECT_EQ(d.mipmapFilter, WGPUMipmapFilterMode_Nearest);
  EXPECT_EQ(d.lodMaxClamp, 32.0f);
  SamplerData s;
  s.address_mode_u = AddressMode::repeat;
  s.address_mode_v = AddressMode::mirror_repeat;
  s.mag_filter = FilterMode::nearest;
  s.min_filter = FilterMode::nearest;
  s.mipmap_filter = FilterMode::linear;
  s.use_mipmaps = false;
  const WGPUSamplerDescriptor e = sampler_descriptor(s);
  EXPECT_EQ(e.addressModeU, WGPUAddressMode_Repeat);
  EXPECT_EQ(e.addressModeV, WGPUAddressMode_MirrorRepeat);
  EXPECT_EQ(e.magFilter, WGPUFilterMode_Nearest);
  EXPECT_EQ(e.minFilter, WGPUFilterMode_Nearest);
  EXPECT_EQ(e.mipmapFilter, WGPUMipmapFilterMode_Linear);
  EXPECT_EQ(e.lodMaxClamp, 0.0f);
}

// The generated WGSL reflects cleanly: MaterialRecord's offsets (header comment) and the
// bindings at group 2 from binding 5: records 5, arrays 6..8, samplers 9..10.
TEST(MaterialTableWgsl, RecordLayoutAndBindings) {
  const Reflection r = reflect_wgsl(material_table_wgsl(2, 5, 3, 2));
  ASSERT_TRUE(r.ok()) << r.errors.front().message;
  const StructLayout& rec = r.struct_layout("MaterialRecord");
  EXPECT_EQ(rec.field("color").offset, 0u);
  EXPECT_EQ(rec.field("shininess").offset, 16u);
  EXPECT_EQ(rec.field("alphaCutoff").offset, 20u);
  EXPECT_EQ(rec.field("textureArray").offset, 24u);
  EXPECT_EQ(rec.field("layer").offset, 28u);
  EXPECT_EQ(rec.field("samplerIndex").offset, 32u);
  EXPECT_EQ(rec.size, 48u);
  ASSERT_EQ(r.bindings.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(r.bindings[i].group, 2u);
    EXPECT_EQ(r.bindings[i].binding, 5u + i);
  }
  EXPECT_EQ(r.bindings[0].space, BindingSpace::ReadOnlyStorage);
  EXPECT_EQ(r.bindings[0].min_binding_size, 48u);
  EXPECT_EQ(r.bindings[1].name, "materialArray0");
  EXPECT_EQ(r.bindings[3].name, "materialArray2");
  EXPECT_EQ(r.bindings[4].name, "materialSampler0");
  EXPECT_EQ(r.bindings[5].name, "materialSampler1");
}

// Every (sampler, array) pair is sampled once, with that array's and sampler's names.
size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Up to kMaxImplicitLodPairs (array, sampler) pairs: one textureSample per pair, no branch before
// them; more: one textureSampleGrad per pair inside the switches.
TEST(MaterialTableWgsl, OneSampleCallPerArrayAndSampler) {
  // material_texel, then material_texel_grad (never implicit: the compute rasterizer's resolve).
  const auto split = [](const std::string& w) {
    const size_t at = w.find("fn material_texel_grad(");
    EXPECT_NE(at, std::string::npos);
    return std::pair{w.substr(0, at), w.substr(at)};
  };
  const auto [w, w_grad] = split(material_table_wgsl(0, 0, 3, 2));
  EXPECT_EQ(count(w, "textureSample("), 6u);
  EXPECT_EQ(count(w, "textureSampleGrad("), 0u);
  EXPECT_EQ(count(w, "switch"), 0u);
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s)
      EXPECT_NE(w.find("textureSample(materialArray" + std::to_string(a) + ", materialSampler" +
                       std::to_string(s) + ","),
                std::string::npos);
  // 3 arrays x 2 samplers: 6 grad samples behind an outer switch and one inner switch a sampler.
  EXPECT_EQ(count(w_grad, "textureSampleGrad("), 6u);
  EXPECT_EQ(count(w_grad, "textureSample("), 0u);
  EXPECT_EQ(count(w_grad, "switch"), 3u);
  const auto [many, many_grad] = split(material_table_wgsl(0, 0, 17, 1));
  EXPECT_EQ(count(many, "textureSampleGrad("), 17u);
  EXPECT_EQ(count(many, "textureSample("), 0u);
  EXPECT_EQ(count(many_grad, "textureSampleGrad("), 17u);
  EXPECT_TRUE(material_texel_uses_implicit_lod(16, 1));
  EXPECT_FALSE(material_texel_uses_implicit_lod(17, 1));
  EXPECT_FALSE(material_texel_uses_implicit_lod(0, 1));
  const std::string none = material_table_wgsl(0, 0, 0, 0);
  EXPECT_EQ(none.find("textureSample"), std::string::npos);
  EXPECT_NE(none.find("fn material_texel("), std::string::npos);
  EXPECT_NE(none.find("fn material_texel_grad("), std::string::npos);
}

}  // namespace
}  // namespace bindery::gpu_driven
