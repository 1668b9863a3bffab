// SPDX-License-Identifier: MIT
// Device tests of glTF drawn as the specification says (issue 9; lavapipe on CPU-only machines).
// The shared cases (tests/data/gltf/G*.gltf, from ../shared/cases/inputs.md) and their relatives
// (tests/data/gltf/relatives/, written by tests/data/gltf/make_relatives.py) render at 64x64 with
// one frame. Expected values: "the same image as" a control whose equality follows from the glTF
// 2.0 specification (sections named per test), pixel counts against the projected area of the
// geometry, and colours from seed 003's shading formulas evaluated here on the CPU.
#include <bindery/core/device.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/device.hpp"
#include "support/images.hpp"

#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace bindery {
namespace {

using test::shared_device;
using test::dump_on_failure;

constexpr uint32_t kSize = 64;
// The clear colour (0.3, 0.3, 0.3) in unorm8: 76 or 77 (0.3 * 255 = 76.5).
constexpr uint8_t kBackground[3] = {77, 77, 77};

std::string data_file(const std::string& name) {
  return std::string(BINDERY_SOURCE_DIR) + "/tests/data/gltf/" + name;
}

Image draw(const Scene& scene, const std::string& strategy = "dynamic-offsets") {
  RenderOptions o;
  o.width = o.height = kSize;
  o.frames = 1;
  o.strategy = strategy;
  return *render(shared_device(), scene, o).last_frame;
}

Image draw(const std::string& name, const std::string& strategy = "dynamic-offsets") {
  return draw(load_gltf_scene(data_file(name), 1), strategy);
}

bool is_foreground(const uint8_t* p) {
  for (int c = 0; c < 3; ++c)
    if (std::abs(int(p[c]) - int(kBackground[c])) > 2) return true;
  return false;
}

uint64_t foreground_pixels(const Image& image) {
  uint64_t n = 0;
  for (uint32_t y = 0; y < image.height; ++y)
    for (uint32_t x = 0; x < image.width; ++x) n += is_foreground(image.pixel(x, y));
  return n;
}

// `a` and `b` draw the same picture (per channel within `tolerance`), and it is not empty (more
// than 200 of the 4096 pixels: every model here covers a good part of the view).
void expect_same_image(const std::string& a, const std::string& b, uint32_t tolerance = 1) {
  SCOPED_TRACE(a + " vs " + b);
  const Image ia = draw(a), ib = draw(b);
  EXPECT_GT(foreground_pixels(ia), 200u);
  EXPECT_LE(max_channel_difference(ia, ib), tolerance);
  dump_on_failure(std::filesystem::path(a).stem().string(), ia, ib);
}

// The pixel-space area and perimeter of a planar polygon (object-space corners, in order) of
// object 0 of `scene`, projected with the scene's camera at kSize x kSize (WebGPU NDC: y up).
struct Projected {
  double area = 0, perimeter = 0;
};
Projected project(const Scene& scene, const std::vector<glm::vec3>& corners) {
  const glm::mat4 m = scene.view.view_projection(1.0f) * scene.objects.at(0).placement;
  std::vector<glm::dvec2> p;
  for (const glm::vec3& c : corners) {
    const glm::vec4 clip = m * glm::vec4(c, 1.0f);
    p.push_back({(clip.x / clip.w * 0.5 + 0.5) * kSize, (0.5 - clip.y / clip.w * 0.5) * kSize});
  }
  Projected r;
  for (size_t i = 0; i < p.size(); ++i) {
    const glm::dvec2 a = p[i], b = p[(i + 1) % p.size()];
    r.area += (a.x * b.y - b.x * a.y) * 0.5;
    r.perimeter += glm::length(b - a);
  }
  r.area = std::abs(r.area);
  return r;
}

// Rasterization covers the pixels whose centres lie inside the polygon: only pixels crossed by
// an edge can differ from the area, and they differ by less than the part of them inside, so
// |count - area| stays well below the perimeter (edge pixels' errors of both signs cancel).
void expect_covers(uint64_t pixels, const Projected& p) {
  EXPECT_NEAR(double(pixels), p.area, p.perimeter * 0.5)
      << "area " << p.area << " perimeter " << p.perimeter;
}

const std::vector<glm::vec3> kFrontQuad = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};

// --- G06: "Meshes", primitive modes 4, 5, 6 ----------------------------------------------------

TEST(GltfCasesDevice, G06StripAndFanDrawTheTriangleListsImage) {
  expect_same_image("G06b_quad_strip.gltf", "G06a_quad_triangles.gltf");
  expect_same_image("G06c_quad_fan.gltf", "G06a_quad_triangles.gltf");
  // The quad (y = 0, x and z in 0..1) covers its projected area.
  const Scene s = load_gltf_scene(data_file("G06a_quad_triangles.gltf"), 1);
  expect_covers(foreground_pixels(draw(s)),
                project(s, {{0, 0, 0}, {0, 0, 1}, {1, 0, 1}, {1, 0, 0}}));
}

TEST(GltfCasesDevice, G06RelativesIndexedOrNotAnyIndexSize) {
  for (const char* name :
       {"quad_triangles_unindexed", "quad_triangles_u8", "quad_triangles_u32", "quad_strip_u8",
        "quad_strip_u32", "quad_strip_6_unindexed", "quad_fan_unindexed", "quad_fan_u8",
        "quad_fan_u32", "quad_points_and_triangles", "quad_sparse_no_bufferview",
        "quad_sparse_over_base_u16", "quad_quantized_short"})
    expect_same_image(std::string("relatives/") + name + ".gltf", "G06a_quad_triangles.gltf");
}

// --- G07: "Transformations", negative determinants ---------------------------------------------

TEST(GltfCasesDevice, G07MirroredCubeIsNotInsideOut) {
  expect_same_image("G07b_cube_mirrored.gltf", "G07a_cube.gltf");
  // Determinant -1 (matrix z, parent x) and +1 (x and y, parent x child y): the cube is
  // symmetric, so every one draws G07a's image; KHR_mesh_quantization's byte cube too.
  for (const char* name : {"cube_mirror_z_matrix", "cube_mirror_x_parent", "cube_mirror_xy",
                           "cube_mirror_nested", "cube_quantized_byte"})
    expect_same_image(std::string("relatives/") + name + ".gltf", "G07a_cube.gltf");
  // An asymmetric shape: G08c's quad under scale (-1, 1, 1) is the quad at x in -1..0 facing +z,
  // written out as such in the control.
  expect_same_image("relatives/front_quad_mirrored_x.gltf",
                    "relatives/front_quad_premirrored.gltf");
}

// --- G08: "Double Sided" -----------------------------------------------------------------------

TEST(GltfCasesDevice, G08DoubleSidedQuadIsSeenFromBehind) {
  // Single-sided, facing away: nothing (the camera looks from +z).
  EXPECT_FALSE(foreground_box(draw("G08a_quad_back_single_sided.gltf"), kBackground, 2));
  // Double-sided: G08c's silhouette and colour (the back lit with the reversed normal, +z).
  expect_same_image("G08b_quad_back_double_sided.gltf", "G08c_quad_front_control.gltf");
  const Scene s = load_gltf_scene(data_file("G08c_quad_front_control.gltf"), 1);
  expect_covers(foreground_pixels(draw(s)), project(s, kFrontQuad));
  // Double-sided under a mirror: the back copy is the one facing the camera, lit with +z.
  expect_same_image("relatives/back_quad_double_sided_mirrored_x.gltf",
                    "relatives/front_quad_premirrored.gltf");
}

// --- G09: "Accessors" without bufferView -------------------------------------------------------

TEST(GltfCasesDevice, G09CubeWithZeroTexcoordsRenders) {
  // Texcoords all zero sample the white default texture's only texel: the same as no texcoords.
  expect_same_image("G09a_texcoord_no_bufferview.gltf", "relatives/cube_no_texcoord.gltf");
  // No material: glTF's default (white): every lit pixel is grey (r = g = b).
  const Image image = draw("G09a_texcoord_no_bufferview.gltf");
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      const uint8_t* p = image.pixel(x, y);
      EXPECT_TRUE(p[0] == p[1] && p[1] == p[2]) << x << "," << y;
    }
}

// --- G13: COLOR_0 ("Meshes" attributes, "Materials" base colour) -------------------------------

// Seed 003's shading (shaders/cubes_common.wgsl) at one surface point, on the CPU: diffuse =
// base x vertex colour x light, light = dot(n, l), specular = dot(n, h)^shininess when positive.
glm::vec3 shade_cpu(const Scene& s, glm::vec3 p, glm::vec3 n, glm::vec3 diffuse, float shininess) {
  const glm::vec3 l = glm::normalize(s.view.light_world_position - p);
  const glm::vec3 v = glm::normalize(s.view.eye - p);
  const glm::vec3 h = glm::normalize(l + v);
  const float light = glm::dot(n, l);
  const float spec = glm::dot(n, h) > 0.0f ? std::pow(glm::dot(n, h), shininess) : 0.0f;
  return glm::clamp(diffuse * light + spec, 0.0f, 1.0f) * 255.0f;
}

TEST(GltfCasesDevice, G13VertexColoursMakeARedCube) {
  const Scene s = load_gltf_scene(data_file("G13_vertex_colors.gltf"), 1);
  const Image image = draw(s);
  // Red dominates: vertex colour (229, 26, 26) / 255 times the default material's white, so
  // r - g = (229 - 26) / 255 x light x 255 >= 203 x 0.3 = 61 on the lit faces (the light falls on
  // them at 0.3 or more, seen below), with g = b. The +x face turns away from the light (which
  // sits up and to the left of the eye): light < 0 there, black, and skipped here.
  uint64_t red = 0;
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      const uint8_t* p = image.pixel(x, y);
      if (!is_foreground(p) || std::max({p[0], p[1], p[2]}) < 10) continue;
      ++red;
      EXPECT_GE(int(p[0]), int(p[1]) + 40) << x << "," << y;
      EXPECT_LE(std::abs(int(p[1]) - int(p[2])), 1) << x << "," << y;
    }
  EXPECT_GT(red, 600u);
  // The colour at the centre of each face the camera sees, from the shading formulas: about
  // (238, 92, 92) on +y, (137, 66, 66) on +z, black on +x (worked by hand for the camera the
  // loader places: eye 1.559 x normalize(100, 150, 200), light eye + (-0.866, 0.866, 0)).
  const glm::vec3 colour(229 / 255.0f, 26 / 255.0f, 26 / 255.0f);
  const glm::mat4 vp = s.view.view_projection(1.0f);
  for (const glm::vec3 n : {glm::vec3(0, 1, 0), glm::vec3(0, 0, 1), glm::vec3(1, 0, 0)}) {
    const glm::vec3 centre = n * 0.5f;
    const glm::vec4 clip = vp * glm::vec4(centre, 1.0f);
    const uint32_t px = uint32_t((clip.x / clip.w * 0.5f + 0.5f) * kSize);
    const uint32_t py = uint32_t((0.5f - clip.y / clip.w * 0.5f) * kSize);
    const glm::vec3 expected = shade_cpu(s, centre, n, colour, 2.0f);
    const uint8_t* p = image.pixel(px, py);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(p[c], expected[c], 4.0) << "face " << n.x << n.y << n.z << " channel " << c;
  }
  // The relatives: the same colour as unorm8, unorm16 and float VEC3, sparse; the vertex colour
  // (1, 0.5, 0.5) times a base colour (0.9, 0.2, 0.2); the base colour (0.9, 0.1, 0.1) alone.
  // 229 vs 230 / 255 in the vertex colour: within 1 of G13.
  for (const char* name :
       {"cube_color_u8_vec4", "cube_color_u16_vec3", "cube_color_float_vec3",
        "cube_color_sparse_u32", "cube_color_times_material", "cube_red_material"})
    expect_same_image(std::string("relatives/") + name + ".gltf", "G13_vertex_colors.gltf");
}

// --- "Alpha Coverage": OPAQUE, MASK, BLEND -----------------------------------------------------

TEST(GltfCasesDevice, AlphaMaskDiscardsBelowTheCutoff) {
  // Base colour alpha 0.4 < 0.5 (default cutoff) and 0.6 < 0.7: nothing; 0.6 >= 0.5: the whole
  // quad, as opaque; OPAQUE ignores alpha 0.
  EXPECT_FALSE(foreground_box(draw("relatives/front_quad_mask_below.gltf"), kBackground, 2));
  EXPECT_FALSE(foreground_box(draw("relatives/front_quad_mask_cutoff_0_7.gltf"), kBackground, 2));
  expect_same_image("relatives/front_quad_mask_above.gltf", "G08c_quad_front_control.gltf");
  expect_same_image("relatives/front_quad_opaque_alpha_0.gltf", "G08c_quad_front_control.gltf");
  // A 2x1 texture, left texel alpha 0, right 255 (nearest): MASK keeps the right half (x in
  // 0.5..1), each kept pixel as OPAQUE draws it.
  const Scene masked = load_gltf_scene(data_file("relatives/tex_mask_half.gltf"), 1);
  const Image mask = draw(masked), opaque = draw("relatives/tex_opaque_half.gltf");
  uint64_t kept = 0;
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      if (!is_foreground(mask.pixel(x, y))) continue;
      ++kept;
      for (int c = 0; c < 4; ++c) ASSERT_EQ(mask.pixel(x, y)[c], opaque.pixel(x, y)[c]);
    }
  expect_covers(kept, project(masked, {{0.5f, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0.5f, 1, 0}}));
  expect_covers(foreground_pixels(opaque), project(masked, kFrontQuad));
}

// BLEND without a blending pipeline: 4x4 ordered-dither coverage. Alpha 0.5 keeps the Bayer
// entries m with (m + 0.5) / 16 <= 0.5, i.e. m = 0..7, which in the matrix
// (0 8 2 10 / 12 4 14 6 / 3 11 1 9 / 15 7 13 5) sit where x + y is even: a checkerboard of the
// opaque quad's pixels, each as OPAQUE draws it.
TEST(GltfCasesDevice, AlphaBlendIsOrderedDitherCoverage) {
  const Image blend = draw("relatives/front_quad_blend_half.gltf");
  const Image opaque = draw("G08c_quad_front_control.gltf");
  uint64_t inside = 0;
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      if (!is_foreground(opaque.pixel(x, y))) {
        EXPECT_FALSE(is_foreground(blend.pixel(x, y)));
        continue;
      }
      ++inside;
      if ((x + y) % 2 == 0) {
        for (int c = 0; c < 4; ++c) ASSERT_EQ(blend.pixel(x, y)[c], opaque.pixel(x, y)[c]);
      } else {
        EXPECT_FALSE(is_foreground(blend.pixel(x, y))) << x << "," << y;
      }
    }
  EXPECT_GT(inside, 200u);
}

// --- Samplers and images -----------------------------------------------------------------------

// u in 0..2 over a 2-texel [red, blue] texture (nearest) through REPEAT, MIRRORED_REPEAT,
// CLAMP_TO_EDGE visits red blue red blue, red blue blue red, red blue blue blue: the same as u in
// 0..1 over a 4-texel texture holding that sequence (nearest texel floor(2u) either way).
TEST(GltfCasesDevice, SamplerWrapModes) {
  for (const char* wrap : {"repeat", "mirror", "clamp"}) {
    const std::string name = std::string("relatives/tex_wrap_") + wrap;
    expect_same_image(name + ".gltf", name + "_control.gltf");
  }
  // The three differ from each other (so the comparisons above can fail).
  const Image repeat = draw("relatives/tex_wrap_repeat.gltf");
  EXPECT_GT(count_differing_pixels(repeat, draw("relatives/tex_wrap_mirror.gltf"), 8), 200u);
  EXPECT_GT(count_differing_pixels(repeat, draw("relatives/tex_wrap_clamp.gltf"), 8), 200u);
  // Texture coordinates: set 1 named by texCoord; normalized UNSIGNED_BYTE; UNSIGNED_SHORT
  // (KHR_mesh_quantization, not normalized: the values 0..2 themselves).
  expect_same_image("relatives/tex_texcoord_set1.gltf", "relatives/tex_wrap_repeat.gltf");
  expect_same_image("relatives/tex_texcoord_ushort.gltf", "relatives/tex_wrap_repeat.gltf");
  expect_same_image("relatives/tex_texcoord_unorm8.gltf", "relatives/tex_mag_nearest.gltf");
}

// magFilter NEAREST: every pixel is red or blue (x light; roughness 0 leaves no visible specular,
// green stays 0); LINEAR blends the two texels over the middle half of the quad: purple pixels.
// minFilter NEAREST samples level 0 only: a 1-texel black/white checker of 128x128 texels on a
// quad at most about 50 pixels wide (minified more than 2x everywhere) picks single texels, black
// ones among them; LINEAR_MIPMAP_LINEAR reads levels >= 1, all grey (127.5): no black pixel.
TEST(GltfCasesDevice, SamplerFilterModes) {
  auto purple = [](const Image& image) {
    uint64_t n = 0;
    for (uint32_t y = 0; y < kSize; ++y)
      for (uint32_t x = 0; x < kSize; ++x) {
        const uint8_t* p = image.pixel(x, y);
        n += is_foreground(p) && p[0] > p[1] + 20 && p[2] > p[1] + 20;
      }
    return n;
  };
  const Image nearest = draw("relatives/tex_mag_nearest.gltf");
  const Image linear = draw("relatives/tex_mag_linear.gltf");
  EXPECT_EQ(purple(nearest), 0u);
  EXPECT_GT(purple(linear), foreground_pixels(linear) / 5);
  auto black = [](const Image& image) {
    uint64_t n = 0;
    for (uint32_t y = 0; y < kSize; ++y)
      for (uint32_t x = 0; x < kSize; ++x) {
        const uint8_t* p = image.pixel(x, y);
        n += std::max({p[0], p[1], p[2]}) < 20;
      }
    return n;
  };
  const Image no_mips = draw("relatives/tex_min_nearest_no_mipmaps.gltf");
  EXPECT_GT(black(no_mips), foreground_pixels(no_mips) / 4);
  EXPECT_EQ(black(draw("relatives/tex_min_linear_mipmap_linear.gltf")), 0u);
}

// 16-bit RGBA / RGB, palette + tRNS and 16-bit grey + alpha PNGs draw as their RGBA8 controls
// (MASK drops the quadrant whose alpha is 0 in each).
TEST(GltfCasesDevice, SixteenBitAndPalettePngs) {
  expect_same_image("relatives/tex_png_rgba16.gltf", "relatives/tex_png_rgba8.gltf");
  expect_same_image("relatives/tex_png_palette_trns.gltf", "relatives/tex_png_rgba8.gltf");
  expect_same_image("relatives/tex_png_rgb16.gltf", "relatives/tex_png_rgb8_control.gltf");
  expect_same_image("relatives/tex_png_gray_alpha16.gltf",
                    "relatives/tex_png_gray_alpha_control.gltf");
}

// Every strategy draws vertex colours, mirrored and double-sided copies, MASK, BLEND and
// per-material samplers alike (one pipeline state, one shared shading function).
TEST(GltfCasesDevice, EveryStrategyDrawsTheSameImage) {
  for (const char* name :
       {"G13_vertex_colors.gltf", "G07b_cube_mirrored.gltf", "G08b_quad_back_double_sided.gltf",
        "relatives/tex_mask_half.gltf", "relatives/front_quad_blend_half.gltf",
        "relatives/tex_wrap_mirror.gltf"}) {
    const Scene scene = load_gltf_scene(data_file(name), 1);
    const Image reference = draw(scene);
    EXPECT_GT(foreground_pixels(reference), 200u) << name;
    for (const StrategyInfo& k : strategy_catalog()) {
      if (strategy_unavailable(shared_device(), scene, k.name)) continue;
      EXPECT_LE(max_channel_difference(reference, draw(scene, std::string(k.name))), 1u)
          << name << " " << k.name;
    }
  }
}

}  // namespace
}  // namespace bindery
