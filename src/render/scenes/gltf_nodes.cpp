// SPDX-License-Identifier: MIT
// The glTF loader's nodes (gltf_loader.hpp, stages 4 and 5): the node hierarchy walked with every
// world matrix checked finite in float (in double until the model is recentred), the copies
// placed on a grid near the origin, far meshes recentred, and a camera that frames them.
#include "bindery/core/limits.hpp"
#include "gltf_loader.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace bindery::gltf {
namespace {

constexpr int kMaxNodeDepth = 64;

// `v` as a float, refused when it is not finite as one (glTF 2.0 node transforms are floats).
float to_float(double v, const std::string& path, int node, const char* field, size_t i) {
  if (!(std::abs(v) <= double(FLT_MAX)))
    fail(path, fmt::format("node {}: {}[{}] = {} is not finite as a 32-bit float (glTF node "
                           "transforms are floats)",
                           node, field, i, v));
  return static_cast<float>(v);
}

// Whether every entry of `m` is finite as a 32-bit float (what reaches the GPU).
bool all_finite(const glm::dmat4& m) {
  const double* p = glm::value_ptr(m);
  return std::all_of(p, p + 16, [](double v) { return std::abs(v) <= double(FLT_MAX); });
}

// The node's local matrix (glTF 2.0 "Transformations": matrix, or T * R * S), refused naming the
// node when a value or the composed matrix is not finite in float. In double: a model placed far
// from the origin (georeferenced files sit at 1e5..1e7) keeps every bit of a child's offset when
// the hierarchy is composed and the model is brought back to the origin (place_instances), before
// anything is rounded to float.
glm::dmat4 local_matrix(const tinygltf::Node& n, int node, const std::string& path) {
  auto vec = [&](const std::vector<double>& v, const char* field) {
    for (size_t i = 0; i < v.size(); ++i) to_float(v[i], path, node, field, i);
    return v;
  };
  glm::dmat4 m(1.0);
  if (n.matrix.size() == 16) {
    const std::vector<double> f = vec(n.matrix, "matrix");
    std::copy(f.begin(), f.end(), glm::value_ptr(m));
    return m;
  }
  if (n.translation.size() == 3) {
    const std::vector<double> t = vec(n.translation, "translation");
    m = glm::translate(m, glm::dvec3(t[0], t[1], t[2]));
  }
  if (n.rotation.size() == 4) {
    const std::vector<double> r = vec(n.rotation, "rotation");
    m *= glm::mat4_cast(glm::dquat(r[3], r[0], r[1], r[2]));
  }
  if (n.scale.size() == 3) {
    const std::vector<double> s = vec(n.scale, "scale");
    m = glm::scale(m, glm::dvec3(s[0], s[1], s[2]));
  }
  if (!all_finite(m))
    fail(path, fmt::format("node {}: its translation, rotation and scale compose to a matrix that "
                           "is not finite in 32-bit float",
                           node));
  return m;
}

}  // namespace

// Visits `node` under the world matrix `parent`: its primitives become Parts.
void GltfLoader::visit(int node, const glm::dmat4& parent) {
  if (node < 0 || size_t(node) >= model_.nodes.size())
    fail(path_, fmt::format("node {} does not exist ({} nodes)", node, model_.nodes.size()));
  if (std::find(stack_.begin(), stack_.end(), node) != stack_.end())
    fail(path_, fmt::format("node {} is its own ancestor (the node hierarchy has a cycle)", node));
  if (stack_.size() >= size_t(kMaxNodeDepth))
    fail(path_, fmt::format("node hierarchy deeper than {} levels", kMaxNodeDepth));
  stack_.push_back(node);
  const tinygltf::Node& n = model_.nodes[node];
  const glm::dmat4 world = parent * local_matrix(n, node, path_);
  if (!all_finite(world))
    fail(path_, fmt::format("node {}: its world matrix (its transform times its ancestors') is "
                            "not finite in 32-bit float",
                            node));
  if (n.mesh >= 0) {
    if (size_t(n.mesh) >= model_.meshes.size())
      fail(path_, fmt::format("node {} names mesh {} which does not exist", node, n.mesh));
    // "Transformations": a negative determinant mirrors; its front faces are clockwise.
    const bool mirrored = glm::determinant(glm::dmat3(world)) < 0.0;
    const auto& prims = model_.meshes[n.mesh].primitives;
    for (size_t p = 0; p < prims.size(); ++p) {
      const uint32_t mesh = build_mesh(n.mesh, static_cast<int>(p), mirrored);
      if (mesh == kSkipped) continue;
      const int mat = prims[p].material;
      parts_.push_back({mesh, mat >= 0 ? uint32_t(mat) : default_material_, world, node});
    }
  }
  for (int child : n.children) visit(child, world);
  stack_.pop_back();
}

// glTF 2.0 "Nodes and Hierarchy": the node hierarchy is a set of disjoint strict trees. Returns
// each node's parent (-1 for none), refusing a node with two parents and a cycle anywhere (a
// node found again while following parents up from it).
std::vector<int> GltfLoader::node_parents() {
  std::vector<int> parent(model_.nodes.size(), -1);
  for (size_t i = 0; i < model_.nodes.size(); ++i)
    for (int c : model_.nodes[i].children) {
      if (c < 0 || size_t(c) >= parent.size()) continue;  // refused by the JSON pass
      if (parent[c] >= 0)
        fail(path_, fmt::format("node {} has more than one parent (nodes {} and {} list it); glTF "
                                "node hierarchies are disjoint trees",
                                c, parent[c], i));
      parent[c] = static_cast<int>(i);
    }
  std::vector<uint8_t> state(parent.size(), 0);  // 0 unseen, 1 on the current walk, 2 rooted
  std::vector<int> walk;
  for (size_t i = 0; i < parent.size(); ++i) {
    walk.clear();
    int n = static_cast<int>(i);
    while (n >= 0 && state[n] == 0) {
      state[n] = 1;
      walk.push_back(n);
      n = parent[n];
    }
    if (n >= 0 && state[n] == 1)
      fail(path_, fmt::format("node {} is its own ancestor (the node hierarchy has a cycle; glTF "
                              "node hierarchies are strict trees)",
                              n));
    for (int w : walk) state[w] = 2;
  }
  return parent;
}

// The default scene's root nodes; without scenes, every node that is no other node's child.
// glTF 2.0 "Scenes": scene.nodes are unique and each is a root (no node's child); otherwise a
// node would be drawn once per path to it.
std::vector<int> GltfLoader::scene_roots() {
  const std::vector<int> parent = node_parents();
  if (model_.defaultScene >= 0 && size_t(model_.defaultScene) >= model_.scenes.size())
    fail(path_, fmt::format("the default scene {} does not exist ({} scenes)", model_.defaultScene,
                            model_.scenes.size()));
  std::vector<int> roots;
  if (model_.scenes.empty()) {
    for (size_t i = 0; i < model_.nodes.size(); ++i)
      if (parent[i] < 0) roots.push_back(static_cast<int>(i));
    return roots;
  }
  const int scene_index = model_.defaultScene >= 0 ? model_.defaultScene : 0;
  roots = model_.scenes[scene_index].nodes;
  std::vector<bool> listed(model_.nodes.size(), false);
  for (int r : roots) {
    if (r < 0 || size_t(r) >= listed.size()) continue;  // refused by the JSON pass
    if (listed[r])
      fail(path_, fmt::format("scene {} lists node {} more than once (glTF 2.0: scene.nodes are "
                              "unique)",
                              scene_index, r));
    listed[r] = true;
    if (parent[r] >= 0)
      fail(path_, fmt::format("scene {} lists node {} as a root, but it is a child of node {} "
                              "(glTF 2.0: a scene's root nodes are no node's children)",
                              scene_index, r, parent[r]));
  }
  return roots;
}

// Stage 4: one copy of the model: (mesh, material, node world matrix) per drawn primitive.
void GltfLoader::walk_nodes() {
  stage_ = "walking the node hierarchy";
  for (int r : scene_roots()) visit(r, glm::dmat4(1.0));
  accessors_.clear();  // every mesh is built
  if (parts_.empty())
    fail(path_, scene_.warnings.empty()
                    ? std::string("the scene has no triangle primitives to draw")
                    : fmt::format("the scene has no triangle primitives to draw ({})",
                                  fmt::join(scene_.warnings, "; ")));
}

// Stage 5: `instances_` copies on a square grid in the XZ plane, centred on the origin; the
// model's bounds (model space after node transforms) and every placement finite in float. The
// bounds, the centre and each placement are computed in double and rounded to float only once
// the model's centre has been subtracted: a model far from the origin (a cube at x = 1e7) gets a
// placement near the origin, so that every strategy's float matrices keep the model's detail.
void GltfLoader::place_instances() {
  stage_ = "placing the instances";
  recentre_far_meshes();
  glm::dvec3 lo(INFINITY), hi(-INFINITY);
  for (const Part& p : parts_) {
    const Mesh& m = scene_.meshes[p.mesh];
    for (int c = 0; c < 8; ++c) {
      const glm::dvec3 corner((c & 1) ? m.bounds_max.x : m.bounds_min.x,
                              (c & 2) ? m.bounds_max.y : m.bounds_min.y,
                              (c & 4) ? m.bounds_max.z : m.bounds_min.z);
      const glm::dvec3 w = glm::dvec3(p.world * glm::dvec4(corner, 1.0));
      if (!(std::abs(w.x) <= FLT_MAX && std::abs(w.y) <= FLT_MAX && std::abs(w.z) <= FLT_MAX))
        fail(path_, fmt::format("node {}: its mesh's bounds under its world matrix are not "
                                "finite in 32-bit float",
                                p.node));
      lo = glm::min(lo, w);
      hi = glm::max(hi, w);
    }
  }
  // A flat model's missing side is a thousandth of its largest (its size, not an absolute floor:
  // a model 1e-5 across is framed as closely as one 1e5 across).
  const double largest = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  const glm::dvec3 extent = glm::max(hi - lo, glm::dvec3(std::max(largest * 1e-3, 1e-30)));
  extent_ = glm::vec3(extent);
  const glm::dvec3 center = (lo + hi) * 0.5;  // no overflow in double: |lo|, |hi| <= FLT_MAX
  warn_far_from_origin(lo, hi);
  spacing_ = std::max({extent_.x, extent_.z}) * 1.25f;
  side_ = static_cast<uint32_t>(std::ceil(std::sqrt(double(instances_))));
  const float reach = (float(side_) - 1) * 0.5f * spacing_;
  if (!std::isfinite(extent_.x) || !std::isfinite(extent_.y) || !std::isfinite(extent_.z) ||
      !std::isfinite(reach))
    fail(path_, fmt::format("the model's bounds ({}, {}, {}) .. ({}, {}, {}) placed {} times on a "
                            "grid are not finite in 32-bit float",
                            lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, instances_));

  if (uint64_t(parts_.size()) * instances_ > kMaxObjects)
    throw Error(
        ErrorKind::SceneInput,
        fmt::format("glTF scene: {} instances x {} drawn primitives = {} objects exceeds "
                    "the maximum {}",
                    instances_, parts_.size(), uint64_t(parts_.size()) * instances_, kMaxObjects));
  for (uint32_t k = 0; k < instances_; ++k) {
    const double gx = (double(k % side_) - (side_ - 1) * 0.5) * double(spacing_);
    const double gz = (double(k / side_) - (side_ - 1) * 0.5) * double(spacing_);
    const glm::dmat4 place = glm::translate(glm::dmat4(1.0), glm::dvec3(gx, 0, gz) - center);
    for (const Part& p : parts_) {
      const glm::dmat4 placement = place * p.world;
      if (!all_finite(placement))
        fail(path_, fmt::format("node {}: its placement on the grid is not finite in 32-bit float",
                                p.node));
      Object o;
      o.mesh = p.mesh;
      o.material = p.material;
      o.placement = glm::mat4(placement);
      o.animated = false;
      scene_.objects.push_back(o);
    }
  }
}

// A mesh whose vertices lie far from its own origin (a georeferenced primitive at x = 1e6 with
// corners 1 apart) is moved to its bounds' centre c: every vertex position becomes p - c (exact
// in float: p and c agree in sign and within a factor of two on every coordinate that is far) and
// each part drawing it gets translate(c) in its double world matrix, so that a node's rotation or
// scale is applied on the GPU to small numbers. Far: the centre is more than 16 times the mesh's
// largest side from the origin; nearer meshes are left as the file has them.
void GltfLoader::recentre_far_meshes() {
  std::vector<glm::dvec3> shift(scene_.meshes.size(), glm::dvec3(0.0));
  for (size_t i = 0; i < scene_.meshes.size(); ++i) {
    Mesh& m = scene_.meshes[i];
    const glm::vec3 c = m.bounds_min * 0.5f + m.bounds_max * 0.5f;
    const glm::vec3 size = m.bounds_max - m.bounds_min;
    const float far = std::max({std::abs(c.x), std::abs(c.y), std::abs(c.z)});
    if (!(far > 16.0f * std::max({size.x, size.y, size.z, 1e-30f}))) continue;
    for (Vertex& v : m.vertices) v.position -= c;
    m.bounds_min -= c;
    m.bounds_max -= c;
    shift[i] = glm::dvec3(c);
  }
  for (Part& p : parts_)
    if (shift[p.mesh] != glm::dvec3(0.0)) p.world = glm::translate(p.world, shift[p.mesh]);
}

// Where float32 stops holding the model: vertex positions are float32 in the file, and
// float32's spacing at a coordinate of magnitude m is ulp(m) = 2^(floor(log2 m) - 23) (1/16 at
// 1e6, 1 at 1e7, 2 from 2^24 = 16,777,216). bindery composes nodes and recentres the model in
// double, so what it draws is exactly what the file holds; but where the spacing at the model's
// farthest coordinate exceeds 1/1024 of the model's largest side (a pixel at 1024 pixels across),
// the file itself cannot hold finer detail than that spacing, and Scene::warnings says so. (A
// unit cube at 1e4 is within; at 1e5 its corners are still exact, but detail below 1/128 is not.)
void GltfLoader::warn_far_from_origin(const glm::dvec3& lo, const glm::dvec3& hi) {
  const double far = std::max({std::abs(lo.x), std::abs(lo.y), std::abs(lo.z), std::abs(hi.x),
                               std::abs(hi.y), std::abs(hi.z)});
  const double side = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  if (!(far > 0.0) || !(side > 0.0)) return;
  const double spacing = std::ldexp(1.0, std::ilogb(far) - 23);
  if (spacing > side / 1024.0)
    warn_once(fmt::format(
        "the model lies {:g} units from the origin, where 32-bit float positions are {:g} apart "
        "(more than 1/1024 of its size {:g}): its own detail is only as fine as that spacing",
        far, spacing, side));
}

// Camera: the article's viewing direction, far enough for the grid's bounding sphere.
void GltfLoader::place_camera() {
  const float half_w = (side_ - 1) * spacing_ * 0.5f + extent_.x * 0.5f;
  const float half_d = (side_ - 1) * spacing_ * 0.5f + extent_.z * 0.5f;
  float radius = std::sqrt(half_w * half_w + half_d * half_d + extent_.y * extent_.y * 0.25f);
  if (!std::isfinite(radius))  // squares beyond float (sides over 1e19): summed in double
    radius = float(std::sqrt(double(half_w) * half_w + double(half_d) * half_d +
                             double(extent_.y) * extent_.y * 0.25));
  const glm::vec3 dir = glm::normalize(glm::vec3(100.0f, 150.0f, 200.0f));
  const float distance = radius / std::sin(glm::radians(scene_.view.fov_y_degrees * 0.5f)) * 0.9f;
  if (!(double(distance) + 2.0 * double(radius) <= kMaxWorldCoordinate))
    fail(path_, fmt::format("a camera framing the model's {} copies (bounding radius {:g}) lies "
                            "{:g} world units away; bindery draws within +-{:g} "
                            "(kMaxWorldCoordinate), where float32's squared distances do not "
                            "overflow",
                            instances_, radius, double(distance) + 2.0 * double(radius),
                            kMaxWorldCoordinate));
  scene_.view.target = glm::vec3(0.0f);
  scene_.view.eye = dir * distance;
  scene_.view.near_plane = std::max(distance * 0.01f, distance - radius * 2.0f);
  scene_.view.far_plane = distance + radius * 2.0f;
  scene_.view.light_world_position = scene_.view.eye + glm::vec3(-radius, radius, 0.0f);
}

}  // namespace bindery::gltf
