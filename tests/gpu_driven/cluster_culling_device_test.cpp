// SPDX-License-Identifier: MIT
// The GPU's cluster selection (bindery/gpu_driven/cluster_culling.hpp) against the CPU model of
// the cut (cluster_hierarchy.hpp's select_cut()): 20 instances of a bumped sphere, scaled,
// rotated and moved, seen from 50 cameras, select the same (instance, cluster) set on the GPU as
// on the CPU; only clusters whose projected error lies within 0.1% of tau (where float
// arithmetic on the two sides may round either way) may differ. Then, with frustum culling per
// cluster, the GPU's set is the CPU's cut minus clusters whose spheres lie outside the frustum.
#include <bindery/core/device.hpp>
#include <bindery/core/gpu.hpp>
#include <bindery/gpu_driven/cluster_culling.hpp>
#include <bindery/gpu_driven/cluster_hierarchy.hpp>
#include <bindery/gpu_driven/culling.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/gpu_driven/mesh_pool.hpp>
#include <bindery/gpu_driven/object_table.hpp>
#include <bindery/headless/offscreen.hpp>

#include "support/device.hpp"
#include "support/meshes.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>

namespace bindery {
namespace {

using namespace bindery::gpu_driven;

using test::shared_device;
// test::icosphere(5), bumped: 20,480 triangles, closed.
Mesh bumped_sphere() {
  return test::mesh_of(test::icosphere(5), [](glm::vec3 v) {
    return 1.0f + 0.1f * std::sin(7.0f * v.x) * std::sin(5.0f * v.z);
  });
}

// Whether the world-space sphere is at least partly inside the view-projection's six planes
// (WebGPU clip space), as the cluster stage tests it.
bool sphere_in_frustum(const glm::mat4& m, glm::vec3 c, float r) {
  auto row = [&](int i) { return glm::vec4(m[0][i], m[1][i], m[2][i], m[3][i]); };
  const glm::vec4 planes[6] = {row(3) + row(0), row(3) - row(0), row(3) + row(1),
                               row(3) - row(1), row(2),          row(3) - row(2)};
  for (const glm::vec4& p : planes)
    if (glm::dot(glm::vec3(p), c) + p.w < -r * glm::length(glm::vec3(p))) return false;
  return true;
}

struct Fixture {
  const Device& device = shared_device();
  Mesh mesh = bumped_sphere();
  MeshPool pool{device, {.label = "test pool"}};
  MeshId id = pool.add(mesh);
  ClusterHierarchy h = build_cluster_hierarchy(
      std::as_bytes(std::span(mesh.vertices)), uint32_t(mesh.vertices.size()), sizeof(Vertex),
      mesh.indices, {.normal_offset_bytes = 12}, mesh.name);
  ClusterGeometry geometry{device, pool};
  ObjectTable objects{device};
  std::vector<glm::mat4> worlds;
  IndirectDraws draws{device, objects, pool};
  Culling culling{device, objects, pool, draws, nullptr,
                  {.frustum = false, .occlusion = false, .output = CullingOutput::instance_list}};
  std::unique_ptr<ClusterCulling> clusters;

  // `similarities`: uniform scales, every third instance mirrored (what the cone test takes);
  // otherwise scaled unevenly (which turns the cone test off).
  explicit Fixture(bool frustum, bool cone = false, bool similarities = false) {
    geometry.add(id, h);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (uint32_t i = 0; i < 20; ++i) {
      glm::mat4 w = glm::translate(glm::mat4(1.0f), glm::vec3(u(rng), u(rng), u(rng)) * 12.0f);
      w = glm::rotate(w, u(rng) * 3.0f, glm::normalize(glm::vec3(u(rng), u(rng), 1.0f)));
      if (similarities) {
        const float s = 1.0f + 0.5f * u(rng);
        w = glm::scale(w, glm::vec3(i % 3 == 0 ? -s : s, s, s));
      } else {
        w = glm::scale(w, glm::vec3(1.0f + 0.5f * u(rng), 1.0f, 1.0f + 0.3f * u(rng)) *
                              (1.0f + 0.5f * u(rng)));
      }
      worlds.push_back(w);
      objects.add(w, id, 0);
    }
    clusters = std::make_unique<ClusterCulling>(
        device, objects, geometry, draws,
        ClusterCullingDesc{.lod_error_px = 1.0f, .frustum = frustum, .cone = cone});
  }

  // The GPU's (object, cluster) pairs for `view`.
  std::set<std::pair<uint32_t, uint32_t>> gpu_cut(const ClusterView& view) {
    auto encoder =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
    objects.flush(encoder.get());
    culling.prepare(view.view_projection);
    geometry.prepare();
    clusters->prepare(view);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder.get(), nullptr);
    culling.phase1(pass);
    clusters->begin_frame(pass);
    clusters->build(pass);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    auto commands = device.finish(encoder.get(), "cluster test");
    const WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
    objects.after_submit();
    auto stats_encoder =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
    gpu::Buffer stats = device.create_buffer("stats", ClusterCulling::kStatsBytes,
                                             WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
    clusters->copy_stats(stats_encoder.get(), stats.get(), 0);
    auto stats_commands = device.finish(stats_encoder.get(), "cluster stats");
    const WGPUCommandBuffer raw_stats = stats_commands.get();
    device.submit({&raw_stats, 1});
    const ClusterStats s = ClusterCulling::read_stats(
        read_back_buffer(device, stats.get(), 0, ClusterCulling::kStatsBytes).data());
    EXPECT_EQ(s.dropped, 0u);
    std::set<std::pair<uint32_t, uint32_t>> out;
    if (s.visible == 0) return out;
    const std::vector<std::byte> bytes =
        read_back_buffer(device, clusters->visible_clusters_buffer(), 0, uint64_t(s.visible) * 16);
    for (uint32_t i = 0; i < s.visible; ++i) {
      uint32_t slot[4];
      std::memcpy(slot, bytes.data() + 16ull * i, 16);
      EXPECT_TRUE(out.insert({slot[0], slot[1]}).second) << "a cluster listed twice";
    }
    return out;
  }
};

struct Camera {
  ClusterView view;
  LodView lod;
};

Camera camera(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const glm::vec3 dir = glm::normalize(glm::vec3(u(rng), u(rng) * 0.5f, u(rng)) + glm::vec3(1e-3f));
  const glm::vec3 eye = dir * (4.0f + 200.0f * (u(rng) + 1.0f) * (u(rng) + 1.0f) / 4.0f);
  const float fov = glm::radians(60.0f), z_near = 0.1f, height = 480.0f;
  Camera c;
  c.view.view_projection = glm::perspectiveRH_ZO(fov, 4.0f / 3.0f, z_near, 2000.0f) *
                           glm::lookAtRH(eye, glm::vec3(0.0f), glm::vec3(0, 1, 0));
  c.view.eye = eye;
  c.view.pixels_per_unit = height * 0.5f / std::tan(fov * 0.5f);
  c.view.z_near = z_near;
  c.lod = LodView{eye, c.view.pixels_per_unit, z_near, 1.0f};
  return c;
}

// Whether cluster c of an instance at `world` sits so near the cut's boundary (its self or its
// parent error within 0.1% of tau) that float arithmetic may put it on either side.
bool ambiguous(const Cluster& c, const glm::mat4& world, const LodView& v) {
  const float a = projected_error(c.self, world, v), b = projected_error(c.parent, world, v);
  return std::abs(a - v.tau) <= 1e-3f * v.tau || std::abs(b - v.tau) <= 1e-3f * v.tau;
}

TEST(ClusterCulling, GpuSelectsTheCutTheCpuModelSelectsFor50Cameras) {
  Fixture f(/*frustum=*/false);
  std::mt19937 rng(5);
  size_t compared = 0, ambiguous_seen = 0;
  std::set<uint32_t> levels;
  for (int k = 0; k < 50; ++k) {
    const Camera cam = camera(rng);
    const std::set<std::pair<uint32_t, uint32_t>> gpu = f.gpu_cut(cam.view);
    std::set<std::pair<uint32_t, uint32_t>> cpu;
    for (uint32_t i = 0; i < f.worlds.size(); ++i)
      for (uint32_t c : select_cut(f.h, f.worlds[i], cam.lod)) {
        cpu.insert({i, c});
        levels.insert(f.h.clusters[c].level);
      }
    for (const auto& p : cpu)
      if (!gpu.count(p)) {
        const bool a = ambiguous(f.h.clusters[p.second], f.worlds[p.first], cam.lod);
        ambiguous_seen += a;
        EXPECT_TRUE(a) << "camera " << k << ": the CPU's (" << p.first << ", " << p.second
                       << ") is not on the GPU";
      }
    for (const auto& p : gpu)
      if (!cpu.count(p)) {
        const bool a = ambiguous(f.h.clusters[p.second], f.worlds[p.first], cam.lod);
        ambiguous_seen += a;
        EXPECT_TRUE(a) << "camera " << k << ": the GPU's (" << p.first << ", " << p.second
                       << ") is not in the CPU's cut";
      }
    compared += cpu.size();
  }
  EXPECT_GT(compared, 2000u);
  EXPECT_GE(levels.size(), 4u) << "the cameras reach several levels";
  EXPECT_LE(ambiguous_seen, compared / 100);
}

// The frame protocol: ClusterCulling::prepare() before the geometry uploaded what add() took is
// one FrameProtocol error (it was a panic inside wgpu-native's bind group creation).
TEST(ClusterCulling, PrepareBeforeTheGeometryUploadedIsAFrameProtocolError) {
  Fixture f(/*frustum=*/true);
  ClusterView view;
  try {
    f.clusters->prepare(view);
    ADD_FAILURE() << "prepare() before ClusterGeometry::prepare() was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::FrameProtocol) << e.what();
  }
  f.geometry.prepare();
  EXPECT_NO_THROW(f.clusters->prepare(view));
}

TEST(ClusterCulling, FrustumCullingRemovesOnlyClustersOutsideTheFrustum) {
  Fixture f(/*frustum=*/true);
  std::mt19937 rng(8);
  size_t culled = 0;
  for (int k = 0; k < 20; ++k) {
    const Camera cam = camera(rng);
    const std::set<std::pair<uint32_t, uint32_t>> gpu = f.gpu_cut(cam.view);
    for (uint32_t i = 0; i < f.worlds.size(); ++i) {
      const glm::mat4& w = f.worlds[i];
      const float s = std::sqrt(std::max({glm::dot(glm::vec3(w[0]), glm::vec3(w[0])),
                                          glm::dot(glm::vec3(w[1]), glm::vec3(w[1])),
                                          glm::dot(glm::vec3(w[2]), glm::vec3(w[2]))}));
      for (uint32_t c : select_cut(f.h, w, cam.lod)) {
        const Cluster& cl = f.h.clusters[c];
        const glm::vec3 center = glm::vec3(w * glm::vec4(glm::vec3(cl.sphere), 1.0f));
        const bool inside = sphere_in_frustum(cam.view.view_projection, center, cl.sphere.w * s);
        if (ambiguous(cl, w, cam.lod)) continue;
        // A sphere well inside or well outside: the GPU agrees (1% of the radius either way).
        const bool surely_in =
            sphere_in_frustum(cam.view.view_projection, center, cl.sphere.w * s * 0.99f);
        const bool surely_out =
            !sphere_in_frustum(cam.view.view_projection, center, cl.sphere.w * s * 1.01f);
        if (surely_in) EXPECT_TRUE(gpu.count({i, c})) << "camera " << k;
        if (surely_out) EXPECT_FALSE(gpu.count({i, c})) << "camera " << k;
        culled += inside ? 0 : 1;
      }
    }
  }
  EXPECT_GT(culled, 50u) << "the cameras leave clusters outside";
}

// The cone test against the triangles themselves: where cluster_faces_away() says a cluster of
// an instance faces away from the eye, every one of its triangles does (the winding normal of its
// world-space corners points away from the eye); the GPU drops exactly those clusters of the cut
// (but for ones within 1e-4 of the cone's edge, where float arithmetic may round either way);
// a mirrored instance loses none.
TEST(ClusterCulling, ConeCullingRemovesOnlyClustersFacingAway) {
  Fixture f(/*frustum=*/false, /*cone=*/true, /*similarities=*/true);
  std::mt19937 rng(13);
  size_t compared = 0, culled = 0, mirrored_culled = 0;
  for (int k = 0; k < 30; ++k) {
    const Camera cam = camera(rng);
    const glm::vec3 eye = cam.view.eye;
    const std::set<std::pair<uint32_t, uint32_t>> gpu = f.gpu_cut(cam.view);
    for (uint32_t i = 0; i < f.worlds.size(); ++i) {
      const glm::mat4& w = f.worlds[i];
      for (uint32_t c : select_cut(f.h, w, cam.lod)) {
        const Cluster& cl = f.h.clusters[c];
        if (ambiguous(cl, w, cam.lod)) continue;
        const bool away = cluster_faces_away(cl, w, eye);
        if (away) {
          for (uint32_t t = 0; t < cl.triangle_count; ++t) {
            const glm::uvec3 k3 = f.h.corners(cl, t);
            glm::vec3 p[3];
            for (int j = 0; j < 3; ++j)
              p[j] = glm::vec3(w * glm::vec4(f.mesh.vertices[k3[j]].position, 1.0f));
            const glm::vec3 n = glm::cross(p[1] - p[0], p[2] - p[0]);
            ASSERT_LE(glm::dot(n, eye - p[0]), 1e-5f * glm::length(n) * glm::length(eye - p[0]))
                << "camera " << k << ", instance " << i << ", cluster " << c << ": triangle " << t
                << " faces the eye";
          }
        }
        // Within 1e-4 of the cone's edge either verdict is right.
        const glm::vec3 apex = glm::vec3(w * glm::vec4(cl.cone_apex, 1.0f));
        const glm::vec3 axis = glm::normalize(glm::mat3(w) * cl.cone_axis);
        const float edge = glm::dot(glm::normalize(apex - eye), axis) - cl.cone_cutoff -
                           kConeMargin;
        if (cl.cone_cutoff < 1.0f && std::abs(edge) < 1e-4f) continue;
        EXPECT_EQ(gpu.count({i, c}) == 0, away) << "camera " << k << ", instance " << i
                                                << ", cluster " << c;
        ++compared;
        culled += away;
        mirrored_culled += away && i % 3 == 0;
      }
    }
  }
  // A closed sphere seen from outside turns about half its surface away, but a cluster's normals
  // span much of a turn (the coarser levels' clusters most), so that only some clusters face away
  // wholly: more than 1 in 20 of the non-mirrored ones here.
  EXPECT_GT(compared, 2000u);
  EXPECT_GT(culled, compared / 20);
  EXPECT_EQ(mirrored_culled, 0u) << "a mirror turns back faces to the front: never culled";
}

}  // namespace
}  // namespace bindery
