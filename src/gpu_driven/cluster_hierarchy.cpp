// SPDX-License-Identifier: MIT
// The cluster hierarchy builder (bindery/gpu_driven/cluster_hierarchy.hpp): level 0 by
// meshopt_buildMeshlets; each further level groups neighbouring clusters, simplifies every group
// with its border locked and splits it again; the terminal form simplifies what is left as one
// group. The grouping, the DAG and the error bookkeeping are bindery's; meshoptimizer splits and
// simplifies.
#include "bindery/gpu_driven/cluster_hierarchy.hpp"

#include "bindery/core/error.hpp"

#include <fmt/format.h>
#include <meshoptimizer.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace bindery::gpu_driven {
namespace {

// A list of triangles over a local vertex numbering, with the mesh vertex behind each local one.
struct LocalMesh {
  std::vector<uint32_t> to_mesh;   // local vertex -> mesh vertex
  std::vector<glm::vec3> positions;
  std::vector<uint32_t> indices;   // 3 per triangle, local
};

// A sphere enclosing spheres a and b.
glm::vec4 merge(glm::vec4 a, glm::vec4 b) {
  const glm::vec3 d = glm::vec3(b) - glm::vec3(a);
  const float dist = glm::length(d);
  if (dist + b.w <= a.w) return a;
  if (dist + a.w <= b.w) return b;
  const float radius = 0.5f * (dist + a.w + b.w);
  const glm::vec3 center = glm::vec3(a) + d * ((radius - a.w) / dist);
  return glm::vec4(center, radius);
}

glm::vec4 sphere_of(const LodBounds& b) { return glm::vec4(b.center, b.radius); }

void validate(const ClusterBuildDesc& d, std::span<const std::byte> positions,
              uint32_t vertex_count, uint32_t stride, std::span<const uint32_t> indices,
              std::string_view name) {
  auto bad = [&](const std::string& what) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("build_cluster_hierarchy('{}'): {}", name, what));
  };
  if (d.max_triangles < 4 || d.max_triangles > 128 || d.max_triangles % 4 != 0)
    bad(fmt::format("max_triangles {} is not a multiple of 4 in 4..128", d.max_triangles));
  if (d.max_vertices < 3 || d.max_vertices > 255)
    bad(fmt::format("max_vertices {} is outside 3..255 (8-bit corners)", d.max_vertices));
  if (d.group_size < 2 || d.group_size > 32)
    bad(fmt::format("group_size {} is outside 2..32", d.group_size));
  if (!(d.min_reduction > 0.0f && d.min_reduction < 1.0f))
    bad(fmt::format("min_reduction {} is not in (0, 1)", d.min_reduction));
  if (d.root_triangles < 1) bad("root_triangles is 0 (at least 1)");
  if (d.max_levels < 1 || d.max_levels > 64)
    bad(fmt::format("max_levels {} is outside 1..64", d.max_levels));
  if (stride < 12 || stride % 4 != 0)
    bad(fmt::format("stride {} bytes is not a multiple of 4 of at least 12", stride));
  if (d.normal_offset_bytes != kNoNormals &&
      (d.normal_offset_bytes % 4 != 0 || uint64_t(d.normal_offset_bytes) + 12 > stride))
    bad(fmt::format("normal_offset_bytes {} is not a multiple of 4 with 12 bytes inside the "
                    "stride {}",
                    d.normal_offset_bytes, stride));
  if (vertex_count == 0 || indices.empty()) bad("the mesh has no vertices or no indices");
  if (positions.size() < uint64_t(vertex_count - 1) * stride + 12)
    bad(fmt::format("{} bytes of positions hold fewer than {} vertices of stride {}",
                    positions.size(), vertex_count, stride));
  if (indices.size() % 3 != 0)
    bad(fmt::format("{} indices is not a multiple of 3 (a triangle list)", indices.size()));
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i] >= vertex_count)
      bad(fmt::format("index {} at position {} is not below the vertex count {}", indices[i], i,
                      vertex_count));
  for (uint32_t v = 0; v < vertex_count; ++v) {
    float p[3];
    std::memcpy(p, positions.data() + uint64_t(v) * stride, 12);
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
      bad(fmt::format("vertex {}'s position is not finite", v));
    if (std::max({std::abs(p[0]), std::abs(p[1]), std::abs(p[2])}) > kMaxClusterCoordinate)
      bad(fmt::format("vertex {}'s position ({:g}, {:g}, {:g}) lies beyond +-{:g}, where squared "
                      "distances of the error metric overflow float32",
                      v, p[0], p[1], p[2], double(kMaxClusterCoordinate)));
  }
}

// The builder's state: the mesh's positions, the hierarchy so far, and welded vertex ids (one per
// distinct position, so that clusters split along a texture seam still count as neighbours; with
// normals, vertices of one position facing opposite ways stay apart, so that the two sides of a
// double-sided sheet are two surfaces, not one closed one).
class Builder {
 public:
  Builder(std::span<const std::byte> positions, uint32_t vertex_count, uint32_t stride,
          const ClusterBuildDesc& desc)
      : desc_(desc), positions_(vertex_count), weld_(vertex_count) {
    if (desc.normal_offset_bytes != kNoNormals) {
      normals_.resize(vertex_count);
      for (uint32_t v = 0; v < vertex_count; ++v)
        std::memcpy(&normals_[v], positions.data() + uint64_t(v) * stride + desc.normal_offset_bytes,
                    12);
    }
    std::unordered_map<uint64_t, std::vector<uint32_t>> buckets;
    glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
    for (uint32_t v = 0; v < vertex_count; ++v) {
      std::memcpy(&positions_[v], positions.data() + uint64_t(v) * stride, 12);
      lo = glm::min(lo, positions_[v]);
      hi = glm::max(hi, positions_[v]);
    }
    h_.sphere = glm::vec4(0.5f * (lo + hi), 0.5f * glm::length(hi - lo));
    lo_ = lo;
    extent_ = glm::max(hi - lo, glm::vec3(1e-30f));
    std::unordered_map<uint64_t, uint32_t> ids;
    for (uint32_t v = 0; v < vertex_count; ++v) {
      uint32_t bits[3];
      std::memcpy(bits, &positions_[v], 12);
      // Exact positions: -0 and +0 are one point.
      for (uint32_t& b : bits)
        if (b == 0x80000000u) b = 0;
      const uint64_t key = (uint64_t(bits[0]) * 0x9E3779B97F4A7C15ull) ^
                           (uint64_t(bits[1]) * 0xC2B2AE3D27D4EB4Full) ^ uint64_t(bits[2]);
      // The bucket holds one vertex per welded point (not every vertex), so a position shared by
      // many vertices costs as many comparisons as it has points.
      std::vector<uint32_t>& bucket = buckets[key];
      uint32_t id = UINT32_MAX;
      for (uint32_t first : bucket)
        if (positions_[first] == positions_[v] && same_side(first, v)) {
          id = weld_[first];
          break;
        }
      if (id == UINT32_MAX) {
        id = welded_++;
        bucket.push_back(v);
      }
      weld_[v] = id;
    }
  }

  // Whether vertices a and b of one position face the same side: normals less than 120 degrees
  // apart (a box's corner: 90), or no normals.
  bool same_side(uint32_t a, uint32_t b) const {
    if (normals_.empty()) return true;
    const glm::vec3 na = normals_[a], nb = normals_[b];
    return glm::dot(na, nb) > -0.5f * glm::length(na) * glm::length(nb);
  }

  ClusterHierarchy build(std::span<const uint32_t> indices) {
    std::vector<uint32_t> active = level0(indices);
    uint32_t level = 1;
    // Groups grow when a level barely simplifies (their locked borders hold too much of them),
    // up to the whole mesh.
    uint32_t group_size = desc_.group_size;
    while (active.size() > 1 && level < desc_.max_levels) {
      std::vector<uint32_t> next;
      const uint32_t before = triangles_of(active);
      if (!simplify_level(active, level, group_size, next)) {
        if (group_size >= active.size()) break;
        group_size *= 2;
        continue;
      }
      if (triangles_of(next) > before * 0.9) group_size = std::min<uint32_t>(group_size * 2, 1024);
      active = std::move(next);
      ++level;
    }
    while (level < desc_.max_levels && triangles_of(active) > desc_.root_triangles) {
      std::vector<uint32_t> next;
      if (!simplify_group(active, level, /*terminal=*/true, next)) break;
      active = std::move(next);
      ++level;
    }
    for (uint32_t c : active) {
      h_.clusters[c].parent = LodBounds{glm::vec3(h_.sphere), h_.sphere.w, kRootError};
      h_.stats.root_triangles += h_.clusters[c].triangle_count;
    }
    finish_levels();
    return std::move(h_);
  }

 private:
  // Level 0: the mesh split as it is.
  // A triangle listed again (the same vertices, in any rotation) joins the cluster of its first
  // listing: the clusters then partition the surface, which the groups' locked borders need (two
  // copies in two groups would be two overlapping regions simplified apart).
  std::vector<uint32_t> level0(std::span<const uint32_t> indices) {
    LocalMesh mesh;
    mesh.positions = positions_;
    mesh.to_mesh.resize(positions_.size());
    std::iota(mesh.to_mesh.begin(), mesh.to_mesh.end(), 0u);
    std::unordered_map<uint64_t, uint32_t> first;  // triangle key -> its first listing
    std::vector<uint32_t> repeats;                 // listings after the first, by key order
    std::vector<uint64_t> repeat_keys;
    for (size_t i = 0; i < indices.size(); i += 3) {
      const uint64_t key = triangle_key(indices[i], indices[i + 1], indices[i + 2]);
      if (first.try_emplace(key, uint32_t(i / 3)).second) {
        mesh.indices.insert(mesh.indices.end(), {indices[i], indices[i + 1], indices[i + 2]});
      } else {
        repeat_keys.push_back(key);
      }
    }
    const std::vector<uint32_t> made = split(mesh, LodBounds{}, 0, /*leaf=*/true);
    if (repeat_keys.empty()) return made;
    // Each repeat as a copy of its first listing's packed corners, in that cluster.
    std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> where;  // key -> cluster, packed
    for (uint32_t c : made)
      for (uint32_t t = 0; t < h_.clusters[c].triangle_count; ++t) {
        const glm::uvec3 k = h_.corners(h_.clusters[c], t);
        where.try_emplace(triangle_key(k.x, k.y, k.z),
                          std::pair{c, h_.triangles[h_.clusters[c].triangle_offset + t]});
      }
    std::vector<std::vector<uint32_t>> extra(h_.clusters.size());
    for (uint64_t key : repeat_keys) {
      const auto& [c, packed] = where.at(key);
      extra[c].push_back(packed);
    }
    std::vector<uint32_t> triangles;
    for (uint32_t c : made) {
      Cluster& cl = h_.clusters[c];
      const uint32_t offset = uint32_t(triangles.size());
      triangles.insert(triangles.end(), h_.triangles.begin() + cl.triangle_offset,
                       h_.triangles.begin() + cl.triangle_offset + cl.triangle_count);
      triangles.insert(triangles.end(), extra[c].begin(), extra[c].end());
      cl.triangle_offset = offset;
      cl.triangle_count += uint32_t(extra[c].size());
      h_.stats.triangles_per_level[0] += uint32_t(extra[c].size());
    }
    h_.triangles = std::move(triangles);
    return made;
  }

  // Splits `mesh` into clusters of level `level` whose self bounds are `self` (leaves: their own
  // sphere, error 0). Returns their indices.
  std::vector<uint32_t> split(const LocalMesh& mesh, const LodBounds& self, uint32_t level,
                              bool leaf) {
    const size_t max_meshlets =
        meshopt_buildMeshletsBound(mesh.indices.size(), desc_.max_vertices, desc_.max_triangles);
    std::vector<meshopt_Meshlet> meshlets(max_meshlets);
    std::vector<uint32_t> mv(max_meshlets * desc_.max_vertices);
    std::vector<unsigned char> mt(max_meshlets * desc_.max_triangles * 3);
    const size_t n = meshopt_buildMeshlets(
        meshlets.data(), mv.data(), mt.data(), mesh.indices.data(), mesh.indices.size(),
        &mesh.positions[0].x, mesh.positions.size(), sizeof(glm::vec3), desc_.max_vertices,
        desc_.max_triangles, 0.0f);
    std::vector<uint32_t> made;
    made.reserve(n);
    for (size_t m = 0; m < n; ++m) {
      const meshopt_Meshlet& ml = meshlets[m];
      if (ml.triangle_count == 0) continue;
      const meshopt_Bounds b = meshopt_computeMeshletBounds(
          &mv[ml.vertex_offset], &mt[ml.triangle_offset], ml.triangle_count,
          &mesh.positions[0].x, mesh.positions.size(), sizeof(glm::vec3));
      Cluster c;
      c.vertex_offset = uint32_t(h_.vertices.size());
      c.vertex_count = ml.vertex_count;
      c.triangle_offset = uint32_t(h_.triangles.size());
      c.triangle_count = ml.triangle_count;
      c.sphere = glm::vec4(b.center[0], b.center[1], b.center[2], b.radius);
      c.self = leaf ? LodBounds{glm::vec3(c.sphere), c.sphere.w, 0.0f} : self;
      c.level = level;
      c.cone_apex = glm::vec3(b.cone_apex[0], b.cone_apex[1], b.cone_apex[2]);
      c.cone_cutoff = b.cone_cutoff;
      const glm::vec3 axis(b.cone_axis[0], b.cone_axis[1], b.cone_axis[2]);
      const float length = glm::length(axis);
      if (length > 0.5f && std::isfinite(length) && b.cone_cutoff < 1.0f) {
        c.cone_axis = axis / length;
      } else {
        c.cone_cutoff = 1.0f;  // no cone
      }
      for (uint32_t v = 0; v < ml.vertex_count; ++v)
        h_.vertices.push_back(mesh.to_mesh[mv[ml.vertex_offset + v]]);
      for (uint32_t t = 0; t < ml.triangle_count; ++t) {
        const unsigned char* k = &mt[ml.triangle_offset + 3 * t];
        h_.triangles.push_back(uint32_t(k[0]) | uint32_t(k[1]) << 8 | uint32_t(k[2]) << 16);
      }
      made.push_back(uint32_t(h_.clusters.size()));
      h_.clusters.push_back(c);
    }
    h_.stats.clusters_per_level.resize(std::max<size_t>(h_.stats.clusters_per_level.size(),
                                                        level + 1));
    h_.stats.triangles_per_level.resize(h_.stats.clusters_per_level.size());
    for (uint32_t c : made) {
      h_.stats.clusters_per_level[level]++;
      h_.stats.triangles_per_level[level] += h_.clusters[c].triangle_count;
    }
    return made;
  }

  // One level: `active` grouped, each group simplified into clusters of `level` (into `next`) or
  // carried unchanged. False when no group simplified.
  bool simplify_level(const std::vector<uint32_t>& active, uint32_t level, uint32_t group_size,
                      std::vector<uint32_t>& next) {
    bool any = false;
    for (const std::vector<uint32_t>& group : make_groups(active, group_size)) {
      if (group.size() < 2 || !simplify_group(group, level, /*terminal=*/false, next)) {
        next.insert(next.end(), group.begin(), group.end());
        if (group.size() >= 2) h_.stats.groups_not_simplified++;
        continue;
      }
      any = true;
    }
    return any;
  }

  // Simplifies `group`'s clusters to about half their triangles (the border locked unless
  // `terminal`) and splits the result into clusters of `level`, appended to `next`. False, with
  // nothing changed, when the result keeps more than min_reduction of the triangles.
  bool simplify_group(const std::vector<uint32_t>& group, uint32_t level, bool terminal,
                      std::vector<uint32_t>& next) {
    std::vector<std::vector<uint32_t>> copies;
    const LocalMesh local = gather(group, copies);
    const size_t source = local.indices.size();
    // About half the triangles, not below the terminal size (meshopt_simplify asserts that the
    // target is at most the source).
    const size_t target =
        std::min(source, std::max<size_t>(3 * size_t(desc_.root_triangles), (source / 6) * 3));
    std::vector<uint32_t> out(source);
    float error = 0.0f;
    const std::vector<glm::vec3> apart = separated(local);
    const std::vector<glm::vec3> reference = vertex_normals(local);
    // meshoptimizer 0.18 can fold a triangle over at its most aggressive (seen on flat grids with
    // locked borders): a result with a triangle facing against the surface it replaces is tried
    // again at three quarters of the triangles, then given up (the group is carried).
    size_t kept = 0;
    for (const size_t goal : {target, std::max(target, (source * 3 / 4) / 3 * 3)}) {
      kept = meshopt_simplify(out.data(), local.indices.data(), source, &apart[0].x, apart.size(),
                              sizeof(glm::vec3), goal, std::numeric_limits<float>::max(),
                              terminal ? 0u : unsigned(meshopt_SimplifyLockBorder), &error);
      if (terminal && kept > size_t(double(source) * desc_.min_reduction))
        kept = meshopt_simplifySloppy(out.data(), local.indices.data(), source, &apart[0].x,
                                      apart.size(), sizeof(glm::vec3), goal,
                                      std::numeric_limits<float>::max(), &error);
      if (terminal || !folds(local, reference, out, kept)) break;
      kept = source;  // folded both times: not simplified
    }
    if (kept == 0 || kept > size_t(double(source) * desc_.min_reduction)) return false;
    out.resize(kept);
    const float scale = meshopt_simplifyScale(&local.positions[0].x, local.positions.size(),
                                              sizeof(glm::vec3));
    // The group's bounds: a sphere around its clusters' spheres; its error theirs plus what this
    // simplification moved (meshopt measures against its input, which is already simplified), and
    // strictly above theirs, so that the projected errors of a child and its parent never tie.
    glm::vec4 sphere = sphere_of(h_.clusters[group[0]].self);
    float child_error = 0.0f;
    for (uint32_t c : group) {
      sphere = merge(sphere, sphere_of(h_.clusters[c].self));
      sphere = merge(sphere, h_.clusters[c].sphere);
      child_error = std::max(child_error, h_.clusters[c].self.error);
    }
    // Capped at the mesh's diameter: no surface inside the mesh's bounding sphere lies farther
    // than that from the original (the sum overestimates after many levels of the terminal form).
    const float own = error * scale;
    const float diameter = 2.0f * h_.sphere.w;
    const float group_error = std::max(std::min(own + child_error, diameter), child_error) * 1.0001f +
                              1e-7f * std::max(sphere.w, 1e-30f);
    const LodBounds bounds{glm::vec3(sphere), sphere.w, group_error};
    for (uint32_t c : group) h_.clusters[c].parent = bounds;
    const std::vector<uint32_t> made =
        split(resolve(local, copies, out), bounds, level, /*leaf=*/false);
    next.insert(next.end(), made.begin(), made.end());
    h_.stats.groups++;
    return true;
  }

  // The triangles of `group` over a local numbering of their welded vertices (one per position,
  // so that faces split by their attributes, such as a box's flat-shaded sides, simplify as one
  // surface), and per local vertex the mesh vertices of that position the group used (`copies`).
  LocalMesh gather(const std::vector<uint32_t>& group,
                   std::vector<std::vector<uint32_t>>& copies) const {
    LocalMesh local;
    std::unordered_map<uint32_t, uint32_t> to_local;  // welded id -> local
    std::unordered_set<uint64_t> seen;  // welded triangles already taken (a repeated one once)
    for (uint32_t ci : group) {
      const Cluster& c = h_.clusters[ci];
      for (uint32_t t = 0; t < c.triangle_count; ++t) {
        const glm::uvec3 k = h_.corners(c, t);
        if (!seen.insert(triangle_key(weld_[k.x], weld_[k.y], weld_[k.z])).second) continue;
        for (int i = 0; i < 3; ++i) {
          auto [it, added] = to_local.try_emplace(weld_[k[i]], uint32_t(local.to_mesh.size()));
          if (added) {
            local.to_mesh.push_back(k[i]);
            local.positions.push_back(positions_[k[i]]);
            copies.emplace_back();
          }
          std::vector<uint32_t>& list = copies[it->second];
          if (std::find(list.begin(), list.end(), k[i]) == list.end()) list.push_back(k[i]);
          local.indices.push_back(it->second);
        }
      }
    }
    return local;
  }

  // The local positions with the welded points that share a position (the two sides of a
  // double-sided sheet) moved apart by 1e-5 of the group's extent along their normals:
  // meshopt_simplify treats vertices of one position as one point of its topology, and would
  // simplify the two sides as one closed surface of no thickness. Only the simplifier sees the
  // offset; the triangles it returns index the real vertices.
  std::vector<glm::vec3> separated(const LocalMesh& local) const {
    std::vector<glm::vec3> out = local.positions;
    auto key_of = [&](uint32_t i) {
      uint32_t bits[3];
      std::memcpy(bits, &local.positions[i], 12);
      return (uint64_t(bits[0]) * 0x9E3779B97F4A7C15ull) ^
             (uint64_t(bits[1]) * 0xC2B2AE3D27D4EB4Full) ^ uint64_t(bits[2]);
    };
    std::unordered_map<uint64_t, uint32_t> points;  // position bits -> welded points there
    for (uint32_t i = 0; i < out.size(); ++i) points[key_of(i)]++;
    glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
    for (const glm::vec3& q : out) lo = glm::min(lo, q), hi = glm::max(hi, q);
    const float step = 1e-5f * std::max(glm::length(hi - lo), 1e-30f);
    // Every point of a shared position moves along its own normal, so that a flat side stays
    // flat.
    for (uint32_t i = 0; i < out.size(); ++i) {
      if (points[key_of(i)] < 2 || normals_.empty()) continue;
      const glm::vec3 n = normals_[local.to_mesh[i]];
      if (glm::length(n) > 0.0f) out[i] += glm::normalize(n) * step;
    }
    return out;
  }

  // Per local vertex, the area-weighted normal of the triangles around it.
  static std::vector<glm::vec3> vertex_normals(const LocalMesh& local) {
    std::vector<glm::vec3> n(local.positions.size(), glm::vec3(0.0f));
    for (size_t i = 0; i < local.indices.size(); i += 3) {
      const glm::vec3 a = local.positions[local.indices[i]], b = local.positions[local.indices[i + 1]],
                      c = local.positions[local.indices[i + 2]];
      const glm::vec3 face = glm::cross(b - a, c - a);
      for (int k = 0; k < 3; ++k) n[local.indices[i + k]] += face;
    }
    return n;
  }

  // Whether a simplified triangle faces against the surface around its corners (a fold).
  static bool folds(const LocalMesh& local, const std::vector<glm::vec3>& reference,
                    const std::vector<uint32_t>& out, size_t count) {
    for (size_t i = 0; i < count; i += 3) {
      const glm::vec3 a = local.positions[out[i]], b = local.positions[out[i + 1]],
                      c = local.positions[out[i + 2]];
      const glm::vec3 face = glm::cross(b - a, c - a);
      const glm::vec3 around = reference[out[i]] + reference[out[i + 1]] + reference[out[i + 2]];
      // Clearly against it (more than 120 degrees), where the surface around has a side at
      // all: a thin part's two sides cancel in `around`, which says nothing there.
      const float fa = glm::length(face), aa = glm::length(around);
      if (aa > 0.25f * (glm::length(reference[out[i]]) + glm::length(reference[out[i + 1]]) +
                        glm::length(reference[out[i + 2]])) &&
          glm::dot(face, around) < -0.5f * fa * aa)
        return true;
    }
    return false;
  }

  // A key of the triangle (a, b, c) that its rotations share (the smallest corner first).
  static uint64_t triangle_key(uint32_t a, uint32_t b, uint32_t c) {
    while (a > b || a > c) std::tie(a, b, c) = std::tuple(b, c, a);
    return (uint64_t(a) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(b) << 32 | c);
  }

  // The simplified welded triangles `welded` (local numbering of `local`) over real mesh
  // vertices: each corner the copy of its position whose normal is nearest the triangle's own
  // (the first copy without normals), so that a flat-shaded side keeps its own normal and
  // texture coordinates.
  LocalMesh resolve(const LocalMesh& local, const std::vector<std::vector<uint32_t>>& copies,
                    const std::vector<uint32_t>& welded) const {
    LocalMesh out;
    std::unordered_map<uint32_t, uint32_t> to_local;  // mesh vertex -> local
    for (size_t i = 0; i < welded.size(); i += 3) {
      const glm::vec3 a = local.positions[welded[i]], b = local.positions[welded[i + 1]],
                      c = local.positions[welded[i + 2]];
      const glm::vec3 n = glm::cross(b - a, c - a);
      for (int k = 0; k < 3; ++k) {
        const std::vector<uint32_t>& list = copies[welded[i + k]];
        uint32_t best = list[0];
        if (!normals_.empty() && list.size() > 1) {
          float best_dot = -std::numeric_limits<float>::max();
          for (uint32_t v : list) {
            const float d = glm::dot(normals_[v], n);
            if (d > best_dot) best = v, best_dot = d;
          }
        }
        auto [it, added] = to_local.try_emplace(best, uint32_t(out.to_mesh.size()));
        if (added) {
          out.to_mesh.push_back(best);
          out.positions.push_back(positions_[best]);
        }
        out.indices.push_back(it->second);
      }
    }
    return out;
  }

  // Groups of about group_size neighbouring clusters: in Morton order of their centers, each
  // group grows by the ungrouped cluster sharing the most (welded) vertices with it.
  std::vector<std::vector<uint32_t>> make_groups(const std::vector<uint32_t>& active,
                                                uint32_t group_size) const {
    const size_t n = active.size();
    std::unordered_map<uint32_t, std::vector<uint32_t>> by_vertex;  // welded vertex -> locals
    for (size_t i = 0; i < n; ++i) {
      const Cluster& c = h_.clusters[active[i]];
      for (uint32_t v = 0; v < c.vertex_count; ++v) {
        std::vector<uint32_t>& list = by_vertex[weld_[h_.vertices[c.vertex_offset + v]]];
        if (list.empty() || list.back() != i) list.push_back(uint32_t(i));
      }
    }
    std::vector<std::unordered_map<uint32_t, uint32_t>> shared(n);
    for (const auto& [vertex, list] : by_vertex)
      for (uint32_t a : list)
        for (uint32_t b : list)
          if (a != b) shared[a][b]++;
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::vector<uint64_t> key(n);
    for (size_t i = 0; i < n; ++i) key[i] = morton(glm::vec3(h_.clusters[active[i]].sphere));
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
    std::vector<bool> grouped(n, false);
    std::vector<std::vector<uint32_t>> groups;
    for (uint32_t seed : order) {
      if (grouped[seed]) continue;
      std::vector<uint32_t> group{active[seed]};
      grouped[seed] = true;
      std::unordered_map<uint32_t, uint32_t> score = shared[seed];
      while (group.size() < group_size) {
        uint32_t best = UINT32_MAX, best_score = 0;
        for (const auto& [other, s] : score)
          if (!grouped[other] && (s > best_score || (s == best_score && other < best)))
            best = other, best_score = s;
        if (best == UINT32_MAX) break;
        grouped[best] = true;
        group.push_back(active[best]);
        for (const auto& [other, s] : shared[best]) score[other] += s;
      }
      groups.push_back(std::move(group));
    }
    return groups;
  }

  // A 30-bit Morton code of a point inside the mesh's box.
  uint64_t morton(glm::vec3 p) const {
    const glm::vec3 u = glm::clamp((p - lo_) / extent_, glm::vec3(0.0f), glm::vec3(1.0f));
    auto spread = [](uint32_t x) {
      uint64_t v = x & 0x3ff;
      v = (v | v << 16) & 0x030000FF;
      v = (v | v << 8) & 0x0300F00F;
      v = (v | v << 4) & 0x030C30C3;
      v = (v | v << 2) & 0x09249249;
      return v;
    };
    return spread(uint32_t(u.x * 1023.0f)) | spread(uint32_t(u.y * 1023.0f)) << 1 |
           spread(uint32_t(u.z * 1023.0f)) << 2;
  }

  uint32_t triangles_of(const std::vector<uint32_t>& clusters) const {
    uint32_t t = 0;
    for (uint32_t c : clusters) t += h_.clusters[c].triangle_count;
    return t;
  }

  // Each level's span and error bounds (clusters are appended level by level).
  void finish_levels() {
    const glm::vec3 center(h_.sphere);
    for (uint32_t i = 0; i < h_.clusters.size(); ++i) {
      const Cluster& c = h_.clusters[i];
      if (h_.levels.size() <= c.level) {
        h_.levels.resize(c.level + 1);
        h_.levels[c.level].first_cluster = i;
        h_.levels[c.level].min_self_error = std::numeric_limits<float>::max();
      }
      ClusterLevel& l = h_.levels[c.level];
      l.cluster_count++;
      l.min_self_error = std::min(l.min_self_error, c.self.error);
      l.self_reach = std::max(l.self_reach, glm::length(c.self.center - center) + c.self.radius);
      l.max_parent_error = std::max(l.max_parent_error, c.parent.error);
      l.parent_reach =
          std::max(l.parent_reach, glm::length(c.parent.center - center) + c.parent.radius);
    }
  }

  const ClusterBuildDesc& desc_;
  std::vector<glm::vec3> positions_, normals_;
  std::vector<uint32_t> weld_;
  uint32_t welded_ = 0;
  glm::vec3 lo_{0.0f}, extent_{1.0f};
  ClusterHierarchy h_;
};

float max_scale(const glm::mat4& m) {
  return std::sqrt(std::max({glm::dot(glm::vec3(m[0]), glm::vec3(m[0])),
                             glm::dot(glm::vec3(m[1]), glm::vec3(m[1])),
                             glm::dot(glm::vec3(m[2]), glm::vec3(m[2]))}));
}

}  // namespace

uint64_t ClusterHierarchy::bytes() const {
  return clusters.size() * 96ull + vertices.size() * 4ull + triangles.size() * 4ull +
         levels.size() * 32ull;
}

glm::uvec3 ClusterHierarchy::corners(const Cluster& c, uint32_t t) const {
  const uint32_t packed = triangles[c.triangle_offset + t];
  const uint32_t* v = &vertices[c.vertex_offset];
  return {v[packed & 0xff], v[(packed >> 8) & 0xff], v[(packed >> 16) & 0xff]};
}

ClusterHierarchy build_cluster_hierarchy(std::span<const std::byte> positions,
                                         uint32_t vertex_count, uint32_t stride_bytes,
                                         std::span<const uint32_t> indices,
                                         const ClusterBuildDesc& desc, std::string_view name) {
  validate(desc, positions, vertex_count, stride_bytes, indices, name);
  const auto start = std::chrono::steady_clock::now();
  Builder builder(positions, vertex_count, stride_bytes, desc);
  ClusterHierarchy h = builder.build(indices);
  h.stats.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return h;
}

float projected_error(const LodBounds& b, const glm::mat4& world, const LodView& view) {
  if (b.error >= kRootError) return std::numeric_limits<float>::infinity();
  const float s = max_scale(world);
  const glm::vec3 center = glm::vec3(world * glm::vec4(b.center, 1.0f));
  const float d = std::max(glm::length(center - view.eye) - b.radius * s, view.z_near);
  return b.error * s * view.pixels_per_unit / d;
}

bool cluster_in_cut(const Cluster& c, const glm::mat4& world, const LodView& view) {
  return projected_error(c.self, world, view) <= view.tau &&
         projected_error(c.parent, world, view) > view.tau;
}

bool level_may_hold_cut(const ClusterLevel& level, const glm::vec4& mesh_sphere,
                        const glm::mat4& world, const LodView& view) {
  const float s = max_scale(world);
  const glm::vec3 center = glm::vec3(world * glm::vec4(glm::vec3(mesh_sphere), 1.0f));
  const float dist = glm::length(center - view.eye);
  const float self_lowest = level.min_self_error * s * view.pixels_per_unit /
                            std::max(dist + level.self_reach * s, view.z_near);
  if (self_lowest * 0.999f > view.tau) return false;
  if (level.max_parent_error >= kRootError) return true;
  const float parent_highest = level.max_parent_error * s * view.pixels_per_unit /
                               std::max(dist - level.parent_reach * s, view.z_near);
  return parent_highest * 1.001f > view.tau;
}

bool cluster_faces_away(const Cluster& c, const glm::mat4& world, const glm::vec3& eye) {
  if (!(c.cone_cutoff < 1.0f)) return false;
  const glm::vec3 c0(world[0]), c1(world[1]), c2(world[2]);
  const float n0 = glm::dot(c0, c0), n1 = glm::dot(c1, c1), n2 = glm::dot(c2, c2);
  // Column norms equal to 1 part in 10,000 (their squares to 2 parts): a similarity.
  if (std::max({n0, n1, n2}) > std::min({n0, n1, n2}) * 1.0002f) return false;
  // A mirror turns the triangles' back faces to the front: the cone says nothing then.
  if (glm::dot(c0, glm::cross(c1, c2)) <= 0.0f) return false;
  const glm::vec3 apex = glm::vec3(world * glm::vec4(c.cone_apex, 1.0f));
  const glm::vec3 axis =
      glm::normalize(c0 * c.cone_axis.x + c1 * c.cone_axis.y + c2 * c.cone_axis.z);
  return glm::dot(glm::normalize(apex - eye), axis) >= c.cone_cutoff + kConeMargin;
}

std::vector<uint32_t> select_cut(const ClusterHierarchy& h, const glm::mat4& world,
                                 const LodView& view) {
  std::vector<uint32_t> cut;
  for (uint32_t i = 0; i < h.clusters.size(); ++i)
    if (cluster_in_cut(h.clusters[i], world, view)) cut.push_back(i);
  return cut;
}

}  // namespace bindery::gpu_driven
