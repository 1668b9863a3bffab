// SPDX-License-Identifier: MIT
// Device tests of the compute rasterizer (bindery/gpu_driven/cluster_raster.hpp) on lavapipe:
//   - what it writes into the visibility buffer, pixel by pixel, against a CPU model of the
//     rules it follows (tests/support/raster_model.hpp): coverage at pixel centres with the
//     top-left rule on triangles whose edges run through pixel centres, back faces culled, the
//     nearest of overlapping triangles, its depth; for every rung the device runs;
//   - images: --rasterizer compute against hardware on every assimp glTF2 sample, the cubes, the
//     city and a closed mesh: at most 0.1% of the pixels more than 2 levels off;
//   - compute against the per-object path (--clusters off): at 0 px of error at most 0.1% of the
//     pixels more than 2 levels off, at 1 px at most 1% more than 16 (the cluster path's bound);
//   - the rungs against each other: the same image;
//   - a closed mesh split between both rasterizers: no background inside its silhouette;
//   - bad options refused.
#include <bindery/core/device.hpp>
#include <bindery/core/gpu.hpp>
#include <bindery/gpu_driven/cluster_culling.hpp>
#include <bindery/gpu_driven/cluster_hierarchy.hpp>
#include <bindery/gpu_driven/cluster_raster.hpp>
#include <bindery/gpu_driven/culling.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/gpu_driven/mesh_pool.hpp>
#include <bindery/gpu_driven/object_table.hpp>
#include <bindery/headless/offscreen.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/device.hpp"
#include "support/images.hpp"
#include "support/cluster_scenes.hpp"
#include "support/meshes.hpp"
#include "support/raster_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

namespace bindery {
namespace {

using namespace bindery::gpu_driven;
using test::dump_on_failure;
using test::shared_device;

constexpr uint32_t kSize = 128;  // a power of two: window positions exact in float

// Clip space from world units = pixels (x right, y down), depth = world z.
glm::mat4 pixel_projection() {
  glm::mat4 m(1.0f);
  m[0] = {2.0f / kSize, 0, 0, 0};
  m[1] = {0, -2.0f / kSize, 0, 0};
  m[2] = {0, 0, 1, 0};
  m[3] = {-1, 1, 0, 1};
  return m;
}

Vertex vertex(float x, float y, float z) {
  Vertex v{};
  v.position = {x, y, z};
  v.normal = {0, 0, -1};
  return v;
}

// A 5 x 5 grid of 6-pixel quads whose corners sit on pixel centres (every edge, horizontal,
// vertical and diagonal, runs through centres), split along alternating diagonals, front-facing,
// on a bumped surface (so that the simplifier cannot flatten it).
Mesh grid_mesh() {
  Mesh m;
  m.name = "grid";
  const int n = 5;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i)
      m.vertices.push_back(vertex(10.5f + 6.0f * i, 12.5f + 6.0f * j,
                                  0.5f + 0.05f * std::sin(1.3f * i) * std::cos(0.9f * j)));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      // Counter-clockwise as seen (a top left, b top right, c bottom left): a, c, b.
      if ((i + j) % 2 == 0)
        m.indices.insert(m.indices.end(), {a, c, b, b, c, d});
      else
        m.indices.insert(m.indices.end(), {a, c, d, a, d, b});
    }
  return m;
}

// 40 triangles of both windings at distinct depths, overlapping within 36 pixels (one cluster
// small enough for compute), corners on a 1/16-pixel grid.
Mesh scattered_mesh() {
  Mesh m;
  m.name = "scattered";
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> pos(0, 20 * 16), off(-8 * 16, 8 * 16);
  for (int t = 0; t < 40; ++t) {
    const float z = 0.1f + 0.02f * float(t);
    const float x = 70.0f + pos(rng) / 16.0f, y = 70.0f + pos(rng) / 16.0f;
    const uint32_t base = uint32_t(m.vertices.size());
    m.vertices.push_back(vertex(x, y, z));
    m.vertices.push_back(vertex(x + off(rng) / 16.0f, y + off(rng) / 16.0f, z));
    m.vertices.push_back(vertex(x + off(rng) / 16.0f, y + off(rng) / 16.0f, z));
    m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
  }
  return m;
}

struct RasterFixture {
  const Device& device = shared_device();
  std::vector<Mesh> meshes{grid_mesh(), scattered_mesh()};
  MeshPool pool{device, {.label = "raster test pool"}};
  std::vector<ClusterHierarchy> hierarchies;
  ClusterGeometry geometry{device, pool};
  ObjectTable objects{device};
  IndirectDraws draws{device, objects, pool};
  Culling culling{device, objects, pool, draws, nullptr,
                  {.frustum = false, .occlusion = false, .output = CullingOutput::instance_list}};
  ClusterCulling clusters{device, objects, geometry, draws, {.lod_error_px = 0.0f}};

  RasterFixture() {
    for (const Mesh& m : meshes) {
      const MeshId id = pool.add(m);
      hierarchies.push_back(build_cluster_hierarchy(std::as_bytes(std::span(m.vertices)),
                                                    uint32_t(m.vertices.size()), sizeof(Vertex),
                                                    m.indices, {.normal_offset_bytes = 12},
                                                    m.name));
      geometry.add(id, hierarchies.back());
      objects.add(glm::mat4(1.0f), id, 0);
    }
    const uint32_t flags[1] = {0};
    clusters.set_compute_raster(3.0e38f, flags);
  }

  struct Result {
    ClusterStats stats;
    std::vector<uint32_t> words;        // the visibility buffer
    std::vector<uint32_t> raster_slots; // (object, cluster) pairs
  };

  Result run(ClusterRaster& raster) {
    ClusterView view;
    view.view_projection = pixel_projection();
    view.eye = {64.0f, 64.0f, -100.0f};
    view.pixels_per_unit = 1.0f;
    view.z_near = 0.01f;
    view.viewport = {kSize, kSize};
    auto encoder =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
    objects.flush(encoder.get());
    culling.prepare(view.view_projection);
    geometry.prepare();
    clusters.prepare(view);
    raster.prepare(kSize, kSize);
    raster.clear(encoder.get());
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder.get(), nullptr);
    culling.phase1(pass);
    clusters.begin_frame(pass);
    clusters.build(pass);
    raster.rasterize(pass);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    gpu::Buffer stats = device.create_buffer("stats", ClusterCulling::kStatsBytes,
                                             WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
    clusters.copy_stats(encoder.get(), stats.get(), 0);
    auto commands = device.finish(encoder.get(), "raster test");
    const WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
    objects.after_submit();
    Result r;
    r.stats = ClusterCulling::read_stats(
        read_back_buffer(device, stats.get(), 0, ClusterCulling::kStatsBytes).data());
    const uint64_t bytes = uint64_t(kSize) * kSize * 8;
    const std::vector<std::byte> v = read_back_buffer(device, raster.visibility_buffer(), 0, bytes);
    r.words.resize(bytes / 4);
    std::memcpy(r.words.data(), v.data(), bytes);
    if (r.stats.visible > 0) {
      const std::vector<std::byte> s = read_back_buffer(
          device, clusters.raster_clusters_buffer(), 0, uint64_t(r.stats.visible) * 8);
      r.raster_slots.resize(s.size() / 4);
      std::memcpy(r.raster_slots.data(), s.data(), s.size());
    }
    return r;
  }

  // The CPU model of every triangle the GPU was given (the clusters of its raster slots), each
  // with the id the GPU gives it (slot << 7 | triangle).
  test::RasterModel model(const Result& r) const {
    test::RasterModel m(kSize, kSize);
    const glm::mat4 vp = pixel_projection();
    for (uint32_t s = 0; s * 2 < r.raster_slots.size(); ++s) {
      const uint32_t object = r.raster_slots[2 * s], cluster = r.raster_slots[2 * s + 1];
      // Clusters are numbered in add() order: mesh 0's, then mesh 1's.
      const uint32_t first1 = uint32_t(hierarchies[0].clusters.size());
      const uint32_t mesh = cluster < first1 ? 0 : 1;
      EXPECT_EQ(object, mesh) << "object i draws mesh i";
      const ClusterHierarchy& h = hierarchies[mesh];
      const Cluster& c = h.clusters[cluster - (mesh ? first1 : 0)];
      for (uint32_t t = 0; t < c.triangle_count; ++t) {
        glm::vec4 clip[3];
        for (int k = 0; k < 3; ++k) {
          const uint32_t corner = h.triangles[c.triangle_offset + t] >> (8 * k) & 0xffu;
          const uint32_t v = h.vertices[c.vertex_offset + corner];
          clip[k] = vp * glm::vec4(meshes[mesh].vertices[v].position, 1.0f);
        }
        m.draw(clip[0], clip[1], clip[2], s << 7 | t);
      }
    }
    return m;
  }
};

// Every pixel of the visibility buffer against the model: the same coverage, the same triangle,
// the same depth (within float rounding of the interpolation).
void expect_matches_model(RasterFixture& f, RasterRung rung) {
  ClusterRaster raster(f.device, f.objects, f.geometry, f.clusters, {.rung = rung});
  const RasterFixture::Result r = f.run(raster);
  ASSERT_EQ(r.stats.dropped, 0u);
  ASSERT_EQ(r.stats.triangles_submitted, 0u) << "every cluster is small: all go to compute";
  ASSERT_GT(r.stats.triangles_rasterized, 50u);
  const test::RasterModel m = f.model(r);
  const uint32_t n = kSize * kSize;
  uint64_t covered = 0, mismatched = 0;
  for (uint32_t p = 0; p < n; ++p) {
    const bool wide = rung == RasterRung::int64_atomic_max;
    const uint32_t key = wide ? r.words[2 * p + 1] : r.words[p];
    const uint32_t id = wide ? r.words[2 * p] : r.words[n + p];
    const test::RasterPixel& e = m.pixels[p];
    const bool gpu_covered = key != 0;
    covered += e.covered ? 1 : 0;
    bool same = gpu_covered == e.covered;
    if (same && e.covered) {
      float depth;
      const uint32_t bits = 0xffffffffu - key;
      std::memcpy(&depth, &bits, 4);
      same = id == e.triangle && std::abs(double(depth) - e.depth) <= 1e-6;
    }
    if (!same && ++mismatched <= 10)
      ADD_FAILURE() << to_string(rung) << ": pixel (" << p % kSize << ", " << p / kSize
                    << "): gpu " << (gpu_covered ? "covered" : "empty") << " id " << id
                    << ", model " << (e.covered ? "covered" : "empty") << " id " << e.triangle;
  }
  EXPECT_EQ(mismatched, 0u) << to_string(rung);
  // The grid's 30 x 30 pixels of centres are covered, each once (the model counts a pixel
  // once; a crack or a doubly covered edge would differ from it above).
  EXPECT_GT(covered, 900u);
}

TEST(ClusterRaster, VisibilityBufferMatchesTheCpuModelOnEveryRung) {
  RasterFixture f;
  for (RasterRung rung : {RasterRung::int64_atomic_max, RasterRung::core}) {
    if (std::optional<std::string> why = raster_rung_unavailable(f.device, rung)) {
      EXPECT_EQ(rung, RasterRung::int64_atomic_max) << *why;
      EXPECT_EQ(f.device.adapter().implementation, "dawn") << "lavapipe on wgpu-native has it";
      continue;
    }
    expect_matches_model(f, rung);
  }
}

TEST(ClusterRaster, TheModelCoversAbuttingTrianglesOnce) {
  // The fill rule alone, on the CPU: a fan of 8 triangles around a pixel centre, every edge
  // through centres, covers each pixel of its square once.
  test::RasterModel once(16, 16);
  const glm::mat4 vp = [] {
    glm::mat4 m(1.0f);
    m[0] = {2.0f / 16, 0, 0, 0};
    m[1] = {0, -2.0f / 16, 0, 0};
    m[3] = {-1, 1, 0, 1};
    return m;
  }();
  const glm::vec2 c{8.5f, 8.5f};
  const glm::vec2 ring[8] = {{2.5f, 2.5f}, {8.5f, 2.5f}, {14.5f, 2.5f}, {14.5f, 8.5f},
                             {14.5f, 14.5f}, {8.5f, 14.5f}, {2.5f, 14.5f}, {2.5f, 8.5f}};
  std::vector<int> hits(256, 0);
  for (int t = 0; t < 8; ++t) {
    test::RasterModel one(16, 16);
    const glm::vec2 a = ring[t], b = ring[(t + 1) % 8];
    // The ring goes clockwise as seen: centre, b, a is counter-clockwise, front-facing.
    one.draw(vp * glm::vec4(c, 0.5f, 1), vp * glm::vec4(b, 0.5f, 1), vp * glm::vec4(a, 0.5f, 1),
             uint32_t(t));
    for (int p = 0; p < 256; ++p) hits[p] += one.pixels[p].covered ? 1 : 0;
  }
  // The square's centres from (3, 3) to (14, 14) exclusive of the far edges: x, y in 2..13
  // are inside or on its top/left edges: 12 x 12 pixels, each hit once; none outside.
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) {
      const bool inside = x >= 2 && x <= 13 && y >= 2 && y <= 13;
      EXPECT_EQ(hits[y * 16 + x], inside ? 1 : 0) << x << ", " << y;
    }
}

using test::background;
using test::closed_mesh_scene;

RenderOptions with_rasterizer(const std::string& rasterizer, uint32_t w, uint32_t h,
                              const std::string& rung = "") {
  RenderOptions o;
  o.strategy = "gpu-driven";
  o.width = w;
  o.height = h;
  o.frames = 3;
  o.time_s = 2.0f;
  o.clusters = "on";
  o.lod_error_px = 1.0f;
  o.rasterizer = rasterizer;
  o.raster_rung = rung;
  return o;
}

// At most 0.1% of the pixels more than 2 levels off (the bound); returns the compute
// run's triangles rasterized in compute.
uint32_t expect_compute_like_hardware(const Scene& scene, const std::string& name, uint32_t w,
                                      uint32_t h) {
  const RenderReport hw = render(shared_device(), scene, with_rasterizer("hardware", w, h));
  const RenderReport cs = render(shared_device(), scene, with_rasterizer("compute", w, h));
  EXPECT_TRUE(hw.last_frame && cs.last_frame) << name;
  if (!hw.last_frame || !cs.last_frame) return 0;
  EXPECT_LE(count_differing_pixels(*hw.last_frame, *cs.last_frame, 2), uint64_t(w) * h / 1000)
      << name;
  dump_on_failure("raster_" + name, *hw.last_frame, *cs.last_frame);
  const CullingCounts a = *hw.frames.back().culling, b = *cs.frames.back().culling;
  EXPECT_EQ(a.triangles_rasterized, 0u) << name;
  // The same cut: every triangle goes to one of the two.
  EXPECT_EQ(a.triangles_submitted, b.triangles_submitted + b.triangles_rasterized) << name;
  return b.triangles_rasterized;
}


TEST(ClusterRaster, ComputeDrawsWhatHardwareDrawsOnTheCubesTheCityAndAClosedMesh) {
  EXPECT_GT(expect_compute_like_hardware(make_cube_scene({.objects = 2'000, .seed = 3}), "cubes",
                                         160, 120),
            0u);
  CitySceneOptions city;
  city.objects = 3'000;
  city.meshes = 60;
  EXPECT_GT(expect_compute_like_hardware(make_city_scene(city), "city", 160, 120), 0u);
  EXPECT_GT(expect_compute_like_hardware(closed_mesh_scene(7), "sphere", 200, 150), 0u);
}

TEST(ClusterRaster, ComputeDrawsWhatHardwareDrawsOnEveryGltfSample) {
  if (!std::filesystem::exists(test::kGltfSampleFolder))
    GTEST_SKIP() << "assimp-testmodels not installed";
  int compared = 0;
  uint64_t rasterized = 0;
  for (const std::string& path : test::gltf_sample_models()) {
    Scene scene;
    try {
      scene = load_gltf_scene(path, 1);
    } catch (const Error&) {
      continue;  // the refused ones (gltf_sample_models_device_test checks how)
    }
    rasterized += expect_compute_like_hardware(scene, std::filesystem::path(path).stem().string(),
                                               96, 96);
    ++compared;
  }
  EXPECT_GE(compared, 20);
  EXPECT_GT(rasterized, 0u);
}

// The compute rasterizer against the per-object path (--clusters off: every object's whole mesh
// through the hardware): at 0 px of error the same triangles, so at most 0.1% of the pixels more
// than 2 levels off; at 1 px within the cluster path's bound of full detail, at most 1% more than
// 16 levels off (cluster_device_test.cpp's bound for the hardware rasterizer).
void expect_compute_against_per_object(const Scene& scene, const std::string& name, uint32_t w,
                                       uint32_t h, float tau) {
  RenderOptions per_object = with_rasterizer("hardware", w, h);
  per_object.clusters = "off";
  per_object.rasterizer = "auto";
  RenderOptions compute = with_rasterizer("compute", w, h);
  compute.lod_error_px = tau;
  const RenderReport full = render(shared_device(), scene, per_object);
  const RenderReport cs = render(shared_device(), scene, compute);
  ASSERT_TRUE(full.last_frame && cs.last_frame) << name;
  ASSERT_GT(cs.frames.back().culling->triangles_rasterized, 0u) << name;
  if (tau == 0.0f)
    EXPECT_LE(count_differing_pixels(*full.last_frame, *cs.last_frame, 2), uint64_t(w) * h / 1000)
        << name;
  else
    EXPECT_LE(count_differing_pixels(*full.last_frame, *cs.last_frame, 16), uint64_t(w) * h / 100)
        << name;
  dump_on_failure("raster_per_object_" + name, *full.last_frame, *cs.last_frame);
}

TEST(ClusterRaster, AtZeroErrorComputeDrawsWhatThePerObjectPathDraws) {
  expect_compute_against_per_object(make_cube_scene({.objects = 2'000, .seed = 3}), "cubes", 160,
                                    120, 0.0f);
  CitySceneOptions city;
  city.objects = 3'000;
  city.meshes = 60;
  expect_compute_against_per_object(make_city_scene(city), "city", 160, 120, 0.0f);
  expect_compute_against_per_object(closed_mesh_scene(6), "sphere", 200, 150, 0.0f);
}

TEST(ClusterRaster, AtOnePixelComputeStaysWithinTheBoundOfFullDetail) {
  expect_compute_against_per_object(closed_mesh_scene(7), "sphere_tau1", 200, 150, 1.0f);
  CitySceneOptions city;
  city.objects = 3'000;
  city.meshes = 60;
  expect_compute_against_per_object(make_city_scene(city), "city_tau1", 480, 360, 1.0f);
}

TEST(ClusterRaster, EveryRungGivesTheSameImage) {
  const Device& device = shared_device();
  if (raster_rung_unavailable(device, RasterRung::int64_atomic_max))
    GTEST_SKIP() << "one rung only here (core)";
  const Scene scene = closed_mesh_scene(6);
  const RenderReport wide =
      render(device, scene, with_rasterizer("compute", 200, 150, "int64-atomic-max"));
  const RenderReport core = render(device, scene, with_rasterizer("compute", 200, 150, "core"));
  ASSERT_TRUE(wide.last_frame && core.last_frame);
  EXPECT_EQ(count_differing_pixels(*wide.last_frame, *core.last_frame, 0), 0u);
  dump_on_failure("raster_rungs", *wide.last_frame, *core.last_frame);
}


TEST(ClusterRaster, AClosedMeshSplitBetweenBothRasterizersShowsNoSeam) {
  const Scene scene = closed_mesh_scene(7);
  const uint32_t w = 200, h = 150;
  const RenderReport hw = render(shared_device(), scene, with_rasterizer("hardware", w, h));
  const RenderReport split = render(shared_device(), scene, with_rasterizer("auto", w, h));
  ASSERT_TRUE(hw.last_frame && split.last_frame);
  const CullingCounts c = *split.frames.back().culling;
  ASSERT_GT(c.triangles_submitted, 0u) << "some clusters on hardware";
  ASSERT_GT(c.triangles_rasterized, 0u) << "some clusters in compute";
  // Same cut, so the same silhouette: a pixel the hardware covers with all 8 neighbours covered
  // must be covered by the split as well (a seam between a compute cluster and a hardware one
  // shows the background there).
  uint64_t inside = 0, holes = 0;
  for (uint32_t y = 1; y + 1 < h; ++y)
    for (uint32_t x = 1; x + 1 < w; ++x) {
      bool deep = true;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          deep = deep && !background(*hw.last_frame, x + dx, y + dy);
      if (!deep) continue;
      ++inside;
      holes += background(*split.last_frame, x, y) ? 1 : 0;
    }
  EXPECT_GT(inside, uint64_t(w) * h / 4);
  EXPECT_EQ(holes, 0u);
  EXPECT_LE(count_differing_pixels(*hw.last_frame, *split.last_frame, 2), uint64_t(w) * h / 1000);
  dump_on_failure("raster_split", *hw.last_frame, *split.last_frame);
}

TEST(ClusterRaster, TheVisibilityBufferFitsTheStorageBindingOrIsRefused) {
  // 8 bytes a pixel against min(maxStorageBufferBindingSize, maxBufferSize), worked out here.
  const Device& device = shared_device();
  const uint64_t most = std::min<uint64_t>(device.limits().maxStorageBufferBindingSize,
                                           device.limits().maxBufferSize);
  const uint32_t width = 1024;
  const uint32_t rows = uint32_t(std::min<uint64_t>(most / 8 / width, 1u << 20));
  EXPECT_FALSE(raster_target_unavailable(device, width, rows));
  if (uint64_t(width) * (rows + 1) * 8 > most) {
    const std::optional<std::string> why = raster_target_unavailable(device, width, rows + 1);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("maxStorageBufferBindingSize"), std::string::npos) << *why;
  }
  EXPECT_FALSE(raster_target_unavailable(device, 1, 1));
}

TEST(ClusterRaster, RefusesUnknownRasterizersAndRungs) {
  const Scene scene = make_cube_scene({.objects = 10, .seed = 2});
  for (const auto& [rasterizer, rung] : {std::pair<std::string, std::string>{"software", ""},
                                         {"compute", "int128"}}) {
    try {
      render(shared_device(), scene, with_rasterizer(rasterizer, 32, 32, rung));
      ADD_FAILURE() << rasterizer << " " << rung;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
    }
  }
  EXPECT_EQ(parse_raster_rung("core"), RasterRung::core);
  EXPECT_EQ(parse_raster_rung("int64-atomic-max"), RasterRung::int64_atomic_max);
  EXPECT_FALSE(parse_raster_rung("Core"));
}

}  // namespace
}  // namespace bindery
