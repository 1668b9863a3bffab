// SPDX-License-Identifier: MIT
// The cluster hierarchy's invariants (bindery/gpu_driven/cluster_hierarchy.hpp) on generated
// meshes: level 0 is the source, errors grow and spheres enclose towards the root, the cut of a
// closed mesh is closed for any camera and tau (every edge met by exactly one opposite edge: no
// crack, no double cover), tau = 0 selects level 0 and a huge tau the roots, the level pruning
// never drops a cluster of the cut, and the hierarchy's bytes stay within 2x the source's.
#include "bindery/gpu_driven/cluster_hierarchy.hpp"

#include "bindery/core/error.hpp"
#include "support/meshes.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace {

using namespace bindery;
using namespace bindery::gpu_driven;

using test::TestMesh;

// test::icosphere(levels), its radius displaced by `bumps` (0: a sphere).
TestMesh icosphere(int levels, float bumps, uint32_t seed = 1) {
  TestMesh m = test::icosphere(levels);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const glm::vec3 k(u(rng) * 5 + 7, u(rng) * 5 + 7, u(rng) * 5 + 7);
  for (glm::vec3& p : m.positions)
    p *= 1.0f + bumps * std::sin(k.x * p.x) * std::sin(k.y * p.y) * std::sin(k.z * p.z);
  return m;
}

// A flat n x n grid of quads in z = 0 (an open mesh: its outer edges are a border).
TestMesh grid(uint32_t n) {
  TestMesh m;
  for (uint32_t y = 0; y <= n; ++y)
    for (uint32_t x = 0; x <= n; ++x) m.positions.push_back({float(x), float(y), 0.0f});
  for (uint32_t y = 0; y < n; ++y)
    for (uint32_t x = 0; x < n; ++x) {
      const uint32_t a = y * (n + 1) + x, b = a + 1, c = a + n + 1, d = c + 1;
      m.indices.insert(m.indices.end(), {a, b, d, a, d, c});
    }
  return m;
}

// `m` with every vertex of a random third of its triangles duplicated (texture seams: the same
// position under another vertex number).
TestMesh with_seams(TestMesh m, uint32_t seed) {
  std::mt19937 rng(seed);
  for (size_t i = 0; i < m.indices.size(); i += 3)
    if (rng() % 3 == 0)
      for (size_t k = 0; k < 3; ++k) {
        m.positions.push_back(m.positions[m.indices[i + k]]);
        m.indices[i + k] = uint32_t(m.positions.size() - 1);
      }
  return m;
}

ClusterHierarchy build(const TestMesh& m, const ClusterBuildDesc& desc = {}) {
  return build_cluster_hierarchy(std::as_bytes(std::span(m.positions)),
                                 uint32_t(m.positions.size()), 12, m.indices, desc, "test");
}

// A triangle as its corners' positions, rotated so the smallest corner comes first (orientation
// kept).
using Tri = std::array<std::tuple<float, float, float>, 3>;
Tri canonical(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
  Tri t{std::tuple{a.x, a.y, a.z}, std::tuple{b.x, b.y, b.z}, std::tuple{c.x, c.y, c.z}};
  std::rotate(t.begin(), std::min_element(t.begin(), t.end()), t.end());
  return t;
}

// The cut's triangles as directed edges between positions: the number of edges whose opposite
// edge is missing (cracks) plus those whose opposite is met more than once (double cover).
// Degenerate triangles (two equal corners) carry no edge.
size_t open_edges(const TestMesh& m, const ClusterHierarchy& h, const std::vector<uint32_t>& cut) {
  using P = std::tuple<float, float, float>;
  std::map<std::pair<P, P>, int> edges;
  for (uint32_t ci : cut) {
    const Cluster& c = h.clusters[ci];
    for (uint32_t t = 0; t < c.triangle_count; ++t) {
      const glm::uvec3 k = h.corners(c, t);
      glm::vec3 p[3] = {m.positions[k.x], m.positions[k.y], m.positions[k.z]};
      if (p[0] == p[1] || p[1] == p[2] || p[2] == p[0]) continue;
      for (int e = 0; e < 3; ++e) {
        const glm::vec3 a = p[e], b = p[(e + 1) % 3];
        edges[{P{a.x, a.y, a.z}, P{b.x, b.y, b.z}}]++;
      }
    }
  }
  size_t bad = 0;
  for (const auto& [e, n] : edges) {
    auto it = edges.find({e.second, e.first});
    if (n != 1 || it == edges.end() || it->second != 1) ++bad;
  }
  return bad;
}

// A camera looking at the origin from `eye`: a 60-degree vertical field of view at 720 pixels.
LodView view_from(glm::vec3 eye, float tau) {
  LodView v;
  v.eye = eye;
  v.pixels_per_unit = 360.0f / std::tan(glm::radians(30.0f));
  v.z_near = 0.01f;
  v.tau = tau;
  return v;
}


// Area of the cut's triangles facing +z and -z (by their winding), and of the distinct ones.
struct Areas {
  double up = 0, down = 0, distinct = 0;
};
Areas cut_areas(const std::vector<glm::vec3>& p, const ClusterHierarchy& h,
                const std::vector<uint32_t>& cut) {
  Areas a;
  std::set<Tri> seen;
  for (uint32_t ci : cut) {
    const Cluster& c = h.clusters[ci];
    for (uint32_t t = 0; t < c.triangle_count; ++t) {
      const glm::uvec3 k = h.corners(c, t);
      const glm::vec3 n = glm::cross(p[k.y] - p[k.x], p[k.z] - p[k.x]);
      (n.z > 0 ? a.up : a.down) += 0.5 * std::abs(double(n.z));
      if (seen.insert(canonical(p[k.x], p[k.y], p[k.z])).second)
        a.distinct += 0.5 * std::abs(double(n.z));
    }
  }
  return a;
}

// A double-sided sheet (a 40 x 40 grid and a copy of every triangle wound the other way, each
// side with its own normal), and a grid whose triangles are listed 4 times: every cut covers
// the sheet's area exactly once on each side, and the repeated grid's area at least once, with no
// hole (the sheets are flat, and their borders are locked: simplification keeps the area).
TEST(ClusterHierarchy, DoubleSidedAndRepeatedTrianglesKeepTheirArea) {
  struct V {
    glm::vec3 p, n;
  };
  const TestMesh g = grid(40);
  std::vector<V> vertices;
  for (const glm::vec3& q : g.positions) vertices.push_back({q, {0, 0, 1}});
  for (const glm::vec3& q : g.positions) vertices.push_back({q, {0, 0, -1}});
  std::vector<uint32_t> indices = g.indices;
  const uint32_t n = uint32_t(g.positions.size());
  for (size_t i = 0; i < g.indices.size(); i += 3)
    indices.insert(indices.end(), {g.indices[i] + n, g.indices[i + 2] + n, g.indices[i + 1] + n});
  std::vector<glm::vec3> positions;
  for (const V& v : vertices) positions.push_back(v.p);
  const ClusterHierarchy sheet = build_cluster_hierarchy(
      std::as_bytes(std::span(vertices)), uint32_t(vertices.size()), sizeof(V), indices,
      ClusterBuildDesc{.normal_offset_bytes = 12}, "sheet");
  TestMesh repeated = grid(30);
  const std::vector<uint32_t> once = repeated.indices;
  for (int r = 0; r < 3; ++r) repeated.indices.insert(repeated.indices.end(), once.begin(), once.end());
  const ClusterHierarchy rep = build(repeated);
  for (float tau : {0.0f, 1.0f, 10.0f, 1e6f})
    for (float dist : {5.0f, 50.0f, 500.0f}) {
      const LodView v = view_from({20.0f, 20.0f, dist}, tau);
      const Areas a = cut_areas(positions, sheet, select_cut(sheet, glm::mat4(1.0f), v));
      EXPECT_NEAR(a.up, 1600.0, 1e-2) << tau << " " << dist;
      EXPECT_NEAR(a.down, 1600.0, 1e-2) << tau << " " << dist;
      const Areas b = cut_areas(repeated.positions, rep, select_cut(rep, glm::mat4(1.0f), v));
      EXPECT_NEAR(b.distinct, 900.0, 1e-2) << tau << " " << dist;
    }
}

TEST(ClusterHierarchy, LevelZeroHoldsExactlyTheSourceTriangles) {
  const TestMesh m = icosphere(4, 0.1f);
  const ClusterHierarchy h = build(m);
  std::multiset<Tri> source, level0;
  for (size_t i = 0; i < m.indices.size(); i += 3)
    source.insert(canonical(m.positions[m.indices[i]], m.positions[m.indices[i + 1]],
                            m.positions[m.indices[i + 2]]));
  for (const Cluster& c : h.clusters) {
    if (c.level != 0) continue;
    EXPECT_LE(c.triangle_count, 128u);
    EXPECT_LE(c.vertex_count, 128u);
    EXPECT_EQ(c.self.error, 0.0f);
    for (uint32_t t = 0; t < c.triangle_count; ++t) {
      const glm::uvec3 k = h.corners(c, t);
      level0.insert(canonical(m.positions[k.x], m.positions[k.y], m.positions[k.z]));
    }
  }
  EXPECT_EQ(level0, source);
  // 5120 triangles in clusters of at most 128: at least 40 clusters at level 0.
  EXPECT_GE(h.levels.at(0).cluster_count, 40u);
  EXPECT_GE(h.levels.size(), 4u);
}

TEST(ClusterHierarchy, ErrorsGrowAndSpheresEncloseTowardsTheRoot) {
  for (const TestMesh& m : {icosphere(4, 0.15f, 3), with_seams(icosphere(4, 0.1f), 5), grid(60)}) {
    const ClusterHierarchy h = build(m);
    size_t roots = 0;
    for (const Cluster& c : h.clusters) {
      if (c.parent.error >= kRootError) {
        ++roots;
        continue;
      }
      EXPECT_GT(c.parent.error, c.self.error);
      const float d = glm::length(c.parent.center - c.self.center);
      EXPECT_LE(d + c.self.radius, c.parent.radius * 1.0001f + 1e-5f);
      EXPECT_LE(glm::length(c.parent.center - glm::vec3(c.sphere)) + c.sphere.w,
                c.parent.radius * 1.0001f + 1e-5f);
      EXPECT_GT(c.parent.error, 0.0f);
    }
    EXPECT_GE(roots, 1u);
    EXPECT_LE(h.stats.root_triangles, 128u) << "the root is below one cluster";
  }
}

TEST(ClusterHierarchy, CutOfAClosedMeshIsClosedForEveryCameraAndTau) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const TestMesh& m : {icosphere(4, 0.12f, 11), with_seams(icosphere(4, 0.08f, 2), 9)}) {
    const ClusterHierarchy h = build(m);
    ASSERT_EQ(open_edges(m, h, select_cut(h, glm::mat4(1.0f), view_from({0, 0, 5}, 0.0f))), 0u);
    size_t levels_seen = 0;
    std::set<uint32_t> levels;
    for (int camera = 0; camera < 50; ++camera) {
      glm::vec3 dir = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)) + glm::vec3(1e-3f));
      const float dist = 1.5f * std::pow(200.0f, (u(rng) + 1.0f) / 2.0f);
      for (float tau : {0.5f, 1.0f, 4.0f}) {
        const std::vector<uint32_t> cut =
            select_cut(h, glm::mat4(1.0f), view_from(dir * dist, tau));
        ASSERT_FALSE(cut.empty());
        EXPECT_EQ(open_edges(m, h, cut), 0u) << "camera " << camera << " tau " << tau;
        for (uint32_t c : cut) levels.insert(h.clusters[c].level);
      }
    }
    levels_seen = levels.size();
    EXPECT_GE(levels_seen, 3u) << "the cameras reach several levels";
  }
}

TEST(ClusterHierarchy, TauZeroSelectsLevelZeroAndAHugeTauTheRoots) {
  const TestMesh m = icosphere(4, 0.1f);
  const ClusterHierarchy h = build(m);
  std::vector<uint32_t> level0, roots;
  for (uint32_t i = 0; i < h.clusters.size(); ++i) {
    if (h.clusters[i].level == 0) level0.push_back(i);
    if (h.clusters[i].parent.error >= kRootError) roots.push_back(i);
  }
  EXPECT_EQ(select_cut(h, glm::mat4(1.0f), view_from({0, 0, 3}, 0.0f)), level0);
  EXPECT_EQ(select_cut(h, glm::mat4(1.0f), view_from({0, 0, 3}, 1e30f)), roots);
  // Far away the root alone: at 1e6 units the sphere's whole error is far below a pixel.
  EXPECT_EQ(select_cut(h, glm::mat4(1.0f), view_from({0, 0, 1e6f}, 1.0f)), roots);
}

TEST(ClusterHierarchy, LevelPruningKeepsEveryClusterOfTheCut) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const TestMesh m = icosphere(5, 0.1f, 4);
  const ClusterHierarchy h = build(m);
  size_t pruned = 0;
  for (int camera = 0; camera < 50; ++camera) {
    // An instance scaled, rotated and moved, and a camera around it.
    glm::mat4 world = glm::translate(glm::mat4(1.0f), glm::vec3(u(rng), u(rng), u(rng)) * 10.0f);
    world = glm::rotate(world, u(rng) * 3.0f, glm::normalize(glm::vec3(u(rng), u(rng), 1.0f)));
    world = glm::scale(world, glm::vec3(1.0f + u(rng) * 0.5f, 1.0f, 1.2f));
    const glm::vec3 eye = glm::vec3(world[3]) + glm::vec3(u(rng), u(rng), u(rng)) *
                                                    std::pow(300.0f, (u(rng) + 1.0f) / 2.0f);
    const LodView view = view_from(eye, 1.0f);
    for (uint32_t l = 0; l < h.levels.size(); ++l) {
      const bool may = level_may_hold_cut(h.levels[l], h.sphere, world, view);
      pruned += may ? 0 : 1;
      if (may) continue;
      for (uint32_t c = h.levels[l].first_cluster;
           c < h.levels[l].first_cluster + h.levels[l].cluster_count; ++c)
        EXPECT_FALSE(cluster_in_cut(h.clusters[c], world, view)) << "level " << l;
    }
  }
  EXPECT_GT(pruned, 50u) << "the pruning prunes";
}

TEST(ClusterHierarchy, CostsAtMostTwiceTheSourceBytes) {
  const TestMesh m = icosphere(5, 0.1f);
  const ClusterHierarchy h = build(m);
  // The source as bindery's mesh pool holds it: 36-byte vertices, 4-byte indices.
  const uint64_t source = m.positions.size() * 36ull + m.indices.size() * 4ull;
  EXPECT_LE(h.bytes(), 2 * source);
  uint32_t level_sum = 0;
  for (uint32_t n : h.stats.clusters_per_level) level_sum += n;
  EXPECT_EQ(level_sum, h.clusters.size());
}

TEST(ClusterHierarchy, RefusesBadMeshesWithInvalidArgument) {
  TestMesh m = grid(2);
  auto kind_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Internal;
  };
  TestMesh out_of_range = m;
  out_of_range.indices[4] = 99;
  EXPECT_EQ(kind_of([&] { build(out_of_range); }), ErrorKind::InvalidArgument);
  TestMesh not_triangles = m;
  not_triangles.indices.pop_back();
  EXPECT_EQ(kind_of([&] { build(not_triangles); }), ErrorKind::InvalidArgument);
  TestMesh nan = m;
  nan.positions[1].y = std::nanf("");
  EXPECT_EQ(kind_of([&] { build(nan); }), ErrorKind::InvalidArgument);
  TestMesh far = m;
  far.positions[2].x = 2e18f;  // beyond kMaxClusterCoordinate (1e18): squares overflow float32
  EXPECT_EQ(kind_of([&] { build(far); }), ErrorKind::InvalidArgument);
  ClusterBuildDesc desc;
  desc.max_triangles = 130;
  EXPECT_EQ(kind_of([&] { build(m, desc); }), ErrorKind::InvalidArgument);
}

}  // namespace
