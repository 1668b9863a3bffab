// SPDX-License-Identifier: MIT
// The article's cube scene (seed 003) and the parts every scene shares (camera, animation, mips).
#include "bindery/render/scene.hpp"

#include "bindery/core/error.hpp"
#include "bindery/core/limits.hpp"

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>

namespace bindery {

glm::mat4 View::view_projection(float aspect) const {
  // WebGPU clip space has z in [0, 1]: the right-handed zero-to-one projection, in double: its
  // far * near overflows float for a model 1e19 across (whose matrix entries themselves fit).
  const glm::dmat4 projection = glm::perspectiveRH_ZO(
      glm::radians(double(fov_y_degrees)), double(aspect), double(near_plane), double(far_plane));
  return glm::mat4(projection * glm::lookAtRH(glm::dvec3(eye), glm::dvec3(target),
                                              glm::dvec3(up)));
}

void Object::set_article_phases(uint32_t i) {
  // In double, then reduced: i * 9.721 is about 9.7 million at a million objects, where a float
  // has a resolution of 1 (radians), and the reduction keeps GPU sin/cos in their accurate range.
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const double di = static_cast<double>(i);
  phase = static_cast<float>(std::fmod(di, kTwoPi));
  phase_z1 = static_cast<float>(std::fmod(di * 3.721, kTwoPi));
  phase_z2 = static_cast<float>(std::fmod(di * 9.721, kTwoPi));
}

double Scene::moving_share() const {
  if (moving.empty() || objects.empty()) return 0.0;
  return std::min(1.0, (double(moving.back()) + 1.0) / double(objects.size()));
}

namespace {

// Brings x into [lo, hi) when hi > lo (Object::moving); in double, so that a position plus a
// velocity times a long time keeps its fraction.
float wrap_coordinate(double x, float lo, float hi) {
  if (!(hi > lo)) return static_cast<float>(x);
  const double size = double(hi) - double(lo);
  double r = std::fmod(x - double(lo), size);
  if (r < 0) r += size;
  const float out = static_cast<float>(double(lo) + r);
  return out < hi ? out : lo;  // r just below size can round up to hi
}

float largest_magnitude(const glm::mat3& m) {
  float k = 0.0f;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) k = std::max(k, std::abs(m[c][r]));
  return k;
}

// The normal matrix of a placement's 3x3 part M: inverse(transpose(M)) = cofactor(M) / det(M), the
// cofactor matrix's columns being cross products of M's columns, computed on M / k (k its
// largest entry) so that no product overflows. The shaders normalise the normal in 32-bit
// floats, which squares it: where the inverse transpose is singular (a glTF node scaled by 0 on
// an axis), or its entries are outside 1e-8..1e8 (a node scaled by 1e-20 or 1e10), the same
// directions at a size normalize() can square: sign(det) * cofactor(M / k) over its largest
// entry, as the GPU strategies take it (shaders/gpu_driven_draw.wgsl).
glm::mat3 normal_matrix(const glm::mat3& m) {
  const float k = largest_magnitude(m);
  if (!(k > 0.0f) || !std::isfinite(k)) return glm::mat3(0.0f);
  const glm::mat3 u = m / k;
  const glm::mat3 cofactor(glm::cross(u[1], u[2]), glm::cross(u[2], u[0]),
                           glm::cross(u[0], u[1]));
  const float det = glm::dot(u[0], cofactor[0]);  // det(M) / k³
  if (det != 0.0f) {
    const glm::mat3 inverse_transpose = cofactor * (1.0f / (k * det));
    const float size = largest_magnitude(inverse_transpose);
    if (std::isfinite(size) && size >= 1e-8f && size <= 1e8f) return inverse_transpose;
  }
  const float c = largest_magnitude(cofactor);
  return c > 0.0f ? cofactor * ((det < 0.0f ? -1.0f : 1.0f) / c) : cofactor;
}

}  // namespace

void Scene::animate(float time, std::vector<ObjectTransform>& out, uint32_t begin,
                    uint32_t end) const {
  out.resize(objects.size());
  animate_range(time, out, begin, end);
}

void Scene::animate_range(float time, std::span<ObjectTransform> out, uint32_t begin,
                          uint32_t end) const {
  const size_t stop = std::min<size_t>({end, objects.size(), out.size()});
  for (size_t i = begin; i < stop; ++i) {
    const Object& o = objects[i];
    if (!o.animated) {
      out[i].world = o.placement;
      out[i].normal = normal_matrix(glm::mat3(o.placement));
      if (o.moving)
        for (int a = 0; a < 3; ++a)
          out[i].world[3][a] = wrap_coordinate(
              double(o.placement[3][a]) + double(o.velocity[a]) * double(time), wrap_min[a],
              wrap_max[a]);
      continue;
    }
    // Seed 003, "Calcular una matriz de mundo": wgpu-matrix post-multiplies each step; the
    // article's i, i * 3.721 and i * 9.721 are the reduced phases of set_article_phases().
    glm::mat4 world = glm::rotate(glm::mat4(1.0f), o.phase + time * o.speed, o.axis);
    world = glm::translate(world, {0.0f, 0.0f, std::sin(o.phase_z1 + time * o.speed) * o.radius});
    world = glm::translate(world, {0.0f, 0.0f, std::sin(o.phase_z2 + time * 0.1f) * o.radius});
    world = glm::rotate(world, time * o.rotation_speed + o.phase, {1.0f, 0.0f, 0.0f});
    world = glm::scale(world, glm::vec3(o.scale));
    out[i].world = world;
    // world = R * s (R a rotation, s the uniform scale) plus a translation: the inverse
    // transpose of R * s is R / s = mat3(world) / s².
    out[i].normal = glm::mat3(world) * (1.0f / (o.scale * o.scale));
  }
}

namespace {

// splitmix64: a small deterministic generator whose output does not depend on the standard
// library's distribution implementations (so a seed gives the same scene everywhere).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  /// Uniform in [0, 1).
  float next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);
  }
  /// Uniform in [lo, hi) — the article's rand(min, max).
  float range(float lo, float hi) { return lo + next() * (hi - lo); }
  uint32_t index(uint32_t n) { return std::min(n - 1, static_cast<uint32_t>(next() * n)); }

 private:
  uint64_t state_;
};

// The article's hslToRGBA: CSS hsl(h*360|0, s*100%, l*100|0 %) then 8-bit, then /255.
glm::vec4 hsl_to_rgba(float h, float s, float l) {
  const float hd = std::floor(h * 360.0f);
  const float ld = std::floor(l * 100.0f) / 100.0f;
  const float c = (1.0f - std::fabs(2.0f * ld - 1.0f)) * s;
  const float hp = hd / 60.0f;
  const float x = c * (1.0f - std::fabs(std::fmod(hp, 2.0f) - 1.0f));
  glm::vec3 rgb(0.0f);
  if (hp < 1)
    rgb = {c, x, 0};
  else if (hp < 2)
    rgb = {x, c, 0};
  else if (hp < 3)
    rgb = {0, c, x};
  else if (hp < 4)
    rgb = {0, x, c};
  else if (hp < 5)
    rgb = {x, 0, c};
  else
    rgb = {c, 0, x};
  rgb += ld - c / 2.0f;
  glm::vec4 out(1.0f);
  for (int i = 0; i < 3; ++i) out[i] = std::round(glm::clamp(rgb[i], 0.0f, 1.0f) * 255.0f) / 255.0f;
  return out;
}

// The article's cube (seed 003): 24 vertices (4 per face), 36 uint16 indices.
Mesh make_cube_mesh() {
  static const float positions[] = {
      1,  1, -1, 1,  1, 1, 1,  -1, 1,  1,  -1, -1, -1, 1,  1,  -1, 1,  -1, -1, -1, -1, -1, -1, 1,
      -1, 1, 1,  1,  1, 1, 1,  1,  -1, -1, 1,  -1, -1, -1, -1, 1,  -1, -1, 1,  -1, 1,  -1, -1, 1,
      1,  1, 1,  -1, 1, 1, -1, -1, 1,  1,  -1, 1,  -1, 1,  -1, 1,  1,  -1, 1,  -1, -1, -1, -1, -1};
  static const float normals[] = {1,  0,  0, 1,  0,  0, 1, 0,  0,  1, 0,  0,  -1, 0, 0,  -1, 0, 0,
                                  -1, 0,  0, -1, 0,  0, 0, 1,  0,  0, 1,  0,  0,  1, 0,  0,  1, 0,
                                  0,  -1, 0, 0,  -1, 0, 0, -1, 0,  0, -1, 0,  0,  0, 1,  0,  0, 1,
                                  0,  0,  1, 0,  0,  1, 0, 0,  -1, 0, 0,  -1, 0,  0, -1, 0,  0, -1};
  static const float texcoords[] = {1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
                                    1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
                                    1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1};
  static const uint32_t indices[] = {0,  1,  2,  0,  2,  3,  4,  5,  6,  4,  6,  7,
                                     8,  9,  10, 8,  10, 11, 12, 13, 14, 12, 14, 15,
                                     16, 17, 18, 16, 18, 19, 20, 21, 22, 20, 22, 23};
  Mesh m;
  m.name = "cube";
  for (int v = 0; v < 24; ++v) {
    m.vertices.push_back({{positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]},
                          {normals[v * 3], normals[v * 3 + 1], normals[v * 3 + 2]},
                          {texcoords[v * 2], texcoords[v * 2 + 1]}});
  }
  m.indices.assign(std::begin(indices), std::end(indices));
  m.index16 = true;
  m.bounds_min = glm::vec3(-1.0f);
  m.bounds_max = glm::vec3(1.0f);
  return m;
}

// Six procedural 128x128 textures standing in for the article's emoji (no fonts needed): a dark
// pattern on white, each pattern different, so orientation and mip selection stay visible.
TextureData make_pattern_texture(uint32_t which) {
  constexpr uint32_t kSize = 128;
  std::vector<uint8_t> px(size_t(kSize) * kSize * 4, 255);
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      const float u = (x + 0.5f) / kSize - 0.5f, v = (y + 0.5f) / kSize - 0.5f;
      const float r = std::sqrt(u * u + v * v);
      bool ink = false;
      switch (which % 6) {
        case 0:
          ink = ((x / 16) + (y / 16)) % 2 == 0;
          break;  // checker
        case 1:
          ink = (x / 12) % 2 == 0;
          break;  // stripes
        case 2:
          ink = std::fmod(r * 10.0f, 1.0f) < 0.5f;
          break;  // rings
        case 3:
          ink = r < 0.35f && !(r < 0.2f);
          break;  // donut
        case 4:
          ink = (x % 32 < 4) || (y % 32 < 4);
          break;  // grid
        default:
          ink = std::fabs(u) + std::fabs(v) < 0.4f;
          break;  // diamond
      }
      if (ink) {
        uint8_t* p = &px[(size_t(y) * kSize + x) * 4];
        p[0] = static_cast<uint8_t>(40 + 30 * (which % 3));
        p[1] = static_cast<uint8_t>(40 + 25 * (which % 4));
        p[2] = static_cast<uint8_t>(60 + 20 * (which % 5));
      }
    }
  return make_texture_with_mips(fmt::format("pattern{}", which), kSize, kSize, std::move(px));
}

}  // namespace

Scene make_cube_scene(const CubeSceneOptions& o) {
  if (o.objects > kMaxObjects)
    throw Error(ErrorKind::SceneInput,
                fmt::format("cube scene: CubeSceneOptions::objects = {}, valid 0..{}", o.objects,
                            kMaxObjects));
  constexpr uint32_t kMaxMaterials = 100'000, kMaxTextures = 1024;
  if (o.materials == 0 || o.textures == 0 || o.materials > kMaxMaterials ||
      o.textures > kMaxTextures)
    throw Error(ErrorKind::SceneInput,
                fmt::format("cube scene: {} materials and {} textures; allowed 1..{} and 1..{}",
                            o.materials, o.textures, kMaxMaterials, kMaxTextures));

  if (!(o.spread >= kMinSpread && o.spread <= kMaxSpread))
    throw Error(ErrorKind::SceneInput,
                fmt::format("cube scene: CubeSceneOptions::spread = {}, valid {}..{}", o.spread,
                            kMinSpread, kMaxSpread));

  Scene s;
  s.name = "cubes";
  s.meshes.push_back(make_cube_mesh());
  for (uint32_t t = 0; t < o.textures; ++t) s.textures.push_back(make_pattern_texture(t));

  Random rng(o.seed);
  for (uint32_t m = 0; m < o.materials; ++m) {
    Material mat;
    const float h = rng.next(), sat = rng.range(0.5f, 0.8f), l = rng.range(0.5f, 0.7f);
    mat.color = hsl_to_rgba(h, sat, l);
    mat.shininess = rng.range(10.0f, 120.0f);
    mat.texture = rng.index(o.textures);
    s.materials.push_back(mat);
  }
  s.objects.reserve(o.objects);
  for (uint32_t i = 0; i < o.objects; ++i) {
    Object obj;
    obj.mesh = 0;
    obj.material = rng.index(o.materials);
    const float ax = rng.range(-1, 1), ay = rng.range(-1, 1), az = rng.range(-1, 1);
    glm::vec3 axis(ax, ay, az);
    obj.axis = glm::length(axis) > 1e-6f ? glm::normalize(axis) : glm::vec3(0, 1, 0);
    obj.radius = rng.range(10, 100) * o.spread;
    obj.speed = rng.range(0.1f, 0.4f);
    obj.rotation_speed = rng.range(-1, 1);
    obj.scale = rng.range(2, 10);
    obj.set_article_phases(i);
    s.objects.push_back(obj);
  }
  s.moving.resize(o.objects);
  for (uint32_t i = 0; i < o.objects; ++i) s.moving[i] = i;  // every cube is animated
  return s;
}

}  // namespace bindery
