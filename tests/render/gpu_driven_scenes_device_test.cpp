// SPDX-License-Identifier: MIT
// Issue 20: gpu-driven draws any scene as the CPU strategies draw it. Every glTF model of
// Debian's assimp-testmodels glTF2 folder that dynamic-offsets draws is drawn by gpu-driven to
// the same image (at most 0.1% of pixels off by more than 2 levels, where the GPU's normal
// matrix, a cofactor matrix, rounds differently from glm's inverse transpose); every draw path
// the device offers draws the same image as every other; occlusion culling on and off give
// identical images from 50 camera positions at 97x61 and 640x480.
#include <bindery/device.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/gpu_driven/material_table.hpp>
#include <bindery/renderer.hpp>
#include <bindery/scene.hpp>

#include "support/device.hpp"
#include "support/images.hpp"
#include "support/render_options.hpp"

#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace bindery {
namespace {

const char* kFolder = "/usr/share/assimp/models/glTF2";

using test::shared_device;
using test::dump_on_failure;
using test::frozen;

uint64_t allowed(const Image& a) { return uint64_t(a.width) * a.height / 1000; }

std::vector<std::string> sample_models() {
  std::vector<std::string> out;
  if (!std::filesystem::exists(kFolder)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kFolder))
    if (e.is_regular_file() && (e.path().extension() == ".gltf" || e.path().extension() == ".glb"))
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GpuDrivenScenes, EveryGltfSampleThatDynamicOffsetsDrawsLooksTheSame) {
  const std::vector<std::string> models = sample_models();
  if (models.empty()) GTEST_SKIP() << "assimp-testmodels not installed";
  uint32_t compared = 0;
  for (const std::string& path : models) {
    Scene scene;
    try {
      scene = load_gltf_scene(path, 2);
    } catch (const Error&) {
      continue;  // the loader's refusals are gltf_sample_models_device_test's subject
    }
    RenderOptions o = frozen("dynamic-offsets", 64, 48, 1, 0.0f);
    const RenderReport cpu = render(shared_device(), scene, o);
    if (auto why = strategy_unavailable(shared_device(), scene, "gpu-driven")) {
      ADD_FAILURE() << path << ": gpu-driven unavailable: " << *why;
      continue;
    }
    o.strategy = "gpu-driven";
    o.frames = 3;  // phase 1 draws last frame's visible set from the second frame on
    const RenderReport gpu = render(shared_device(), scene, o);
    ASSERT_TRUE(cpu.last_frame && gpu.last_frame) << path;
    EXPECT_LE(count_differing_pixels(*cpu.last_frame, *gpu.last_frame, 2),
              allowed(*cpu.last_frame))
        << path;
    dump_on_failure("gltf_" + std::filesystem::path(path).stem().string(), *cpu.last_frame,
                    *gpu.last_frame);
    ++compared;
  }
  EXPECT_GE(compared, 20u);  // 27 of the 46 samples load (gltf_sample_models_device_test)
}

// A scene whose objects are all static placements and one whose objects mix meshes, materials,
// textures of different sizes and a mirrored placement: gpu-driven draws them like
// dynamic-offsets (static placements used to be refused).
TEST(GpuDrivenScenes, StaticPlacementsAndMixedTexturesLookTheSame) {
  Scene scene = make_cube_scene({.objects = 60, .seed = 3});
  scene.textures.push_back(make_texture_with_mips("odd", 24, 10, std::vector<uint8_t>(24 * 10 * 4, 200)));
  scene.materials.back().texture = static_cast<uint32_t>(scene.textures.size() - 1);
  std::vector<ObjectTransform> t;
  scene.animate(1.25f, t);
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    scene.objects[i].animated = false;
    scene.objects[i].placement = t[i].world;
  }
  scene.objects[0].placement[0] *= -1.0f;  // mirrored: determinant < 0
  RenderOptions o = frozen("dynamic-offsets", 120, 90, 1, 0.0f);
  const RenderReport cpu = render(shared_device(), scene, o);
  o.strategy = "gpu-driven";
  o.frames = 2;
  const RenderReport gpu = render(shared_device(), scene, o);
  EXPECT_LE(count_differing_pixels(*cpu.last_frame, *gpu.last_frame, 2), allowed(*cpu.last_frame));
  dump_on_failure("static_mixed", *cpu.last_frame, *gpu.last_frame);
}

// A cube facing the camera whose placement's third column is 0 (flattened, as a glTF node scaled
// by 0 on one axis), 1e-20 of the others (thin) or whose whole placement and camera distance are
// 1e10 times larger (huge). The first is singular and the others put the inverse transpose (or
// the GPU's cofactor matrix) where normalize() overflows in 32-bit floats; the CPU strategies'
// normal matrix and the GPU's are brought to a size it can square, so every case is drawn lit,
// and alike by dynamic-offsets and gpu-driven (before: black on one side or the other).
TEST(GpuDrivenScenes, FlatThinAndHugeObjectsAreLitAsOnTheGpu) {
  const struct {
    const char* name;
    float thickness, scale;
  } cases[] = {{"flattened", 0.0f, 1.0f}, {"thin", 1e-20f, 1.0f}, {"huge", 1.0f, 1e10f}};
  for (const auto& c : cases) {
    Scene scene = make_cube_scene({.objects = 1, .seed = 3});
    const glm::vec3 d = glm::normalize(scene.view.eye - scene.view.target);
    const glm::vec3 u = glm::normalize(glm::cross(glm::vec3(0, 1, 0), d));
    const glm::vec3 v = glm::cross(d, u);
    const float side = 0.5f * glm::length(scene.view.eye - scene.view.target) * c.scale;
    // The camera, its clip planes and the light as far off as the object is large: the same
    // picture at every scale but for the normal matrix's size.
    scene.view.eye = scene.view.target + (scene.view.eye - scene.view.target) * c.scale;
    scene.view.light_world_position =
        scene.view.target + (scene.view.light_world_position - scene.view.target) * c.scale;
    scene.view.near_plane *= c.scale;
    scene.view.far_plane *= c.scale;
    scene.objects[0].animated = false;
    scene.objects[0].placement =
        glm::mat4(glm::vec4(u * side, 0), glm::vec4(v * side, 0),
                  glm::vec4(d * side * c.thickness, 0), glm::vec4(scene.view.target, 1));
    RenderOptions o = frozen("dynamic-offsets", 64, 48, 1, 0.0f);
    const RenderReport cpu = render(shared_device(), scene, o);
    o.strategy = "gpu-driven";
    o.frames = 2;
    const RenderReport gpu = render(shared_device(), scene, o);
    for (const Image* image : {&*cpu.last_frame, &*gpu.last_frame}) {
      uint64_t object = 0, black = 0;  // pixels off the background (77, 77, 77); of them, black
      for (uint32_t y = 0; y < image->height; ++y)
        for (uint32_t x = 0; x < image->width; ++x) {
          const uint8_t* p = image->pixel(x, y);
          if (std::abs(p[0] - 77) <= 2 && std::abs(p[1] - 77) <= 2 && std::abs(p[2] - 77) <= 2)
            continue;
          ++object;
          black += p[0] < 8 && p[1] < 8 && p[2] < 8;
        }
      EXPECT_GT(object, 100u) << c.name;  // 0.4-0.9 of the view's height (the cube is 1 or 2 wide)
      EXPECT_LT(black * 20, object) << c.name << ": " << black << " black of " << object;
    }
    EXPECT_LE(count_differing_pixels(*cpu.last_frame, *gpu.last_frame, 2),
              allowed(*cpu.last_frame))
        << c.name;
    dump_on_failure(c.name, *cpu.last_frame, *gpu.last_frame);
  }
}

TEST(GpuDrivenScenes, EveryDrawPathDrawsTheSameImage) {
  const Scene cubes = make_cube_scene({.objects = 2'000, .seed = 11});
  std::vector<Scene> scenes;
  scenes.push_back(cubes);
  const std::string engine = std::string(kFolder) + "/2CylinderEngine-glTF-Binary/2CylinderEngine.glb";
  if (std::filesystem::exists(engine)) scenes.push_back(load_gltf_scene(engine, 4));
  for (const Scene& scene : scenes) {
    std::optional<Image> first;
    std::string first_name;
    for (const gpu_driven::DrawPath path :
         {gpu_driven::DrawPath::multi_draw_indirect_count, gpu_driven::DrawPath::multi_draw_indirect,
          gpu_driven::DrawPath::bundle, gpu_driven::DrawPath::loop}) {
      const std::string name(gpu_driven::to_string(path));
      if (gpu_driven::draw_path_unavailable(shared_device(), path)) continue;
      RenderOptions o = frozen("gpu-driven", 128, 96, 3, 0.0f);
      o.time_s = 2.0f;
      o.draw_path = name;
      const RenderReport r = render(shared_device(), scene, o);
      ASSERT_TRUE(r.last_frame);
      if (!first) {
        first = r.last_frame;
        first_name = name;
        continue;
      }
      EXPECT_EQ(count_differing_pixels(*first, *r.last_frame, 0), 0u)
          << scene.name << ": " << first_name << " vs " << name;
      dump_on_failure(scene.name + "_" + first_name + "_vs_" + name, *first, *r.last_frame);
    }
  }
}

// The two material backends bind the same texels: 2D arrays by size class (a copy of each
// texture as a layer of its class's array) and the binding array (each texture as it is). On a
// scene of textures in several sizes (the city: 8 sizes with mips, 3 samplers) and on a glTF
// model, gpu-driven draws the same image through both, pixel for pixel. Where the device lacks
// binding arrays (Dawn, or an adapter without the features), the reason is one line and render()
// refuses the backend as StrategyUnavailable before anything is drawn.
TEST(GpuDrivenScenes, BindingArrayBackendDrawsWhatTextureArraysDraw) {
  const std::optional<std::string> why = gpu_driven::material_backend_unavailable(
      shared_device(), gpu_driven::MaterialBackend::binding_array, 8);
  std::vector<Scene> scenes;
  CitySceneOptions city;
  city.objects = 400;
  city.meshes = 20;
  city.materials = 12;
  city.textures = 8;
  scenes.push_back(make_city_scene(city));
  const std::string box = std::string(kFolder) + "/BoxTextured-glTF/BoxTextured.gltf";
  if (std::filesystem::exists(box)) scenes.push_back(load_gltf_scene(box, 2));
  for (const Scene& scene : scenes) {
    RenderOptions o = frozen("gpu-driven", 97, 61, 2, 0.0f);
    o.material_backend = "binding-array";
    if (why) {
      EXPECT_EQ(why->find('\n'), std::string::npos) << *why;
      try {
        render(shared_device(), scene, o);
        ADD_FAILURE() << "expected StrategyUnavailable";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::StrategyUnavailable) << e.what();
      }
      continue;
    }
    const RenderReport bound = render(shared_device(), scene, o);
    o.material_backend = "texture-arrays";
    const RenderReport arrays = render(shared_device(), scene, o);
    ASSERT_TRUE(bound.last_frame && arrays.last_frame);
    EXPECT_EQ(count_differing_pixels(*arrays.last_frame, *bound.last_frame, 0), 0u) << scene.name;
    dump_on_failure(scene.name + "_binding_array", *arrays.last_frame, *bound.last_frame);
    bool noted = false;
    for (const auto& [key, value] : bound.notes)
      if (key == "materialBackend") noted = value == "binding-array";
    EXPECT_TRUE(noted) << scene.name;
  }
}

TEST(GpuDrivenScenes, UnknownMaterialBackendIsOneInvalidArgument) {
  const Scene scene = make_cube_scene({.objects = 4});
  RenderOptions o = frozen("gpu-driven", 8, 8, 1, 0.0f);
  o.material_backend = "bindless-please";
  try {
    render(shared_device(), scene, o);
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

TEST(GpuDrivenScenes, UnknownDrawPathIsOneInvalidArgument) {
  const Scene scene = make_cube_scene({.objects = 4});
  RenderOptions o = frozen("gpu-driven", 8, 8, 1, 0.0f);
  o.draw_path = "warp-drive";
  try {
    render(shared_device(), scene, o);
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

// The article's cubes at t = 0.5, keeping only cubes whose bounding spheres (radius sqrt(3) x
// scale) touch no other kept one, as static placements: no two surfaces meet, so no pixel's depth
// is a tie whose winner would depend on draw order (phase 2 draws after phase 1, and the order
// inside a bin follows the GPU's atomics), and the image is a function of the geometry alone.
Scene disjoint_cubes(uint32_t objects, uint64_t seed) {
  Scene scene = make_cube_scene({.objects = objects, .seed = seed});
  std::vector<ObjectTransform> t;
  scene.animate(0.5f, t);
  std::vector<Object> kept;
  std::vector<glm::vec4> spheres;
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const glm::vec3 c(t[i].world[3]);
    const float r = std::sqrt(3.0f) * scene.objects[i].scale;
    bool alone = true;
    for (const glm::vec4& s : spheres)
      if (glm::length(glm::vec3(s) - c) <= s.w + r + 0.01f) alone = false;
    if (!alone) continue;
    spheres.emplace_back(c, r);
    Object o = scene.objects[i];
    o.animated = false;
    o.placement = t[i].world;
    kept.push_back(o);
  }
  scene.objects = kept;
  return scene;
}

// 50 camera positions on a spiral around and through a ball of cubes: with occlusion culling
// on, phase 1 draws last frame's visible set and phase 2 the rest, so every frame equals the one
// drawn without occlusion culling, pixel for pixel, at an odd size and at 640x480.
TEST(GpuDrivenScenes, OcclusionNeverChangesTheImageFromFiftyCameras) {
  Scene scene = disjoint_cubes(3'000, 21);
  ASSERT_GE(scene.objects.size(), 300u);
  uint64_t culled = 0;
  for (const auto& [w, h] : {std::pair{97u, 61u}, std::pair{640u, 480u}}) {
    for (int c = 0; c < 50; ++c) {
      const float a = float(c) * 0.7f, r = 60.0f + float(c % 10) * 25.0f;
      scene.view.eye = glm::vec3(r * std::cos(a), 40.0f * std::sin(a * 0.5f), r * std::sin(a));
      scene.view.target = glm::vec3(std::sin(a) * 20.0f, 0.0f, 0.0f);
      RenderOptions o = frozen("gpu-driven", w, h, 2, 0.0f);
      o.occlusion = false;
      const RenderReport off = render(shared_device(), scene, o);
      o.occlusion = true;
      const RenderReport on = render(shared_device(), scene, o);
      ASSERT_TRUE(off.last_frame && on.last_frame && on.frames.back().culling);
      const CullingCounts k = *on.frames.back().culling;
      culled += k.after_frustum - k.after_occlusion;
      EXPECT_EQ(count_differing_pixels(*off.last_frame, *on.last_frame, 0), 0u)
          << "camera " << c << " at " << w << "x" << h;
      dump_on_failure("occlusion_camera_" + std::to_string(c) + "_" + std::to_string(w),
                      *off.last_frame, *on.last_frame);
    }
  }
  EXPECT_GT(culled, 0u);  // occlusion culling did remove objects, or the test proves nothing
}

}  // namespace
}  // namespace bindery
