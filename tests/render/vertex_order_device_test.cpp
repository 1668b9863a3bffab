// SPDX-License-Identifier: MIT
// RenderOptions::vertex_order (issue 28) on lavapipe: the mesh pool reorders each mesh's triangles
// for the vertex cache ("optimized", the default) or keeps the scene's order ("source"); the
// vertices, the triangles and their winding are the same, so a scene renders to the same image
// with both. The per-object path (gpu-driven with --clusters off, and a CPU-side strategy) draws
// from the pool's index buffer; the bound is the one of triangles drawn in another order: only a
// pixel where two triangles tie in depth may differ, at most 1 in 10,000 (none were seen).
#include <bindery/core/device.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/cluster_scenes.hpp"
#include "support/device.hpp"
#include "support/expect_kind.hpp"
#include "support/images.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

namespace bindery {
namespace {

using test::shared_device;

// Every mesh's triangles in a random order (each triangle's corners as they were): the
// cache-hostile order the reorder undoes.
void shuffle_triangles(Scene& scene, uint32_t seed) {
  std::mt19937 rng(seed);
  for (Mesh& m : scene.meshes) {
    const size_t n = m.indices.size() / 3;
    for (size_t i = n; i > 1; --i) {
      const size_t j = rng() % i;
      for (int k = 0; k < 3; ++k) std::swap(m.indices[3 * (i - 1) + k], m.indices[3 * j + k]);
    }
  }
}

RenderOptions options(const std::string& strategy, const std::string& order, uint32_t w,
                      uint32_t h) {
  RenderOptions o;
  o.strategy = strategy;
  o.width = w;
  o.height = h;
  o.frames = 3;  // gpu-driven's phase 1 draws last frame's visible set from the second frame on
  o.time_s = 2.0f;
  if (strategy == "gpu-driven") o.clusters = "off";
  o.vertex_order = order;
  return o;
}

void expect_same_image(const Scene& scene, const std::string& name, uint32_t w, uint32_t h) {
  for (const char* strategy : {"gpu-driven", "dynamic-offsets"}) {
    SCOPED_TRACE(std::string(name) + ", " + strategy);
    const RenderReport source = render(shared_device(), scene, options(strategy, "source", w, h));
    const RenderReport optimized =
        render(shared_device(), scene, options(strategy, "optimized", w, h));
    EXPECT_EQ(source.vertex_order, "source");
    EXPECT_EQ(optimized.vertex_order, "optimized");
    ASSERT_TRUE(source.last_frame && optimized.last_frame);
    // The scene is on screen (a blank image would compare equal too).
    uint64_t covered = 0;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) covered += !test::background(*source.last_frame, x, y);
    EXPECT_GT(covered, uint64_t(w) * h / 10);
    const uint64_t differing = count_differing_pixels(*source.last_frame, *optimized.last_frame, 0);
    std::printf("%s, %s: %llu of %u pixels differ\n", name.c_str(), strategy,
                (unsigned long long)differing, w * h);
    EXPECT_LE(differing, uint64_t(w) * h / 10000);
    test::dump_on_failure("vertex_order_" + name + "_" + strategy, *source.last_frame,
                          *optimized.last_frame);
  }
}

// A closed bumped sphere of 81,920 triangles filling the view, shuffled; the cubes (2,000
// overlapping objects); a city of 60 meshes, shuffled.
TEST(VertexOrder, BothOrdersRenderTheSameImage) {
  Scene sphere = test::closed_mesh_scene(6);
  shuffle_triangles(sphere, 1);
  expect_same_image(sphere, "sphere", 160, 120);
  expect_same_image(make_cube_scene({.objects = 2'000, .seed = 3}), "cubes", 160, 120);
  CitySceneOptions c;
  c.objects = 3'000;
  c.meshes = 60;
  Scene city = make_city_scene(c);
  shuffle_triangles(city, 2);
  expect_same_image(city, "city", 160, 120);
}

TEST(VertexOrder, GltfSamplesRenderTheSameImage) {
  if (!std::filesystem::exists(test::kGltfSampleFolder))
    GTEST_SKIP() << "assimp-testmodels not installed";
  const std::string engine =
      std::string(test::kGltfSampleFolder) + "/2CylinderEngine-glTF-Binary/2CylinderEngine.glb";
  if (!std::filesystem::exists(engine)) GTEST_SKIP() << engine << " missing";
  expect_same_image(load_gltf_scene(engine, 1), "engine", 160, 120);
}

TEST(VertexOrder, RefusesAnotherValue) {
  const Scene scene = make_cube_scene({.objects = 2, .seed = 1});
  for (const char* bad : {"", "Optimized", "shuffled"})
    EXPECT_KIND(render(shared_device(), scene, options("dynamic-offsets", bad, 8, 8)),
                InvalidArgument);
}

}  // namespace
}  // namespace bindery
