// SPDX-License-Identifier: MIT
// Issue 27: each scene texture on the GPU once. The strategies whose MaterialTable holds the
// textures as 2D arrays (gpu-driven, gpu-culling, bundles-gpu) no longer upload them a second time
// as 2D textures, so the bytes of textures created equal the bytes of the model's images with
// their mip chains, for those strategies and for the CPU ones alike.
#include <bindery/core/device.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace bindery {
namespace {

const char* kModel = "/usr/share/assimp/models/glTF2/BoxTextured-glTF/BoxTextured.gltf";

// RGBA8 bytes of a width x height image with its full mip chain (levels down to 1x1).
uint64_t chain_bytes(uint32_t width, uint32_t height) {
  uint64_t bytes = 0;
  for (uint32_t w = width, h = height;; w = std::max(1u, w / 2), h = std::max(1u, h / 2)) {
    bytes += uint64_t(w) * h * 4;
    if (w == 1 && h == 1) break;
  }
  return bytes;
}

uint64_t scene_texture_bytes(const Scene& scene) {
  uint64_t bytes = 0;
  for (const TextureData& t : scene.textures) bytes += chain_bytes(t.width, t.height);
  return bytes;
}

Counters init_counters(const Scene& scene, const char* strategy) {
  RenderOptions o;
  o.width = o.height = 32;
  o.frames = 1;
  o.strategy = strategy;
  return render(test::shared_device(), scene, o).init;
}

TEST(TextureBytes, EachGltfTextureOnTheGpuOnce) {
  if (!std::filesystem::exists(kModel)) GTEST_SKIP() << kModel << " is not installed";
  const Scene scene = load_gltf_scene(kModel, 1);
  // The loader's white 1x1 texture 0 (materials without a base colour texture) and
  // CesiumLogoFlat.png, 211 x 211.
  ASSERT_EQ(scene.textures.size(), 2u);
  const uint64_t expected = chain_bytes(1, 1) + chain_bytes(211, 211);
  ASSERT_EQ(scene_texture_bytes(scene), expected);
  for (const char* strategy : {"gpu-driven", "gpu-culling", "dynamic-offsets"}) {
    SCOPED_TRACE(strategy);
    const Counters c = init_counters(scene, strategy);
    EXPECT_EQ(c.texture_bytes_created, expected);
  }
}

// bundles-gpu animates the article's cubes: its six textures of one size are one 2D array.
TEST(TextureBytes, EachCubeTextureOnTheGpuOnce) {
  const Scene scene = make_cube_scene({.objects = 64});
  const uint64_t expected = scene_texture_bytes(scene);
  ASSERT_GT(expected, 0u);
  EXPECT_EQ(init_counters(scene, "bundles-gpu").texture_bytes_created, expected);
  EXPECT_EQ(init_counters(scene, "dynamic-offsets").texture_bytes_created, expected);
}

}  // namespace
}  // namespace bindery
