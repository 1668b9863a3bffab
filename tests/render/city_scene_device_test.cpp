// SPDX-License-Identifier: MIT
// The generated city on a device (lavapipe on CPU-only machines): every strategy that can draw it
// renders the small city (300 objects, 20 meshes, 8 textures of 8 sizes, 30 cars) to the image
// dynamic-offsets renders; updating only the cars each frame gives the image of updating
// everything; the report counts the scene's meshes, materials, textures and moved objects.
#include <bindery/device.hpp>
#include <bindery/renderer.hpp>
#include <bindery/scene.hpp>

#include "support/device.hpp"
#include "support/images.hpp"
#include "support/render_options.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>

namespace bindery {
namespace {

using test::shared_device;
using test::dump_on_failure;

const Scene& small_city() {
  static const Scene scene = make_city_scene(
      {.objects = 300, .meshes = 20, .materials = 12, .textures = 8, .moving = 0.1, .seed = 5});
  return scene;
}

// The city's test renders: 97 x 61 pixels (test::frozen: a given animation time).
RenderOptions frozen_city(const std::string& strategy, uint32_t frames, float time_s) {
  return test::frozen(strategy, 97, 61, frames, time_s);
}

// At most this many of the 97 x 61 = 5917 pixels may differ by more than one level: where two
// triangles of different objects meet at the same depth (a car's edge touching another car's at
// a crossing), strategies that draw in another order may keep the other one.
constexpr uint64_t kDepthTiePixels = 6;  // 0.1%

// The city's clear colour (0.62, 0.74, 0.86) in 8-bit unorm: 158.1, 188.7, 219.3.
constexpr uint8_t kSky[3] = {158, 189, 219};

TEST(CitySceneDevice, EveryStrategyRendersWhatDynamicOffsetsRenders) {
  const Scene& scene = small_city();
  const RenderReport reference =
      render(shared_device(), scene, frozen_city("dynamic-offsets", 2, 1.5f));
  ASSERT_TRUE(reference.last_frame);
  // The picture must hold the city, or the comparisons prove nothing: buildings cover most of
  // the lower half of the view at least.
  const auto box = foreground_box(*reference.last_frame, kSky, 3);
  ASSERT_TRUE(box.has_value());
  EXPECT_GT(box->x1 - box->x0, 97u * 3 / 4);
  EXPECT_GT(box->y1 - box->y0, 61u / 3);
  uint32_t compared = 0;
  for (const StrategyInfo& info : strategy_catalog()) {
    const std::string name(info.name);
    // bundles-gpu animates the article's cubes on the GPU and cannot draw static or
    // application-moved objects. gpu-driven draws them through the GPU-driven parts; its normal
    // matrix is a cofactor matrix on the GPU, so its shading may differ by 2 levels, not 1.
    if (name == "bundles-gpu" || name == "dynamic-offsets") continue;
    if (std::optional<std::string> why = strategy_unavailable(shared_device(), scene, name)) {
      std::cout << name << " unavailable here: " << *why << "\n";
      continue;
    }
    const RenderReport r = render(shared_device(), scene, frozen_city(name, 2, 1.5f));
    ASSERT_TRUE(r.last_frame) << name;
    // Something was drawn each frame: draw calls, or render bundles replayed (gpu-driven's
    // `bundle` draw path, Dawn's best, records its drawIndexedIndirect calls once).
    EXPECT_TRUE(r.per_frame.draws > 0 || r.per_frame.execute_bundles > 0) << name;
    const uint8_t levels = name == "gpu-driven" ? 2 : 1;
    EXPECT_LE(count_differing_pixels(*reference.last_frame, *r.last_frame, levels),
              kDepthTiePixels)
        << name;
    dump_on_failure("city_dynamic_vs_" + name, *reference.last_frame, *r.last_frame);
    ++compared;
  }
  // naive, split-uniforms, buffer-offsets, buffer-offsets-mapped, mapped-staging,
  // render-bundles, storage-instancing, gpu-culling, gpu-driven (immediates where the device
  // offers it).
  EXPECT_GE(compared, 9u);
}

// The renderer recomputes only the first moving_share() x N objects after the first frame: that
// must be exactly the cars, so the picture equals recomputing every object. Three frames at
// t = 0, 1/60, 2/60 (the cars drive up to 14 x 2/60 = 0.47 units).
TEST(CitySceneDevice, UpdatingOnlyTheCarsGivesTheFullUpdate) {
  const Scene& scene = small_city();
  for (const char* strategy : {"dynamic-offsets", "storage-instancing", "render-bundles"}) {
    RenderOptions o = frozen_city(strategy, 3, 0.0f);
    o.time_s.reset();
    o.moving = 1.0;
    const RenderReport all = render(shared_device(), scene, o);
    o.moving = scene.moving_share();
    const RenderReport cars = render(shared_device(), scene, o);
    ASSERT_TRUE(all.last_frame && cars.last_frame);
    EXPECT_LE(max_channel_difference(*all.last_frame, *cars.last_frame), 1u) << strategy;
    EXPECT_EQ(all.moving_objects, 30u);
    EXPECT_EQ(cars.moving_objects, 30u);
    // Fewer bytes: 30 objects' data after the first frame instead of 300 (render-bundles and
    // dynamic-offsets upload a dirty range; storage-instancing its whole buffer either way).
    EXPECT_LE(cars.per_frame.bytes_uploaded, all.per_frame.bytes_uploaded) << strategy;
    dump_on_failure(std::string("city_cars_vs_all_") + strategy, *all.last_frame,
                    *cars.last_frame);
  }
}

// The cars really move: the city at t = 0 and t = 3 s differs, but only a little (buildings stay).
TEST(CitySceneDevice, CarsMoveBetweenTimes) {
  const Scene& scene = small_city();
  const RenderReport a = render(shared_device(), scene, frozen_city("dynamic-offsets", 1, 0.0f));
  const RenderReport b = render(shared_device(), scene, frozen_city("dynamic-offsets", 1, 3.0f));
  const uint64_t differing = count_differing_pixels(*a.last_frame, *b.last_frame, 8);
  EXPECT_GT(differing, 0u);
  EXPECT_LT(differing, 97u * 61u / 4);
}

// RenderReport's scene counts: 20 meshes, 12 materials, 8 textures; moved objects 30 for the
// city at its share, 0 with moving 0; every cube at moving 1, ceil(0.0015 x 2000) = 3 at 0.0015;
// none of a glTF model.
TEST(CitySceneDevice, ReportCountsMeshesMaterialsTexturesAndMovedObjects) {
  RenderOptions o = frozen_city("dynamic-offsets", 1, 0.0f);
  o.keep_last_frame = false;
  o.moving = small_city().moving_share();
  const RenderReport city = render(shared_device(), small_city(), o);
  EXPECT_EQ(city.scene, "city");
  EXPECT_EQ(city.meshes, 20u);
  EXPECT_EQ(city.materials, 12u);
  EXPECT_EQ(city.textures, 8u);
  EXPECT_EQ(city.moving_objects, 30u);
  o.moving = 0.0;
  EXPECT_EQ(render(shared_device(), small_city(), o).moving_objects, 0u);
  const Scene cubes = make_cube_scene({.objects = 2000});
  o.moving = 1.0;
  const RenderReport all = render(shared_device(), cubes, o);
  EXPECT_EQ(all.moving_objects, 2000u);
  EXPECT_EQ(all.meshes, 1u);
  EXPECT_EQ(all.textures, 6u);
  o.moving = 0.0015;
  EXPECT_EQ(render(shared_device(), cubes, o).moving_objects, 3u);
  const char* model = "/usr/share/assimp/models/glTF2/BoxTextured-glTF/BoxTextured.gltf";
  if (std::filesystem::exists(model)) {
    o.moving = 1.0;
    EXPECT_EQ(render(shared_device(), load_gltf_scene(model, 2), o).moving_objects, 0u);
  }
}

// The cost of a moved object is reported where the application moves objects through the object
// table: gpu-driven and gpu-culling on the city (its 30 cars move each frame after the first).
// Not where nothing does: the cubes on gpu-driven are moved by the GPU, and dynamic-offsets keeps
// no object table. A cost, not a speed: only its presence and sign are asserted here.
TEST(CitySceneDevice, CpuCostPerMovedObjectIsReportedWhereTheApplicationMovesObjects) {
  for (const char* strategy : {"gpu-driven", "gpu-culling"}) {
    RenderOptions o = frozen_city(strategy, 3, 0.0f);
    o.keep_last_frame = false;
    o.moving = small_city().moving_share();
    const RenderReport r = render(shared_device(), small_city(), o);
    ASSERT_TRUE(r.cpu_ns_per_moved_object.has_value()) << strategy;
    EXPECT_GT(*r.cpu_ns_per_moved_object, 0.0) << strategy;
  }
  RenderOptions o = frozen_city("gpu-driven", 3, 0.0f);
  o.keep_last_frame = false;
  EXPECT_FALSE(render(shared_device(), make_cube_scene({.objects = 100}), o)
                   .cpu_ns_per_moved_object.has_value());
  o.strategy = "dynamic-offsets";
  o.moving = small_city().moving_share();
  EXPECT_FALSE(render(shared_device(), small_city(), o).cpu_ns_per_moved_object.has_value());
}

}  // namespace
}  // namespace bindery
