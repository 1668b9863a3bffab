// SPDX-License-Identifier: MIT
// Triangle topology, flat normals, winding and back faces for the glTF loader (gltf_mesh.hpp).
#include "gltf_mesh.hpp"

#include <glm/glm.hpp>

#include <cmath>

namespace bindery::gltf {

std::string_view mode_name(int mode) {
  switch (mode) {
    case kPoints:
      return "POINTS";
    case kLines:
      return "LINES";
    case kLineLoop:
      return "LINE_LOOP";
    case kLineStrip:
      return "LINE_STRIP";
    case kTriangles:
      return "TRIANGLES";
    case kTriangleStrip:
      return "TRIANGLE_STRIP";
    case kTriangleFan:
      return "TRIANGLE_FAN";
    default:
      return "";
  }
}

std::vector<uint32_t> triangle_list(int mode, std::span<const uint32_t> v) {
  std::vector<uint32_t> out;
  const size_t n = v.size();
  if (n < 3) return out;
  switch (mode) {
    case kTriangles:
      out.assign(v.begin(), v.begin() + n / 3 * 3);
      break;
    case kTriangleStrip:
      out.reserve((n - 2) * 3);
      for (size_t i = 0; i + 2 < n; ++i) {
        out.push_back(v[i]);
        out.push_back(v[i + 1 + i % 2]);
        out.push_back(v[i + 2 - i % 2]);
      }
      break;
    case kTriangleFan:
      out.reserve((n - 2) * 3);
      for (size_t i = 0; i + 2 < n; ++i) {
        out.push_back(v[i + 1]);
        out.push_back(v[i + 2]);
        out.push_back(v[0]);
      }
      break;
    default:
      break;
  }
  return out;
}

void reverse_winding(std::vector<uint32_t>& triangles) {
  for (size_t t = 0; t + 2 < triangles.size(); t += 3)
    std::swap(triangles[t + 1], triangles[t + 2]);
}

void make_flat_normals(Mesh& mesh) {
  std::vector<Vertex> vertices;
  vertices.reserve(mesh.indices.size() / 3 * 3);
  for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    Vertex a = mesh.vertices[mesh.indices[t]];
    Vertex b = mesh.vertices[mesh.indices[t + 1]];
    Vertex c = mesh.vertices[mesh.indices[t + 2]];
    const glm::vec3 n = glm::cross(b.position - a.position, c.position - a.position);
    const float length = glm::length(n);
    glm::vec3 normal = length > 0.0f ? n / length : glm::vec3(0.0f, 1.0f, 0.0f);
    if (!std::isfinite(length)) {  // edges so long that the cross product overflows float
      const glm::dvec3 d = glm::cross(glm::dvec3(b.position) - glm::dvec3(a.position),
                                      glm::dvec3(c.position) - glm::dvec3(a.position));
      normal = glm::vec3(d / glm::length(d));
    }
    a.normal = b.normal = c.normal = normal;
    vertices.push_back(a);
    vertices.push_back(b);
    vertices.push_back(c);
  }
  mesh.vertices = std::move(vertices);
  mesh.indices.resize(mesh.vertices.size());
  for (size_t i = 0; i < mesh.indices.size(); ++i) mesh.indices[i] = static_cast<uint32_t>(i);
}

void add_back_faces(Mesh& mesh) {
  const size_t vertex_count = mesh.vertices.size(), index_count = mesh.indices.size();
  mesh.vertices.reserve(vertex_count * 2);
  for (size_t i = 0; i < vertex_count; ++i) {
    Vertex back = mesh.vertices[i];
    back.normal = -back.normal;
    mesh.vertices.push_back(back);
  }
  mesh.indices.reserve(index_count * 2);
  const uint32_t base = static_cast<uint32_t>(vertex_count);
  for (size_t t = 0; t + 2 < index_count; t += 3) {
    mesh.indices.push_back(base + mesh.indices[t]);
    mesh.indices.push_back(base + mesh.indices[t + 2]);
    mesh.indices.push_back(base + mesh.indices[t + 1]);
  }
}

}  // namespace bindery::gltf
