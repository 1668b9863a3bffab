// SPDX-License-Identifier: MIT
// The generated city (make_city_scene, scene.hpp): procedural meshes, textures of several sizes,
// buildings on a grid of blocks and streets, cars the application moves. Every mesh, texture,
// material and object draws its random numbers from its own generator, keyed by the seed, a
// stream per kind and its index, so each is independent of the others (and generated in
// parallel) and the scene is the same byte for byte whatever the thread count.
#include "bindery/core/error.hpp"
#include "bindery/core/limits.hpp"
#include "bindery/render/scene.hpp"

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace bindery {
namespace {

constexpr float kLot = 10.0f;           // lot side, world units
constexpr float kStreet = 8.0f;         // street width, world units
constexpr uint32_t kLotsPerBlock = 4;   // lots along a block's side
constexpr float kBlockPitch = kLotsPerBlock * kLot + kStreet;
constexpr uint32_t kMaxTriangles = 2000;
constexpr float kPi = 3.14159265358979f;

// The streams of random numbers, one per kind of thing generated.
enum Stream : uint64_t { kMeshStream = 1, kTextureStream, kMaterialStream, kCarStream, kLotStream };

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// splitmix64 keyed by (seed, stream, index): independent of the standard library's
// distributions, so a seed gives the same city everywhere.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream, uint64_t index)
      : state_(mix64(seed + 0x9e3779b97f4a7c15ull * mix64(stream * 0x100000001b3ull + index))) {}
  uint64_t bits() { return mix64(state_ += 0x9e3779b97f4a7c15ull); }
  /// Uniform in [0, 1).
  float uniform() { return static_cast<float>(bits() >> 40) / static_cast<float>(1u << 24); }
  float range(float lo, float hi) { return lo + uniform() * (hi - lo); }
  /// Uniform in [0, n), n >= 1.
  uint32_t index(uint32_t n) { return static_cast<uint32_t>(((bits() >> 32) * n) >> 32); }

 private:
  uint64_t state_;
};

// ---- Meshes --------------------------------------------------------------------------------

// Appends faces with flat normals. Each face is given with an outward hint: the winding is
// chosen so that the face is counter-clockwise seen from outside (the front face of bindery's
// pipelines) and the normal is the face's own.
class MeshBuilder {
 public:
  explicit MeshBuilder(Mesh& mesh) : m_(mesh) {}

  void face(std::span<const glm::vec3> p, std::span<const glm::vec2> uv, glm::vec3 outward,
            glm::u8vec4 color) {
    glm::vec3 n = glm::cross(p[1] - p[0], p[2] - p[0]);
    const bool flip = glm::dot(n, outward) < 0.0f;
    n = glm::normalize(flip ? -n : n);
    const uint32_t base = static_cast<uint32_t>(m_.vertices.size());
    for (size_t i = 0; i < p.size(); ++i) m_.vertices.push_back({p[i], n, uv[i], color});
    for (uint32_t i = 1; i + 1 < p.size(); ++i) {  // a fan: the faces here are convex
      const uint32_t a = base + i, b = base + i + 1;
      m_.indices.insert(m_.indices.end(), {base, flip ? b : a, flip ? a : b});
    }
  }

 private:
  Mesh& m_;
};

// A vertical prism: k sides on the ellipse (rx, rz) starting at angle `phase`, from y0 to y1,
// its walls split into `rows` bands (floors), optional caps. 2 k rows + (k - 2) per cap
// triangles.
struct Prism {
  uint32_t k = 4;
  float rx = 0.5f, rz = 0.5f, phase = kPi / 4, y0 = 0, y1 = 1;
  uint32_t rows = 1;
  bool bottom = true, top = true;
  glm::u8vec4 color{255, 255, 255, 255};
};

glm::vec3 ring_point(const Prism& s, uint32_t j, float y) {
  const float a = s.phase + 2.0f * kPi * float(j % s.k) / float(s.k);
  return {s.rx * std::cos(a), y, s.rz * std::sin(a)};
}

void add_prism(MeshBuilder& b, const Prism& s) {
  constexpr float kTile = 2.0f;  // texture repeats per mesh unit
  float u = 0.0f;
  for (uint32_t j = 0; j < s.k; ++j) {
    const glm::vec3 p0 = ring_point(s, j, 0.0f), p1 = ring_point(s, j + 1, 0.0f);
    const float width = glm::length(p1 - p0);
    const glm::vec3 out = (p0 + p1) * 0.5f;  // convex and around the axis: outward
    for (uint32_t r = 0; r < s.rows; ++r) {
      const float ya = s.y0 + (s.y1 - s.y0) * float(r) / float(s.rows);
      const float yb = s.y0 + (s.y1 - s.y0) * float(r + 1) / float(s.rows);
      const glm::vec3 p[4] = {{p0.x, ya, p0.z}, {p1.x, ya, p1.z}, {p1.x, yb, p1.z}, {p0.x, yb, p0.z}};
      const glm::vec2 uv[4] = {{u * kTile, -ya * kTile},
                               {(u + width) * kTile, -ya * kTile},
                               {(u + width) * kTile, -yb * kTile},
                               {u * kTile, -yb * kTile}};
      b.face(p, uv, out, s.color);
    }
    u += width;
  }
  std::vector<glm::vec3> cap(s.k);
  std::vector<glm::vec2> uv(s.k);
  for (const bool top : {false, true}) {
    if (top ? !s.top : !s.bottom) continue;
    for (uint32_t j = 0; j < s.k; ++j) {
      cap[j] = ring_point(s, j, top ? s.y1 : s.y0);
      uv[j] = {cap[j].x * kTile, cap[j].z * kTile};
    }
    b.face(cap, uv, {0.0f, top ? 1.0f : -1.0f, 0.0f}, s.color);
  }
}

// A roof over the top ring of `s`: a pyramid (or cone) to an apex `height` above, or, for a
// 4-sided prism, a gable along x (two slopes and two triangular ends).
void add_roof(MeshBuilder& b, const Prism& s, float height, bool gable, glm::u8vec4 color) {
  const glm::vec3 apex(0.0f, s.y1 + height, 0.0f);
  if (!gable || s.k != 4) {
    for (uint32_t j = 0; j < s.k; ++j) {
      const glm::vec3 p0 = ring_point(s, j, s.y1), p1 = ring_point(s, j + 1, s.y1);
      const glm::vec3 p[3] = {p0, p1, apex};
      const glm::vec2 uv[3] = {{0, 0}, {1, 0}, {0.5f, 1}};
      b.face(p, uv, (p0 + p1) * 0.5f + glm::vec3(0, 1, 0), color);
    }
    return;
  }
  // The top ring of a box: corners at (+-hx, +-hz); the ridge runs along x at z = 0.
  const float hx = std::fabs(ring_point(s, 0, 0).x), hz = std::fabs(ring_point(s, 0, 0).z);
  const float top = s.y1 + height;
  for (const float side : {-1.0f, 1.0f}) {
    const glm::vec3 slope[4] = {
        {-hx, s.y1, side * hz}, {hx, s.y1, side * hz}, {hx, top, 0.0f}, {-hx, top, 0.0f}};
    const glm::vec2 suv[4] = {{0, 0}, {2 * hx, 0}, {2 * hx, hz}, {0, hz}};
    b.face(slope, suv, {0.0f, 1.0f, side}, color);
    const glm::vec3 end[3] = {{side * hx, s.y1, -hz}, {side * hx, s.y1, hz}, {side * hx, top, 0}};
    const glm::vec2 euv[3] = {{0, 0}, {1, 0}, {0.5f, 1}};
    b.face(end, euv, {side, 0.0f, 0.0f}, color);
  }
}

// Most wall bands a k-sided prism with both caps may have to stay within kMaxTriangles.
uint32_t max_rows(uint32_t k, uint32_t caps) {
  return std::max(1u, (kMaxTriangles - caps * (k - 2)) / (2 * k));
}

// Mesh `index` of the city: 0 the unit box (cars); the others one of four kinds.
Mesh make_city_mesh(uint64_t seed, uint32_t index) {
  Mesh m;
  MeshBuilder b(m);
  Rng rng(seed, kMeshStream, index);
  const uint32_t kind = index == 0 ? 4 : rng.index(4);
  const float height = 0.4f + 5.6f * rng.uniform() * rng.uniform();  // mostly low buildings
  const uint32_t floors = std::max(1u, static_cast<uint32_t>(height * rng.range(1.0f, 3.0f)));
  Prism p;
  p.rx = rng.range(0.3f, 0.5f) * std::sqrt(2.0f);
  p.rz = rng.range(0.3f, 0.5f) * std::sqrt(2.0f);
  p.y1 = height;
  p.rows = std::min(floors, max_rows(4, 2));
  const glm::u8vec4 roof_color(static_cast<uint8_t>(rng.range(90, 200)),
                               static_cast<uint8_t>(rng.range(60, 120)),
                               static_cast<uint8_t>(rng.range(50, 110)), 255);
  switch (kind) {
    case 0:  // a box
      m.name = fmt::format("box{}", index);
      add_prism(b, p);
      break;
    case 1: {  // a stepped tower: 2..5 tiers, each narrower (setbacks), 4 or 8 sides
      m.name = fmt::format("tower{}", index);
      const uint32_t tiers = 2 + rng.index(4);
      p.k = rng.uniform() < 0.75f ? 4 : 8;
      if (p.k == 8) {  // the octagon's corners on the circle through the box's side centres
        p.phase = kPi / 8;
        p.rx /= std::sqrt(2.0f);
        p.rz /= std::sqrt(2.0f);
      }
      float y = 0.0f;
      for (uint32_t t = 0; t < tiers; ++t) {
        p.y0 = y;
        p.y1 = y + height / float(tiers);
        p.rows = std::min(std::max(1u, floors / tiers), 12u);
        p.bottom = t == 0;
        add_prism(b, p);
        y = p.y1;
        const float shrink = rng.range(0.6f, 0.85f);
        p.rx *= shrink;
        p.rz *= shrink;
      }
      break;
    }
    case 2: {  // a prism or cylinder of 3..64 sides
      p.k = 3 + rng.index(62);
      m.name = fmt::format("prism{}_{}", index, p.k);
      p.rx = p.rz = rng.range(0.3f, 0.5f);
      if (rng.uniform() < 0.3f) p.rz *= rng.range(0.6f, 1.0f);  // elliptic
      p.phase = rng.range(0.0f, 2.0f * kPi);
      // At least 12 triangles: a triangular prism needs two bands (2 x 3 x 2 + 2 caps = 14).
      p.rows = std::max(p.k == 3 ? 2u : 1u, std::min(floors, max_rows(p.k, 2)));
      add_prism(b, p);
      break;
    }
    case 3: {  // a box or small prism under a gabled or pyramid roof
      const bool gable = rng.uniform() < 0.5f;
      if (!gable && rng.uniform() < 0.4f) {
        p.k = 5 + rng.index(20);
        p.phase = rng.range(0.0f, 2.0f * kPi);
        p.rx = p.rz = rng.range(0.3f, 0.5f);
      }
      m.name = fmt::format("{}{}", gable ? "gabled" : "pyramid", index);
      p.top = false;  // under the roof
      p.rows = std::min(floors, max_rows(p.k, 2));
      add_prism(b, p);
      add_roof(b, p, rng.range(0.15f, 0.6f), gable, roof_color);
      break;
    }
    default:  // the unit box of the cars: x and z in [-0.5, 0.5], y in [0, 1]
      m.name = "unit-box";
      p.rx = p.rz = std::sqrt(0.5f);
      p.y1 = 1.0f;
      p.rows = 1;
      add_prism(b, p);
      break;
  }
  m.bounds_min = m.bounds_max = m.vertices.front().position;
  for (const Vertex& v : m.vertices) {
    m.bounds_min = glm::min(m.bounds_min, v.position);
    m.bounds_max = glm::max(m.bounds_max, v.position);
  }
  m.index16 = m.vertices.size() <= 65536;
  return m;
}

// ---- Textures ------------------------------------------------------------------------------

// The 16 texture sizes: square and not, powers of two and not, 16x16 up to 512x256.
constexpr std::array<std::array<uint32_t, 2>, 16> kTextureSizes = {{{16, 16},
                                                                     {32, 64},
                                                                     {48, 24},
                                                                     {64, 64},
                                                                     {96, 40},
                                                                     {128, 128},
                                                                     {200, 120},
                                                                     {256, 64},
                                                                     {512, 256},
                                                                     {100, 100},
                                                                     {24, 72},
                                                                     {160, 160},
                                                                     {320, 180},
                                                                     {40, 40},
                                                                     {80, 56},
                                                                     {256, 256}}};

// Texture `index`: windows, bricks, floor stripes or panels, light enough that the material
// colour shows.
TextureData make_city_texture(uint64_t seed, uint32_t index) {
  Rng rng(seed, kTextureStream, index);
  const uint32_t w = kTextureSizes[index % kTextureSizes.size()][0];
  const uint32_t h = kTextureSizes[index % kTextureSizes.size()][1];
  const uint32_t kind = index % 4;
  const glm::vec3 wall(rng.range(170, 250), rng.range(160, 240), rng.range(150, 230));
  const glm::vec3 glass(rng.range(40, 90), rng.range(60, 110), rng.range(90, 150));
  const uint32_t cells_x = 2 + rng.index(4), cells_y = 2 + rng.index(4);
  std::vector<uint8_t> px(size_t(w) * h * 4, 255);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
      const float cu = u * cells_x - std::floor(u * cells_x), cv = v * cells_y - std::floor(v * cells_y);
      glm::vec3 c = wall;
      if (kind == 0) {  // windows, some lit
        if (cu > 0.2f && cu < 0.8f && cv > 0.25f && cv < 0.75f) {
          const uint64_t cell = uint64_t(u * cells_x) * 31 + uint64_t(v * cells_y);
          c = (mix64(seed ^ (cell + index * 977)) & 3) == 0 ? glm::vec3(250, 220, 120) : glass;
        }
      } else if (kind == 1) {  // bricks: rows of 8, every other one offset by half a brick
        const float row = v * 8.0f, bu = u * 4.0f + (int(row) % 2 ? 0.5f : 0.0f);
        if (row - std::floor(row) < 0.15f || bu - std::floor(bu) < 0.06f)
          c = glm::vec3(200, 200, 195);
        else
          c = wall * glm::vec3(0.9f, 0.55f, 0.45f);
      } else if (kind == 2) {  // floors: a band of glass under a band of wall
        if (cv > 0.45f) c = glass;
      } else {  // panels: a grid of joints, each panel a little lighter or darker
        const uint64_t cell = uint64_t(u * cells_x) * 131 + uint64_t(v * cells_y);
        c *= 0.85f + 0.15f * float(mix64(seed ^ (cell + index)) % 100) / 100.0f;
        if (cu < 0.04f || cv < 0.04f) c = glm::vec3(90, 90, 90);
      }
      uint8_t* p = &px[(size_t(y) * w + x) * 4];
      for (int i = 0; i < 3; ++i) p[i] = static_cast<uint8_t>(glm::clamp(c[i], 0.0f, 255.0f));
    }
  return make_texture_with_mips(fmt::format("city{}_{}x{}", index, w, h), w, h, std::move(px));
}

// ---- Materials, placement, camera ----------------------------------------------------------

glm::vec4 hsl(float h, float s, float l) {
  auto f = [&](float n) {
    const float k = std::fmod(n + h * 12.0f, 12.0f);
    const float a = s * std::min(l, 1.0f - l);
    return l - a * std::max(-1.0f, std::min({k - 3.0f, 9.0f - k, 1.0f}));
  };
  return {f(0), f(8), f(4), 1.0f};
}

Material make_city_material(uint64_t seed, uint32_t index, uint32_t textures) {
  Rng rng(seed, kMaterialStream, index);
  Material m;
  m.color = hsl(rng.uniform(), rng.range(0.1f, 0.5f), rng.range(0.55f, 0.85f));
  m.shininess = rng.range(4.0f, 64.0f);
  m.texture = rng.index(textures);
  m.sampler = 1;  // repeating
  return m;
}

// The city's layout from its building count: blocks per side and the side in world units.
struct Layout {
  uint32_t blocks = 1;  // per side
  uint32_t lots = kLotsPerBlock;  // per side
  float extent = kBlockPitch;     // world units per side
};

Layout layout_for(uint32_t buildings) {
  uint32_t side = static_cast<uint32_t>(std::ceil(std::sqrt(double(buildings))));
  while (uint64_t(side) * side < buildings) ++side;
  Layout l;
  l.blocks = std::max(1u, (side + kLotsPerBlock - 1) / kLotsPerBlock);
  l.lots = l.blocks * kLotsPerBlock;
  l.extent = float(l.blocks) * kBlockPitch;
  return l;
}

// Building `j` (in lot order, row by row) on its lot: turned by a multiple of 90 degrees,
// 6..9 units wide, 0.8..1.25 times as tall.
Object make_building(uint64_t seed, uint32_t j, const Layout& l, uint32_t meshes,
                     uint32_t materials) {
  Rng rng(seed, kLotStream, j);
  const uint32_t lx = j % l.lots, lz = j / l.lots;
  auto lot_center = [](uint32_t lot) {
    return float(lot / kLotsPerBlock) * kBlockPitch + kStreet * 0.5f +
           float(lot % kLotsPerBlock) * kLot + kLot * 0.5f;
  };
  Object o;
  o.animated = false;
  // Buildings take meshes 1..U-1 in a shuffled turn (1000003 is a prime above U - 1, so j ->
  // j * 1000003 mod (U - 1) visits every mesh once in any U - 1 consecutive lots).
  const uint64_t turn = (uint64_t(j) + (seed % 1000003)) * 1000003ull;
  o.mesh = meshes == 1 ? 0 : 1 + static_cast<uint32_t>(turn % (meshes - 1));
  o.material = rng.index(materials);
  const float width = rng.range(6.0f, 9.0f), tall = width * rng.range(0.8f, 1.25f);
  static const float kCos[4] = {1, 0, -1, 0}, kSin[4] = {0, 1, 0, -1};
  const uint32_t turn90 = rng.index(4);
  glm::mat4 p(1.0f);
  p[0] = glm::vec4(kCos[turn90] * width, 0, -kSin[turn90] * width, 0);
  p[1] = glm::vec4(0, tall, 0, 0);
  p[2] = glm::vec4(kSin[turn90] * width, 0, kCos[turn90] * width, 0);
  p[3] = glm::vec4(lot_center(lx), 0.0f, lot_center(lz), 1.0f);
  o.placement = p;
  return o;
}

// Car `c`: a unit box scaled to 1.6..2 x 1.3..1.8 x 3.5..5 units on a random street, in the lane
// of its direction, at 4..14 units per second along the street.
Object make_car(uint64_t seed, uint32_t c, const Layout& l, uint32_t materials) {
  Rng rng(seed, kCarStream, c);
  Object o;
  o.animated = false;
  o.moving = true;
  o.mesh = 0;
  o.material = rng.index(materials);
  const bool along_x = rng.uniform() < 0.5f;
  const float street = float(rng.index(l.blocks)) * kBlockPitch;
  const float direction = rng.uniform() < 0.5f ? -1.0f : 1.0f;
  const float lane = street + direction * kStreet * 0.25f;
  const float along = rng.range(0.0f, l.extent);
  const float speed = rng.range(4.0f, 14.0f) * direction;
  const float width = rng.range(1.6f, 2.0f), height = rng.range(1.3f, 1.8f),
              length = rng.range(3.5f, 5.0f);
  // The lane of street 0 in the negative direction lies just below 0: wrapped to the city's
  // far edge (the same street under wrapping).
  const float across = lane < 0.0f ? lane + l.extent : lane;
  const glm::vec3 position = along_x ? glm::vec3(along, 0, across) : glm::vec3(across, 0, along);
  o.velocity = along_x ? glm::vec3(speed, 0, 0) : glm::vec3(0, 0, speed);
  const glm::vec3 size = along_x ? glm::vec3(length, height, width) : glm::vec3(width, height, length);
  o.placement = glm::scale(glm::translate(glm::mat4(1.0f), position), size);
  return o;
}

// A low camera outside one corner looking across the city along its diagonal.
View city_view(const Layout& l) {
  View v;
  const float e = l.extent;
  v.eye = glm::vec3(-0.03f * e - 12.0f, 25.0f + 0.004f * e, -0.03f * e - 12.0f);
  v.target = glm::vec3(0.5f * e, 0.0f, 0.5f * e);
  v.fov_y_degrees = 60.0f;
  v.near_plane = 1.0f;
  v.far_plane = glm::length(glm::vec3(e, 0.0f, e) - v.eye) + 100.0f;
  // Behind the camera and high (the shading has no ambient term): both wall directions the
  // camera sees (-x and -z) and the roofs face it.
  v.light_world_position = glm::vec3(-0.6f * e - 50.0f, 0.4f * e + 80.0f, -0.25f * e - 30.0f);
  v.clear_color = glm::vec4(0.62f, 0.74f, 0.86f, 1.0f);
  return v;
}

void check_city_options(const CitySceneOptions& o) {
  auto refuse = [](std::string_view what, double value, const std::string& range) {
    throw Error(ErrorKind::SceneInput,
                fmt::format("city scene: CitySceneOptions::{} = {}, valid {}", what, value, range));
  };
  if (o.objects < 1 || o.objects > kMaxObjects)
    refuse("objects", o.objects, fmt::format("1..{}", kMaxObjects));
  if (o.meshes < 1 || o.meshes > 200'000) refuse("meshes", o.meshes, "1..200000");
  if (o.materials < 1 || o.materials > 100'000) refuse("materials", o.materials, "1..100000");
  if (o.textures < 1 || o.textures > 1024) refuse("textures", o.textures, "1..1024");
  if (!(o.moving >= 0.0 && o.moving <= 1.0)) refuse("moving", o.moving, "0..1");
}

}  // namespace

Scene make_city_scene(const CitySceneOptions& o) {
  check_city_options(o);
  const uint32_t cars = std::min(
      o.objects, static_cast<uint32_t>(std::llround(o.moving * double(o.objects))));
  const uint32_t buildings = o.objects - cars;
  const Layout layout = layout_for(buildings);

  Scene s;
  s.name = "city";
  s.meshes.resize(o.meshes);
  tbb::parallel_for(0u, o.meshes, [&](uint32_t i) { s.meshes[i] = make_city_mesh(o.seed, i); });
  s.textures.resize(o.textures);
  tbb::parallel_for(0u, o.textures,
                    [&](uint32_t i) { s.textures[i] = make_city_texture(o.seed, i); });
  SamplerData repeat;
  repeat.address_mode_u = repeat.address_mode_v = AddressMode::repeat;
  repeat.mipmap_filter = FilterMode::linear;
  s.samplers.push_back(repeat);
  s.materials.reserve(o.materials);
  for (uint32_t i = 0; i < o.materials; ++i)
    s.materials.push_back(make_city_material(o.seed, i, o.textures));

  s.objects.resize(o.objects);
  tbb::parallel_for(0u, o.objects, [&](uint32_t i) {
    s.objects[i] = i < cars ? make_car(o.seed, i, layout, o.materials)
                            : make_building(o.seed, i - cars, layout, o.meshes, o.materials);
  });
  s.moving.resize(cars);
  for (uint32_t i = 0; i < cars; ++i) s.moving[i] = i;
  s.wrap_min = glm::vec3(0.0f);
  s.wrap_max = glm::vec3(layout.extent, 0.0f, layout.extent);
  s.view = city_view(layout);
  return s;
}

}  // namespace bindery
