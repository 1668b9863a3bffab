// SPDX-License-Identifier: MIT
// tests/support/cluster_scenes.hpp — what the cluster and compute-rasterizer tests draw: a
// generated closed high-polygon mesh filling the view, the assimp glTF2 samples, and the clear
// colour test of the crack and seam checks.
#pragma once

#include "support/meshes.hpp"

#include <bindery/headless/image.hpp>
#include <bindery/render/scene.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace bindery::test {

/// Where Debian's assimp-testmodels put the glTF 2.0 samples.
inline constexpr const char* kGltfSampleFolder = "/usr/share/assimp/models/glTF2";

/// An icosahedron subdivided `levels` times onto the unit sphere, bumped, as one object filling
/// the view: a closed high-polygon mesh (20 * 4^levels triangles).
inline Scene closed_mesh_scene(int levels) {
  Scene scene = make_cube_scene({.objects = 1, .seed = 1});
  Mesh mesh = mesh_of(icosphere(levels), [](glm::vec3 v) {
    return 1.0f + 0.08f * std::sin(9.0f * v.x) * std::sin(7.0f * v.y) * std::sin(8.0f * v.z);
  });
  mesh.bounds_min = glm::vec3(-1.1f);
  mesh.bounds_max = glm::vec3(1.1f);
  scene.meshes = {mesh};
  Object o;
  o.animated = false;
  o.placement = glm::mat4(1.0f);
  scene.objects = {o};
  scene.moving.clear();
  scene.view.eye = {0.0f, 0.3f, 2.3f};
  scene.view.target = {0.0f, 0.0f, 0.0f};
  scene.view.near_plane = 0.1f;
  scene.view.far_plane = 100.0f;
  return scene;
}

/// Every .gltf and .glb under kGltfSampleFolder, sorted.
inline std::vector<std::string> gltf_sample_models() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kGltfSampleFolder))
    if (e.is_regular_file() && (e.path().extension() == ".gltf" || e.path().extension() == ".glb"))
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// Whether pixel (x, y) of `image` is the clear colour of the scenes (0.3 grey: 77).
inline bool background(const Image& image, uint32_t x, uint32_t y) {
  const uint8_t* p = &image.rgba[(size_t(y) * image.width + x) * 4];
  return std::abs(p[0] - 77) <= 1 && std::abs(p[1] - 77) <= 1 && std::abs(p[2] - 77) <= 1;
}

}  // namespace bindery::test
