// SPDX-License-Identifier: MIT
// RenderOptions::debug_colors on lavapipe, on both rasterizers (the hardware cluster draw and the
// compute rasterizer's resolve): "levels" at pixel error 0 paints every covered pixel level 0's
// legend colour; at a large error on the closed high-polygon mesh, more than one level's colour
// shows and every covered pixel is a legend colour of a level its hierarchy has; "clusters" gives
// at least as many colours as the covered pixels need clusters (each cluster's pixels bounded from
// the mesh's own triangles) and at most as many as clusters were drawn; another value than
// "normal" off the cluster path is refused. The legend below is README's table, written out here.
#include <bindery/core/error.hpp>
#include <bindery/gpu_driven/cluster_hierarchy.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/cluster_scenes.hpp"
#include "support/device.hpp"
#include "support/images.hpp"

#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>

namespace bindery {
namespace {

using test::background;
using test::closed_mesh_scene;
using test::shared_device;

// README, "--debug-colors": level l is drawn in entry min(l, 15); level 0 is full detail.
constexpr std::array<std::array<uint8_t, 3>, 16> kLegend = {{{230, 25, 75},
                                                             {60, 180, 75},
                                                             {255, 225, 25},
                                                             {0, 130, 200},
                                                             {245, 130, 48},
                                                             {145, 30, 180},
                                                             {70, 240, 240},
                                                             {240, 50, 230},
                                                             {210, 245, 60},
                                                             {250, 190, 212},
                                                             {0, 128, 128},
                                                             {220, 190, 255},
                                                             {170, 110, 40},
                                                             {128, 0, 0},
                                                             {0, 0, 128},
                                                             {255, 255, 255}}};

// The largest number of triangles in a cluster (ClusterBuildDesc::max_triangles' default, which
// the strategy builds with; the compute rasterizer's 7-bit triangle ids hold no more).
constexpr uint64_t kClusterTriangles = 128;

RenderOptions debug(const std::string& colors, float tau, const std::string& rasterizer,
                    uint32_t width, uint32_t height) {
  RenderOptions o;
  o.strategy = "gpu-driven";
  o.clusters = "on";
  o.width = width;
  o.height = height;
  o.frames = 2;
  o.time_s = 2.0f;
  o.lod_error_px = tau;
  o.rasterizer = rasterizer;
  o.debug_colors = colors;
  // One phase: every cluster drawn is counted once in the frame's visible clusters.
  o.occlusion = false;
  return o;
}

const uint8_t* pixel(const Image& image, uint32_t x, uint32_t y) {
  return &image.rgba[(size_t(y) * image.width + x) * 4];
}

// The legend entry `p` is exactly, or -1.
int legend_entry(const uint8_t* p) {
  for (size_t i = 0; i < kLegend.size(); ++i)
    if (p[0] == kLegend[i][0] && p[1] == kLegend[i][1] && p[2] == kLegend[i][2]) return int(i);
  return -1;
}

// The legend entries of the covered pixels (-1 for a pixel that is none), and how many.
struct LevelCount {
  std::set<int> entries;
  uint64_t covered = 0;
};

LevelCount count_levels(const Image& image) {
  LevelCount c;
  for (uint32_t y = 0; y < image.height; ++y)
    for (uint32_t x = 0; x < image.width; ++x) {
      if (background(image, x, y)) continue;
      ++c.covered;
      c.entries.insert(legend_entry(pixel(image, x, y)));
    }
  return c;
}

// The levels of the closed mesh's hierarchy, as the strategy builds it.
size_t hierarchy_levels(const Scene& scene) {
  const Mesh& m = scene.meshes.at(0);
  const gpu_driven::ClusterHierarchy h = gpu_driven::build_cluster_hierarchy(
      std::as_bytes(std::span(m.vertices)), uint32_t(m.vertices.size()), sizeof(Vertex),
      m.indices, gpu_driven::ClusterBuildDesc{.normal_offset_bytes = 12});
  return h.levels.size();
}

TEST(ClusterDebugColors, LevelsAtPixelErrorZeroAreLevelZerosColourOnBothRasterizers) {
  EXPECT_EQ(kDebugLevelColors, kLegend) << "renderer.hpp's legend is not README's";
  const Scene scene = closed_mesh_scene(6);
  for (const std::string rasterizer : {"hardware", "compute"}) {
    SCOPED_TRACE(rasterizer);
    const RenderReport r = render(shared_device(), scene, debug("levels", 0.0f, rasterizer, 200, 150));
    ASSERT_TRUE(r.last_frame);
    if (rasterizer == "compute") {
      ASSERT_TRUE(r.frames.back().culling);
      EXPECT_GT(r.frames.back().culling->triangles_rasterized, 0u) << "the resolve drew nothing";
    }
    const LevelCount c = count_levels(*r.last_frame);
    // The sphere fills about a third of the view.
    EXPECT_GT(c.covered, uint64_t(200) * 150 / 5);
    EXPECT_EQ(c.entries, std::set<int>{0});
  }
}

TEST(ClusterDebugColors, LevelsAtALargeErrorShowSeveralLevelsAllFromTheLegend) {
  const Scene scene = closed_mesh_scene(7);  // 327,680 triangles
  const size_t levels = hierarchy_levels(scene);
  ASSERT_GE(levels, 3u);
  for (const std::string rasterizer : {"hardware", "compute"}) {
    SCOPED_TRACE(rasterizer);
    const RenderReport r =
        render(shared_device(), scene, debug("levels", 16.0f, rasterizer, 200, 150));
    ASSERT_TRUE(r.last_frame);
    const LevelCount c = count_levels(*r.last_frame);
    EXPECT_GT(c.covered, uint64_t(200) * 150 / 5);
    EXPECT_EQ(c.entries.count(-1), 0u) << "a covered pixel is no legend colour";
    EXPECT_GE(c.entries.size(), 2u) << "one level only";
    EXPECT_EQ(c.entries.count(0), 0u) << "full detail at 16 px";
    for (int e : c.entries) EXPECT_LT(size_t(e), std::min<size_t>(levels, kLegend.size())) << e;
  }
}

// The most pixel centres one triangle of `scene`'s mesh can cover in the view: its screen bounding
// box's, over the triangles in front of the camera.
uint64_t most_pixels_per_triangle(const Scene& scene, uint32_t width, uint32_t height) {
  const Mesh& m = scene.meshes.at(0);
  const glm::mat4 vp = scene.view.view_projection(float(width) / float(height));
  uint64_t most = 0;
  for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    glm::vec2 lo(1e30f), hi(-1e30f);
    bool in_front = true;
    for (int k = 0; k < 3; ++k) {
      const glm::vec4 clip = vp * glm::vec4(m.vertices[m.indices[t + k]].position, 1.0f);
      if (clip.w <= 0.0f) in_front = false;
      const glm::vec2 ndc = glm::vec2(clip) / clip.w;
      const glm::vec2 px((ndc.x * 0.5f + 0.5f) * width, (0.5f - ndc.y * 0.5f) * height);
      lo = glm::min(lo, px);
      hi = glm::max(hi, px);
    }
    if (!in_front) continue;
    // Pixel centres x + 0.5 inside [lo, hi]: at most floor(hi - lo) + 1 per axis.
    const uint64_t nx = uint64_t(std::floor(hi.x - lo.x)) + 1;
    const uint64_t ny = uint64_t(std::floor(hi.y - lo.y)) + 1;
    most = std::max(most, nx * ny);
  }
  return most;
}

TEST(ClusterDebugColors, ClustersGiveAsManyColoursAsTheCoveredPixelsNeedAndNoMoreThanDrawn) {
  const Scene scene = closed_mesh_scene(6);
  const uint32_t w = 200, h = 150;
  // At pixel error 0 every cluster drawn is one of level 0, of at most kClusterTriangles
  // triangles: it covers at most that many times the most pixels a triangle covers.
  const uint64_t per_cluster = kClusterTriangles * most_pixels_per_triangle(scene, w, h);
  for (const std::string rasterizer : {"hardware", "compute"}) {
    SCOPED_TRACE(rasterizer);
    const RenderReport r = render(shared_device(), scene, debug("clusters", 0.0f, rasterizer, w, h));
    ASSERT_TRUE(r.last_frame);
    const Image& image = *r.last_frame;
    std::set<uint32_t> colours;
    uint64_t covered = 0;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        if (background(image, x, y)) continue;
        ++covered;
        const uint8_t* p = pixel(image, x, y);
        // Every channel of a cluster's colour is in 96..255 (RenderOptions::debug_colors).
        EXPECT_TRUE(p[0] >= 96 && p[1] >= 96 && p[2] >= 96)
            << x << "," << y << ": " << int(p[0]) << " " << int(p[1]) << " " << int(p[2]);
        colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
      }
    ASSERT_GT(covered, uint64_t(w) * h / 5);
    const uint64_t least = (covered + per_cluster - 1) / per_cluster;
    EXPECT_GE(colours.size(), std::max<uint64_t>(least, 2)) << covered << " pixels, at most "
                                                           << per_cluster << " a cluster";
    ASSERT_TRUE(r.frames.back().culling);
    EXPECT_LE(colours.size(), r.frames.back().culling->clusters_visible);
  }
}

TEST(ClusterDebugColors, OffTheClusterPathAnotherValueThanNormalIsRefused) {
  const Scene scene = make_cube_scene({.objects = 20, .seed = 1});
  RenderOptions naive = debug("levels", 1.0f, "auto", 32, 24);
  naive.strategy = "naive";
  RenderOptions off = debug("clusters", 1.0f, "auto", 32, 24);
  off.clusters = "off";
  RenderOptions chose_objects = debug("levels", 1.0f, "auto", 32, 24);
  chose_objects.clusters = "auto";  // 20 cubes: far below auto's threshold
  RenderOptions unknown = debug("rainbow", 1.0f, "auto", 32, 24);
  for (const RenderOptions* o : {&naive, &off, &chose_objects, &unknown}) {
    SCOPED_TRACE(o->strategy + " clusters " + o->clusters + " " + o->debug_colors);
    try {
      render(shared_device(), scene, *o);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("RenderOptions::debug_colors = "), std::string::npos)
          << e.what();
    }
  }
  // "normal" is every path's.
  RenderOptions normal = naive;
  normal.debug_colors = "normal";
  EXPECT_NO_THROW(render(shared_device(), scene, normal));
}

// cluster_tuning changes the colouring and the pixel error from one frame to the next: the last
// frame is drawn with what it left.
TEST(ClusterDebugColors, ClusterTuningChangesThemPerFrame) {
  const Scene scene = closed_mesh_scene(6);
  RenderOptions o = debug("normal", 1.0f, "hardware", 160, 120);
  o.frames = 3;
  uint32_t calls = 0;
  o.cluster_tuning = [&](uint32_t frame, ClusterTuning& t) {
    ++calls;
    EXPECT_EQ(t.lod_error_px, 1.0f);
    EXPECT_EQ(t.debug_colors, "normal");
    if (frame == 2) {
      t.lod_error_px = 0.0f;
      t.debug_colors = "levels";
    }
  };
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(calls, 3u);
  ASSERT_TRUE(r.last_frame);
  const LevelCount c = count_levels(*r.last_frame);
  EXPECT_GT(c.covered, uint64_t(160) * 120 / 5);
  EXPECT_EQ(c.entries, std::set<int>{0});
  // Not called without the cluster path.
  o.clusters = "off";
  o.cluster_tuning = [&](uint32_t, ClusterTuning&) { ADD_FAILURE() << "called off the path"; };
  render(shared_device(), scene, o);
}

}  // namespace
}  // namespace bindery
