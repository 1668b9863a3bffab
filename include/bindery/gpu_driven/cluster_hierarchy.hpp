// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/cluster_hierarchy.hpp — a mesh as a hierarchy of clusters for continuous
/// level of detail (built on the CPU at load; drawn by ClusterCulling).
///
/// Level 0 splits the mesh into clusters of at most ClusterBuildDesc::max_triangles triangles.
/// Each level then groups neighbouring clusters (about group_size of them, by shared vertices),
/// simplifies each group over welded positions with its outer border locked (so that neighbouring groups still meet
/// edge for edge), and splits the result into new clusters. A group carries one error (object
/// units: the simplifier's deviation from the surface, at least the largest error of the clusters
/// it was made from) and one bounding sphere enclosing theirs. Each cluster keeps two such
/// (sphere, error) pairs: `self`, the group that made it (error 0 for level 0), and `parent`, the
/// group it was simplified in (error kRootError for a root). When the groups stop simplifying, or
/// one cluster is left, the remaining clusters form one group simplified without locked borders
/// (the mesh's own boundary aside) until at most root_triangles triangles are left: the terminal
/// form, whose error is what that last simplification moved the surface.
///
/// The cut for a pixel error tau: a cluster is drawn when its self error projects to at most tau
/// pixels and its parent's to more (cluster_in_cut()). Errors never decrease and spheres only grow
/// towards the root, so each point of the surface is covered by exactly one drawn cluster for any
/// tau, and tau = 0 draws exactly level 0 (the full-detail triangles). This is the design of
/// Unreal's Nanite (Karis, "Nanite: A Deep Dive", SIGGRAPH 2021), written here; meshoptimizer
/// provides the building blocks (meshopt_buildMeshlets, meshopt_computeMeshletBounds,
/// meshopt_simplify with meshopt_SimplifyLockBorder, meshopt_simplifySloppy).
#pragma once

#include <glm/glm.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bindery::gpu_driven {

/// The largest coordinate build_cluster_hierarchy() takes (object units): beyond, the squared
/// distances of the simplifier's error metric and of the bounding spheres overflow float32.
inline constexpr float kMaxClusterCoordinate = 1.0e18f;

/// ClusterBuildDesc::normal_offset_bytes for vertices without a normal.
inline constexpr uint32_t kNoNormals = UINT32_MAX;

/// How build_cluster_hierarchy() splits and simplifies.
struct ClusterBuildDesc {
  /// Triangles per cluster, 4..128 and a multiple of 4 (meshopt_buildMeshlets). The default is 128.
  uint32_t max_triangles = 128;
  /// Vertices per cluster, 3..255: a cluster's triangles index them with 8 bits. The default is
  /// 128.
  uint32_t max_vertices = 128;
  /// Clusters grouped for one simplification, 2..32. The default is 4.
  uint32_t group_size = 4;
  /// A group whose simplification keeps more than this fraction of its triangles did not simplify
  /// and is carried to the next level unchanged. The default is 0.85.
  float min_reduction = 0.85f;
  /// The terminal form stops at this many triangles (or when it stops shrinking), >= 1. The
  /// default is 4.
  uint32_t root_triangles = 4;
  /// Levels at most (a safety bound; 1 builds level 0 alone), 1..64. The default is 32.
  uint32_t max_levels = 32;
  /// Byte offset of a float32x3 normal inside each vertex (bindery::Vertex: 12), or kNoNormals.
  /// Groups are simplified over welded positions (vertices split by their attributes become one
  /// point), and each corner of a simplified triangle then takes the vertex of its position
  /// whose normal is nearest the triangle's: a flat-shaded box keeps its sides' normals and
  /// texture coordinates. The default is kNoNormals (the first vertex of the position).
  uint32_t normal_offset_bytes = kNoNormals;
};

/// The parent error of a root cluster: larger than any projected error, so a root is never
/// refined away.
inline constexpr float kRootError = 3.0e38f;

/// A sphere with the simplification error of the group it stands for (object space).
struct LodBounds {
  glm::vec3 center{0.0f};  ///< object space
  float radius = 0.0f;     ///< object units
  float error = 0.0f;      ///< object units; kRootError for a root's parent
};

/// One cluster: at most max_vertices vertices and max_triangles triangles of the mesh.
struct Cluster {
  uint32_t vertex_offset = 0;    ///< first entry in ClusterHierarchy::vertices
  uint32_t vertex_count = 0;     ///< entries from vertex_offset on
  uint32_t triangle_offset = 0;  ///< first entry in ClusterHierarchy::triangles
  uint32_t triangle_count = 0;   ///< entries from triangle_offset on, >= 1
  glm::vec4 sphere{0.0f};        ///< bounding sphere of its triangles: center xyz, radius w
  LodBounds self;                ///< the group that made it (level 0: its sphere, error 0)
  LodBounds parent;              ///< the group it was simplified in (root: error kRootError)
  uint32_t level = 0;            ///< the level that made it (0 = full detail)
  /// The cone of its triangles' normals (object space; meshopt_computeMeshletBounds): every
  /// triangle faces away from an eye e where dot(normalize(cone_apex - e), cone_axis) >=
  /// cone_cutoff. cone_cutoff = 1 where no such cone exists (normals spread over more than a
  /// hemisphere). cluster_faces_away() is the test.
  glm::vec3 cone_apex{0.0f};
  glm::vec3 cone_axis{0.0f, 0.0f, 1.0f};  ///< unit length
  float cone_cutoff = 1.0f;               ///< cosine, in [-1, 1]
};

/// The clusters one level made, and bounds of their errors for pruning whole levels per instance
/// (object space): a cluster c of the level has c.self.error >= min_self_error, c.parent.error <=
/// max_parent_error, and its spheres' farthest points lie within self_reach (self) and
/// parent_reach (parent) of the mesh's bounding-sphere center.
struct ClusterLevel {
  uint32_t first_cluster = 0;     ///< index into ClusterHierarchy::clusters
  uint32_t cluster_count = 0;     ///< clusters from first_cluster on
  float min_self_error = 0.0f;    ///< the smallest self error of the level's clusters
  float self_reach = 0.0f;        ///< the farthest point of their self spheres from the center
  float max_parent_error = 0.0f;  ///< kRootError when the level holds a root
  float parent_reach = 0.0f;      ///< the farthest point of their parent spheres from the center
};

/// What a build did, for reports.
struct ClusterHierarchyStats {
  std::vector<uint32_t> clusters_per_level;   ///< clusters each level made
  std::vector<uint32_t> triangles_per_level;  ///< their triangles
  uint32_t root_triangles = 0;                ///< triangles of the clusters whose parent is the root error
  uint32_t groups = 0;                        ///< groups simplified into a new level
  uint32_t groups_not_simplified = 0;         ///< groups carried unchanged (min_reduction)
  double build_ms = 0.0;                      ///< wall time of the build
};

/// A mesh's cluster hierarchy. Vertex numbers are the mesh's own (0 .. vertex_count-1); no vertex
/// is added (simplification only drops vertices).
struct ClusterHierarchy {
  std::vector<Cluster> clusters;  ///< sorted by level, level 0 first
  /// Per cluster, its vertices as mesh vertex numbers (Cluster::vertex_offset ..).
  std::vector<uint32_t> vertices;
  /// Per triangle three 8-bit corners into its cluster's vertices: a | b << 8 | c << 16,
  /// counter-clockwise as the source.
  std::vector<uint32_t> triangles;
  std::vector<ClusterLevel> levels;  ///< levels[l] spans the clusters of level l
  glm::vec4 sphere{0.0f};            ///< the mesh's bounding sphere (what reaches are measured from)
  ClusterHierarchyStats stats;       ///< what the build did

  /// Bytes of the three arrays as a GPU would hold them (what the hierarchy adds to the mesh).
  uint64_t bytes() const;
  /// The three corners (mesh vertex numbers) of triangle t of cluster c.
  glm::uvec3 corners(const Cluster& c, uint32_t t) const;
};

/// Builds the hierarchy of a triangle list: `positions` holds vertex_count float32x3 positions,
/// `stride_bytes` apart (>= 12, a multiple of 4), `indices` 3 per triangle, each < vertex_count.
/// Throws InvalidArgument (naming `name`, the rule and the value) for a bad desc, an empty mesh,
/// an index count not a multiple of 3, an index out of range, or a position that is not finite or
/// lies beyond kMaxClusterCoordinate. A triangle repeated (in any rotation) is simplified once.
ClusterHierarchy build_cluster_hierarchy(std::span<const std::byte> positions,
                                         uint32_t vertex_count, uint32_t stride_bytes,
                                         std::span<const uint32_t> indices,
                                         const ClusterBuildDesc& desc = {},
                                         std::string_view name = "mesh");

/// The camera terms of the cut, in world units: a sphere at distance d (from its nearest point,
/// at least z_near) and error e projects to e * pixels_per_unit / d pixels, where pixels_per_unit
/// = target height / 2 * projection[1][1] (a perspective projection).
struct LodView {
  glm::vec3 eye{0.0f};           ///< camera position, world space
  float pixels_per_unit = 1.0f;  ///< > 0
  float z_near = 0.01f;          ///< > 0, world units
  float tau = 1.0f;              ///< the pixel error allowed, >= 0
};

/// Projected error in pixels of `b` (object space) seen through `world` (whose largest column norm
/// scales radius and error) from `view`; kRootError errors give +infinity. The formula the GPU
/// uses (shaders/cluster_culling.wgsl).
float projected_error(const LodBounds& b, const glm::mat4& world, const LodView& view);
/// Whether cluster `c` of an instance at `world` is in the cut of `view`: its self error projects
/// to at most view.tau pixels and its parent's to more.
bool cluster_in_cut(const Cluster& c, const glm::mat4& world, const LodView& view);
/// Whether level `level` of a mesh (bounding sphere `mesh_sphere`, object space) may hold a cluster
/// of the cut for an instance at `world`: false only when every cluster of the level certainly
/// fails cluster_in_cut() (its self error projects to more than tau at the farthest distance the
/// level's reach allows, or its parent's to at most tau at the nearest), with a slack of 0.1% for
/// rounding. The instance stage of shaders/cluster_culling.wgsl tests only the levels that pass.
bool level_may_hold_cut(const ClusterLevel& level, const glm::vec4& mesh_sphere,
                        const glm::mat4& world, const LodView& view);
/// The margin on the cosine by which cluster_faces_away() stays short of the cone's edge, for
/// rounding: a cluster is culled only when dot(...) >= cone_cutoff + this.
inline constexpr float kConeMargin = 1.0e-3f;
/// Whether every triangle of cluster `c` of an instance at `world` faces away from `eye` (world
/// space), so that back-face culling (cullMode back, frontFace ccw, or the compute rasterizer)
/// would draw none of it. Exact for rotations, uniform scales and translations; false for a
/// world matrix whose column norms differ by more than 1 part in 10,000 (a non-uniform scale
/// bends the cone), for a mirror (a negative determinant turns the triangles' back faces to the
/// front, and the cone of the reversed normals is another cone), and for a cluster without a
/// cone. The test shaders/cluster_culling.wgsl runs.
bool cluster_faces_away(const Cluster& c, const glm::mat4& world, const glm::vec3& eye);
/// The clusters of `h` in the cut (indices into h.clusters, ascending): the CPU model of the GPU's
/// selection.
std::vector<uint32_t> select_cut(const ClusterHierarchy& h, const glm::mat4& world,
                                 const LodView& view);

}  // namespace bindery::gpu_driven
