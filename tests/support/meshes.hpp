// SPDX-License-Identifier: MIT
// tests/support/meshes.hpp — generated meshes the cluster tests share: an icosahedron
// subdivided onto the unit sphere (closed, welded, counter-clockwise seen from outside), as
// positions and indices, and as a bindery::Mesh with its radius shaped by a function.
#pragma once

#include <bindery/data/scene_data.hpp>

#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace bindery::test {

/// Positions and a triangle list (3 indices per triangle).
struct TestMesh {
  std::vector<glm::vec3> positions;
  std::vector<uint32_t> indices;
};

/// An icosahedron subdivided `levels` times onto the unit sphere: 20 * 4^levels triangles.
inline TestMesh icosphere(int levels) {
  const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
  TestMesh m;
  m.positions = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                 {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  m.indices = {0, 11, 5, 0, 5, 1,  0, 1, 7,   0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4,
               11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4,  3, 4, 2,   3, 2, 6, 3, 6, 8,
               3, 8, 9,  4, 9, 5,  2, 4, 11, 6, 2, 10, 8, 6, 7,   9, 8, 1};
  for (glm::vec3& p : m.positions) p = glm::normalize(p);
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> mid;
    auto midpoint = [&](uint32_t a, uint32_t b) {
      auto [it, added] = mid.try_emplace(std::minmax(a, b), uint32_t(m.positions.size()));
      if (added) m.positions.push_back(glm::normalize(m.positions[a] + m.positions[b]));
      return it->second;
    };
    std::vector<uint32_t> next;
    for (size_t i = 0; i < m.indices.size(); i += 3) {
      const uint32_t a = m.indices[i], b = m.indices[i + 1], c = m.indices[i + 2];
      const uint32_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.insert(next.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
    }
    m.indices = std::move(next);
  }
  return m;
}

/// `sphere` as a bindery::Mesh (32-bit indices), each unit direction d moved to d * radius(d),
/// with d as its normal and (0.5 + d.x / 2, 0.5 + d.y / 2) as its texture coordinates.
inline Mesh mesh_of(const TestMesh& sphere, const std::function<float(glm::vec3)>& radius,
                    const char* name = "bumped sphere") {
  Mesh mesh;
  mesh.name = name;
  for (const glm::vec3& d : sphere.positions) {
    Vertex v;
    v.position = d * radius(d);
    v.normal = d;
    v.texcoord = glm::vec2(0.5f + 0.5f * d.x, 0.5f + 0.5f * d.y);
    mesh.vertices.push_back(v);
  }
  mesh.indices = sphere.indices;
  mesh.index16 = false;
  return mesh;
}

}  // namespace bindery::test
