// SPDX-License-Identifier: MIT
// The generated city (make_city_scene) on the CPU: reproducible from its seed, the counts and
// ranges its options promise, meshes and textures within their limits, buildings on their lots,
// cars on the streets, and the application's motion (Object::moving) worked out by hand.
#include "support/expect_kind.hpp"

#include <bindery/scene.hpp>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <utility>

namespace bindery {
namespace {

// Every byte the scene's contents are made of, in one string (determinism checks).
template <typename T>
void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}
std::string scene_bytes(const Scene& s) {
  std::string out;
  for (const Mesh& m : s.meshes) {
    out += m.name;
    for (const Vertex& v : m.vertices) append(out, v);
    for (uint32_t i : m.indices) append(out, i);
    append(out, m.bounds_min);
    append(out, m.bounds_max);
  }
  for (const TextureData& t : s.textures)
    for (const auto& level : t.mips) out.append(level.begin(), level.end());
  for (const Material& m : s.materials) {
    append(out, m.color);
    append(out, m.shininess);
    append(out, m.texture);
    append(out, m.sampler);
  }
  for (const Object& o : s.objects) {
    append(out, o.mesh);
    append(out, o.material);
    append(out, o.placement);
    append(out, o.velocity);
    append(out, o.moving);
  }
  for (uint32_t i : s.moving) append(out, i);
  append(out, s.view.eye);
  append(out, s.view.far_plane);
  return out;
}

// The small city of the device tests.
CitySceneOptions small_city(uint64_t seed = 5) {
  return {.objects = 300, .meshes = 20, .materials = 12, .textures = 8, .moving = 0.1,
          .seed = seed};
}

// World-space box of an object's mesh bounds under `world` (all 8 corners).
std::pair<glm::vec3, glm::vec3> world_box(const Mesh& m, const glm::mat4& world) {
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (int c = 0; c < 8; ++c) {
    const glm::vec3 corner((c & 1) ? m.bounds_max.x : m.bounds_min.x,
                           (c & 2) ? m.bounds_max.y : m.bounds_min.y,
                           (c & 4) ? m.bounds_max.z : m.bounds_min.z);
    const glm::vec3 w = glm::vec3(world * glm::vec4(corner, 1.0f));
    lo = glm::min(lo, w);
    hi = glm::max(hi, w);
  }
  return {lo, hi};
}

bool overlap_xz(const std::pair<glm::vec3, glm::vec3>& a, const std::pair<glm::vec3, glm::vec3>& b) {
  return a.first.x < b.second.x && b.first.x < a.second.x && a.first.z < b.second.z &&
         b.first.z < a.second.z;
}

TEST(CityScene, SameSeedSameBytesOtherSeedOtherBytes) {
  const std::string a = scene_bytes(make_city_scene(small_city(5)));
  EXPECT_EQ(a, scene_bytes(make_city_scene(small_city(5))));
  EXPECT_NE(a, scene_bytes(make_city_scene(small_city(6))));
}

TEST(CityScene, CountsAreTheOptions) {
  const Scene s = make_city_scene(
      {.objects = 1234, .meshes = 57, .materials = 9, .textures = 20, .moving = 0.25, .seed = 3});
  EXPECT_EQ(s.name, "city");
  EXPECT_EQ(s.objects.size(), 1234u);
  EXPECT_EQ(s.meshes.size(), 57u);
  EXPECT_EQ(s.materials.size(), 9u);
  EXPECT_EQ(s.textures.size(), 20u);
  ASSERT_EQ(s.samplers.size(), 2u);  // the default and the repeating one the materials use
  EXPECT_EQ(s.samplers[1].address_mode_u, AddressMode::repeat);
  for (const Material& m : s.materials) {
    EXPECT_LT(m.texture, 20u);
    EXPECT_EQ(m.sampler, 1u);
  }
  for (const Object& o : s.objects) {
    EXPECT_LT(o.mesh, 57u);
    EXPECT_LT(o.material, 9u);
    EXPECT_FALSE(o.animated);
  }
}

// Mesh sizes from their indices: 12..2000 triangles, indices in range, index16 honest, bounds
// holding every vertex, every building mesh within its [-0.5, 0.5]^2 footprint and above y = 0.
TEST(CityScene, MeshesAreWithinTheirLimits) {
  const Scene s = make_city_scene({.objects = 10, .meshes = 600, .seed = 11});
  std::set<size_t> triangle_counts;
  for (const Mesh& m : s.meshes) {
    ASSERT_EQ(m.indices.size() % 3, 0u) << m.name;
    const size_t triangles = m.indices.size() / 3;
    EXPECT_GE(triangles, 12u) << m.name;
    EXPECT_LE(triangles, 2000u) << m.name;
    triangle_counts.insert(triangles);
    for (uint32_t i : m.indices) ASSERT_LT(i, m.vertices.size()) << m.name;
    EXPECT_EQ(m.index16, m.vertices.size() <= 65536) << m.name;
    for (const Vertex& v : m.vertices) {
      for (int a = 0; a < 3; ++a) {
        EXPECT_GE(v.position[a], m.bounds_min[a]) << m.name;
        EXPECT_LE(v.position[a], m.bounds_max[a]) << m.name;
      }
      EXPECT_LE(std::fabs(v.position.x), 0.5f + 1e-5f) << m.name;
      EXPECT_LE(std::fabs(v.position.z), 0.5f + 1e-5f) << m.name;
      EXPECT_GE(v.position.y, 0.0f) << m.name;
      EXPECT_NEAR(glm::length(v.normal), 1.0f, 1e-4f) << m.name;
    }
  }
  // Mesh 0 is the cars' unit box: 6 faces of 2 triangles, x and z in [-0.5, 0.5], y in [0, 1].
  EXPECT_EQ(s.meshes[0].indices.size(), 36u);
  EXPECT_NEAR(s.meshes[0].bounds_min.x, -0.5f, 1e-5f);
  EXPECT_NEAR(s.meshes[0].bounds_max.y, 1.0f, 1e-6f);
  // Procedural variety: 600 meshes of four kinds do not come in a handful of sizes.
  EXPECT_GT(triangle_counts.size(), 50u);
}

// A closed mesh seen from outside: each triangle's winding (counter-clockwise front) agrees with
// its vertices' normal, so back-face culling keeps the outside.
TEST(CityScene, TrianglesFaceTheirNormals) {
  const Scene s = make_city_scene({.objects = 10, .meshes = 200, .seed = 2});
  for (const Mesh& m : s.meshes)
    for (size_t t = 0; t < m.indices.size(); t += 3) {
      const Vertex &a = m.vertices[m.indices[t]], &b = m.vertices[m.indices[t + 1]],
                   &c = m.vertices[m.indices[t + 2]];
      const glm::vec3 n = glm::cross(b.position - a.position, c.position - a.position);
      ASSERT_GT(glm::dot(n, a.normal), 0.0f) << m.name << " triangle " << t / 3;
    }
}

TEST(CityScene, TexturesComeInAtLeastEightSizesWithMips) {
  for (uint32_t count : {8u, 16u, 40u}) {
    const Scene s = make_city_scene({.objects = 10, .meshes = 2, .textures = count});
    std::set<std::pair<uint32_t, uint32_t>> sizes;
    bool non_square = false, non_power_of_two = false;
    for (const TextureData& t : s.textures) {
      sizes.insert({t.width, t.height});
      non_square |= t.width != t.height;
      non_power_of_two |= (t.width & (t.width - 1)) != 0 || (t.height & (t.height - 1)) != 0;
      ASSERT_FALSE(t.mips.empty());
      EXPECT_EQ(t.mips[0].size(), size_t(t.width) * t.height * 4);
      // The whole chain down to 1x1: floor(log2(max side)) + 1 levels.
      uint32_t levels = 1;
      for (uint32_t side = std::max(t.width, t.height); side > 1; side /= 2) ++levels;
      EXPECT_EQ(t.mips.size(), levels) << t.name;
    }
    EXPECT_GE(sizes.size(), 8u) << count << " textures";
    EXPECT_TRUE(non_square);
    EXPECT_TRUE(non_power_of_two);
  }
}

// round(F x N) cars, the first objects, listed in Scene::moving; the rest do not move.
// 300 x 0.1 = 30; 1000 x 0.0015 = 1.5 -> 2; 7 x 0.5 = 3.5 -> 4; 50 x 0 = 0; 9 x 1 = 9.
TEST(CityScene, MovingListIsRoundedShareOfObjects) {
  const std::pair<uint32_t, double> cases[] = {{300, 0.1}, {1000, 0.0015}, {7, 0.5}, {50, 0.0},
                                               {9, 1.0}};
  const uint32_t expected[] = {30, 2, 4, 0, 9};
  for (size_t c = 0; c < std::size(cases); ++c) {
    const Scene s = make_city_scene({.objects = cases[c].first, .meshes = 4, .materials = 3,
                                     .textures = 2, .moving = cases[c].second});
    ASSERT_EQ(s.moving.size(), expected[c]) << c;
    for (uint32_t i = 0; i < s.objects.size(); ++i) {
      EXPECT_EQ(s.objects[i].moving, i < expected[c]) << i;
      if (i < expected[c]) {
        EXPECT_EQ(s.moving[i], i);
        EXPECT_EQ(s.objects[i].mesh, 0u);  // the unit box
        EXPECT_GT(glm::length(s.objects[i].velocity), 3.9f);
      }
    }
    // The renderer's share: ceil(share x N - 1e-6) objects recomputed per frame = the cars.
    EXPECT_EQ(uint32_t(std::ceil(s.moving_share() * s.objects.size() - 1e-6)), expected[c]);
  }
}

// Buildings stand on their own lots (no two overlap), cars drive on streets (no car inside a
// building), everything is finite and inside the city, and the camera's far plane reaches it all.
TEST(CityScene, PlacementsAreFiniteBuildingsApartCarsOnStreets) {
  const Scene s = make_city_scene(small_city());
  std::vector<std::pair<glm::vec3, glm::vec3>> buildings, cars;
  for (const Object& o : s.objects) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) ASSERT_TRUE(std::isfinite(o.placement[c][r]));
    auto box = world_box(s.meshes[o.mesh], o.placement);
    // A car may straddle the edge it wraps at by half its length (at most 2.5 units).
    EXPECT_GE(box.first.x, -2.5f);
    EXPECT_GE(box.first.z, -2.5f);
    EXPECT_GE(box.first.y, 0.0f);
    EXPECT_LE(box.second.x, s.wrap_max.x + 2.5f);
    EXPECT_LE(box.second.z, s.wrap_max.z + 2.5f);
    (o.moving ? cars : buildings).push_back(box);
    for (int c = 0; c < 8; ++c) {
      const glm::vec3 corner((c & 1) ? box.second.x : box.first.x,
                             (c & 2) ? box.second.y : box.first.y,
                             (c & 4) ? box.second.z : box.first.z);
      EXPECT_LT(glm::length(corner - s.view.eye), s.view.far_plane);
    }
  }
  ASSERT_EQ(buildings.size(), 270u);
  ASSERT_EQ(cars.size(), 30u);
  for (size_t i = 0; i < buildings.size(); ++i)
    for (size_t j = i + 1; j < buildings.size(); ++j)
      EXPECT_FALSE(overlap_xz(buildings[i], buildings[j])) << i << " " << j;
  for (size_t c = 0; c < cars.size(); ++c)
    for (size_t b = 0; b < buildings.size(); ++b)
      EXPECT_FALSE(overlap_xz(cars[c], buildings[b])) << "car " << c << " building " << b;
  // The camera stands low (below most of the tallest buildings: occlusion is real) outside the city.
  EXPECT_LT(s.view.eye.x, 0.0f);
  EXPECT_LT(s.view.eye.z, 0.0f);
  EXPECT_LT(s.view.eye.y, 40.0f);
}

// Buildings take meshes 1..U-1 in turn: 1000 buildings over 99 meshes are 10 or 11 copies each.
TEST(CityScene, BuildingsUseEveryMeshEvenly) {
  const Scene s = make_city_scene({.objects = 1000, .meshes = 100, .moving = 0.0});
  std::map<uint32_t, uint32_t> copies;
  for (const Object& o : s.objects) ++copies[o.mesh];
  EXPECT_EQ(copies.count(0), 0u);
  ASSERT_EQ(copies.size(), 99u);
  for (const auto& [mesh, n] : copies) {
    EXPECT_GE(n, 10u) << mesh;
    EXPECT_LE(n, 11u) << mesh;
  }
}

// Object::moving by hand: placement = translate(95, 1, 50) x scale(2), velocity (10, 0, -30),
// wrapping in [0, 100) along x and z (y does not wrap: wrap_max.y = wrap_min.y).
//   t = 0: (95, 1, 50).
//   t = 1: x = 95 + 10 = 105 -> 5; z = 50 - 30 = 20; y = 1.
//   t = 2.5: x = 120 -> 20; z = 50 - 75 = -25 -> 75.
// The scale columns and the normal matrix (1/2 on the diagonal) do not change.
TEST(CityScene, MovingObjectWorldPositionByHand) {
  Scene s;
  s.wrap_min = glm::vec3(0.0f);
  s.wrap_max = glm::vec3(100.0f, 0.0f, 100.0f);
  Object o;
  o.animated = false;
  o.moving = true;
  o.placement = glm::scale(glm::translate(glm::mat4(1.0f), {95, 1, 50}), glm::vec3(2.0f));
  o.velocity = {10, 0, -30};
  s.objects = {o};
  std::vector<ObjectTransform> out;
  const std::pair<float, glm::vec3> expected[] = {
      {0.0f, {95, 1, 50}}, {1.0f, {5, 1, 20}}, {2.5f, {20, 1, 75}}};
  for (const auto& [t, position] : expected) {
    s.animate(t, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR(out[0].world[3].x, position.x, 1e-4f) << t;
    EXPECT_NEAR(out[0].world[3].y, position.y, 1e-4f) << t;
    EXPECT_NEAR(out[0].world[3].z, position.z, 1e-4f) << t;
    EXPECT_EQ(out[0].world[3].w, 1.0f);
    EXPECT_EQ(out[0].world[0], glm::vec4(2, 0, 0, 0));
    EXPECT_EQ(out[0].world[1], glm::vec4(0, 2, 0, 0));
    EXPECT_EQ(out[0].world[2], glm::vec4(0, 0, 2, 0));
    EXPECT_NEAR(out[0].normal[0][0], 0.5f, 1e-6f);
    EXPECT_NEAR(out[0].normal[1][1], 0.5f, 1e-6f);
  }
  // A static object (moving false) with the same velocity stays where it was placed.
  s.objects[0].moving = false;
  s.animate(1.0f, out);
  EXPECT_EQ(out[0].world, o.placement);
}

// A city car: at t = 0 where it was placed; at t = 1 one second of its velocity further, brought
// back into the city by one extent when it crossed the edge (cars are 4..14 units a second, the
// city hundreds of units wide, so at most one crossing).
TEST(CityScene, CarsDriveAlongTheirStreetAndWrap) {
  const Scene s = make_city_scene(small_city());
  std::vector<ObjectTransform> at0, at1;
  s.animate(0.0f, at0);
  s.animate(1.0f, at1);
  const float extent = s.wrap_max.x;
  ASSERT_GT(extent, 100.0f);
  ASSERT_EQ(s.wrap_max.z, extent);
  for (uint32_t i : s.moving) {
    const Object& o = s.objects[i];
    EXPECT_EQ(at0[i].world, o.placement) << i;
    glm::vec3 p = glm::vec3(o.placement[3]) + o.velocity;
    for (int a : {0, 2}) {
      if (p[a] >= extent) p[a] -= extent;
      if (p[a] < 0.0f) p[a] += extent;
    }
    EXPECT_NEAR(at1[i].world[3].x, p.x, 1e-3f) << i;
    EXPECT_EQ(at1[i].world[3].y, 0.0f) << i;
    EXPECT_NEAR(at1[i].world[3].z, p.z, 1e-3f) << i;
    // Along one street: exactly one of x and z changes.
    EXPECT_TRUE((o.velocity.x == 0.0f) != (o.velocity.z == 0.0f)) << i;
  }
  // Buildings do not move.
  for (uint32_t i = uint32_t(s.moving.size()); i < s.objects.size(); ++i)
    ASSERT_EQ(at1[i].world, s.objects[i].placement) << i;
}

TEST(CityScene, OptionsOutsideTheirRangesAreSceneInput) {
  EXPECT_KIND(make_city_scene({.objects = 0}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10'000'001}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .meshes = 0}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .meshes = 200'001}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .materials = 0}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .materials = 100'001}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .textures = 0}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .textures = 1025}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .moving = -0.1}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .moving = 1.5}), SceneInput);
  EXPECT_KIND(make_city_scene({.objects = 10, .moving = std::nan("")}), SceneInput);
}

// The other scenes' moving lists: every cube, no glTF object (the loader leaves it empty).
TEST(CityScene, CubeSceneListsEveryObjectAsMoving) {
  const Scene cubes = make_cube_scene({.objects = 17});
  ASSERT_EQ(cubes.moving.size(), 17u);
  for (uint32_t i = 0; i < 17; ++i) EXPECT_EQ(cubes.moving[i], i);
  EXPECT_EQ(cubes.moving_share(), 1.0);
  EXPECT_EQ(Scene{}.moving_share(), 0.0);
}

// A static object's normal matrix is inverse(transpose(M)) of its placement's 3x3 part M, and
// where M is singular (a glTF node scaled by 0 on an axis) the cofactor matrix the GPU
// strategies use, never NaN. By hand: M = diag(-1, 1, 1) gives diag(-1, 1, 1); M = diag(1, 0, 1)
// has columns c0 = x, c1 = 0, c2 = z, whose cofactor has columns c1 x c2 = 0, c2 x c0 = y,
// c0 x c1 = 0: the up normal stays up, the others vanish.
TEST(SceneAnimate, StaticNormalMatrixIsTheInverseTransposeOrTheCofactorWhenFlat) {
  Scene s;
  Object o;
  o.animated = false;  // placed, as glTF and city objects are
  o.placement = glm::scale(glm::mat4(1.0f), {-1.0f, 1.0f, 1.0f});
  s.objects = {o};
  std::vector<ObjectTransform> out;
  s.animate(0.0f, out);
  EXPECT_EQ(out[0].normal * glm::vec3(1, 0, 0), glm::vec3(-1, 0, 0));
  EXPECT_EQ(out[0].normal * glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
  EXPECT_EQ(out[0].normal * glm::vec3(0, 0, 1), glm::vec3(0, 0, 1));

  s.objects[0].placement = glm::scale(glm::mat4(1.0f), {1.0f, 0.0f, 1.0f});
  s.animate(0.0f, out);
  EXPECT_EQ(out[0].normal * glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
  EXPECT_EQ(out[0].normal * glm::vec3(1, 0, 0), glm::vec3(0, 0, 0));
  EXPECT_EQ(out[0].normal * glm::vec3(0, 0, 1), glm::vec3(0, 0, 0));

  // diag(1, 1, 1e-20): the inverse transpose diag(1, 1, 1e20) would overflow the shaders'
  // normalize(); the cofactor diag(1e-20, 1e-20, 1) over its largest entry (1) is given.
  s.objects[0].placement = glm::scale(glm::mat4(1.0f), {1.0f, 1.0f, 1e-20f});
  s.animate(0.0f, out);
  EXPECT_EQ(out[0].normal * glm::vec3(0, 0, 1), glm::vec3(0, 0, 1));
  EXPECT_EQ(out[0].normal * glm::vec3(1, 0, 0), glm::vec3(1e-20f, 0, 0));
  // A uniform 2: the inverse transpose itself, diag(0.5, 0.5, 0.5).
  s.objects[0].placement = glm::scale(glm::mat4(1.0f), glm::vec3(2.0f));
  s.animate(0.0f, out);
  EXPECT_EQ(out[0].normal, glm::mat3(0.5f));
  // A uniform 1e10: the inverse transpose (1e-10) is under 1e-8: diag(1, 1, 1).
  s.objects[0].placement = glm::scale(glm::mat4(1.0f), glm::vec3(1e10f));
  s.animate(0.0f, out);
  EXPECT_EQ(out[0].normal, glm::mat3(1.0f));
}

}  // namespace
}  // namespace bindery
