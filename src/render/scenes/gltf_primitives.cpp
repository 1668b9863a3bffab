// SPDX-License-Identifier: MIT
// The glTF loader's primitives (gltf_loader.hpp, build_mesh and its steps): each drawn
// primitive becomes one Mesh, built once: accessors decoded once per model and charged to the
// geometry budget, attribute component types as the glTF 2.0 core table and, where the file
// uses it, KHR_mesh_quantization's, every value finite; triangles as gltf_mesh.hpp makes them
// (strips, fans, flat normals, mirrored copies, double-sided back faces).
#include "gltf_loader.hpp"
#include "gltf_mesh.hpp"

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>

namespace bindery::gltf {
namespace {

uint8_t to_unorm8(double v) {
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

// Whether some triangle of `mesh` has a non-zero area in object space: the cross product of two
// edges, in double from the float positions, is not the zero vector.
bool has_area(const Mesh& mesh) {
  for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    const glm::dvec3 a(mesh.vertices[mesh.indices[t]].position),
        b(mesh.vertices[mesh.indices[t + 1]].position),
        c(mesh.vertices[mesh.indices[t + 2]].position);
    if (glm::cross(b - a, c - a) != glm::dvec3(0.0)) return true;
  }
  return false;
}

}  // namespace

// Adds `bytes` (what `what` needs, `detail` saying how) to the model's decoded geometry, refused
// before anything is allocated when the sum exceeds the geometry budget.
void GltfLoader::charge_geometry(uint64_t bytes, const std::string& what,
                                 const std::string& detail) {
  const uint64_t budget = options_.geometry_budget_bytes;
  if (bytes > budget || geometry_bytes_ > budget - bytes)
    fail(path_, fmt::format("{} needs {:.1f} MiB ({}), which with the model's geometry before it "
                            "({:.1f} MiB) exceeds the model's geometry budget of {:.1f} MiB "
                            "(decoded accessors and meshes; raise it with --geometry-budget-mib "
                            "or GltfLoadOptions::geometry_budget_bytes)",
                            what, bytes / 1048576.0, detail, geometry_bytes_ / 1048576.0,
                            budget / 1048576.0));
  geometry_bytes_ += bytes;
}

// Accessor `index` decoded (read_accessor), once per model however many primitives use it; its
// decoded values (8 bytes a component) are charged to the geometry budget before decoding.
const AccessorData& GltfLoader::accessor(int index, const std::string& role) {
  if (auto it = accessors_.find(index); it != accessors_.end()) return it->second;
  if (index >= 0 && size_t(index) < model_.accessors.size()) {
    const tinygltf::Accessor& a = model_.accessors[index];
    const int comps = tinygltf::GetNumComponentsInType(a.type);
    if (a.count <= kMaxAccessorCount && comps > 0)  // else read_accessor refuses it
      charge_geometry(
          uint64_t(a.count) * uint64_t(comps) * sizeof(double),
          fmt::format("{} accessor {}", role, index),
          fmt::format("{} elements of {} components, decoded at 8 bytes each", a.count, comps));
  }
  return accessors_.emplace(index, read_accessor(model_, index, path_, role)).first->second;
}

// The bytes of the Mesh build_mesh makes of `p` (vertices of sizeof(Vertex), 4-byte indices),
// from the accessors' counts alone: one vertex per POSITION element, or three per triangle for
// flat normals; twice as many of both when double-sided. `detail` receives the counts.
uint64_t GltfLoader::mesh_bytes(const tinygltf::Primitive& p, int mode, bool double_sided,
                                std::string& detail) const {
  auto count_of = [&](int index) -> uint64_t {
    return index >= 0 && size_t(index) < model_.accessors.size()
               ? uint64_t(model_.accessors[index].count)
               : 0;
  };
  auto pos = p.attributes.find("POSITION");
  const uint64_t positions = pos == p.attributes.end() ? 0 : count_of(pos->second);
  const uint64_t n = p.indices >= 0 ? count_of(p.indices) : positions;
  const uint64_t triangles = mode == gltf::kTriangles ? n / 3 : (n >= 3 ? n - 2 : 0);
  const uint64_t sides = double_sided ? 2 : 1;
  const uint64_t vertices = (p.attributes.count("NORMAL") ? positions : 3 * triangles) * sides;
  const uint64_t indices = 3 * triangles * sides;
  detail = fmt::format("{} vertices of {} bytes and {} indices of 4 bytes", vertices,
                       sizeof(Vertex), indices);
  return vertices * sizeof(Vertex) + indices * 4;
}

// One attribute of a primitive: read, its component count and type checked (glTF 2.0 "Meshes"
// and KHR_mesh_quantization), every value finite (glTF 2.0 "Accessors": no NaN or infinity).
const AccessorData* GltfLoader::read_attribute(const tinygltf::Primitive& p,
                                               const std::string& what, const std::string& name,
                                               Semantic semantic,
                                               std::initializer_list<size_t> components) {
  auto it = p.attributes.find(name);
  if (it == p.attributes.end()) return nullptr;
  const std::string role = fmt::format("{} {}", what, name);
  stage_ = fmt::format("reading {} (accessor {})", role, it->second);
  const AccessorData& d = accessor(it->second, role);
  if (std::find(components.begin(), components.end(), d.components) == components.end())
    fail(path_, fmt::format("{} accessor {} has {} components per element; {} takes {}", role,
                            it->second, d.components, name, fmt::join(components, " or ")));
  if (!component_type_allowed(semantic, d.component_type, d.normalized, quantization_))
    fail(path_, fmt::format("{} accessor {} is {}{}; glTF 2.0 allows {}{}", role, it->second,
                            d.normalized ? "normalized " : "",
                            component_type_name(d.component_type), allowed_text(semantic),
                            quantization_ || semantic == Semantic::color
                                ? ""
                                : " (the file does not use KHR_mesh_quantization)"));
  for (size_t i = 0; i < d.values.size(); ++i)
    if (!std::isfinite(d.values[i]))
      fail(path_, fmt::format("{} {} is not finite (glTF 2.0 accessors hold no NaN or infinity)",
                              role, i / d.components));
  return &d;
}

// glTF 2.0 "Materials", textureInfo.texCoord: a primitive has the TEXCOORD_n of every texture
// its material names (bindery samples the base colour texture; the rule holds for all five).
void GltfLoader::check_texcoords(const tinygltf::Primitive& p, const tinygltf::Material& m,
                                 const std::string& what) {
  const std::pair<const char*, std::pair<int, int>> textures[] = {
      {"pbrMetallicRoughness.baseColorTexture",
       {m.pbrMetallicRoughness.baseColorTexture.index,
        m.pbrMetallicRoughness.baseColorTexture.texCoord}},
      {"pbrMetallicRoughness.metallicRoughnessTexture",
       {m.pbrMetallicRoughness.metallicRoughnessTexture.index,
        m.pbrMetallicRoughness.metallicRoughnessTexture.texCoord}},
      {"normalTexture", {m.normalTexture.index, m.normalTexture.texCoord}},
      {"occlusionTexture", {m.occlusionTexture.index, m.occlusionTexture.texCoord}},
      {"emissiveTexture", {m.emissiveTexture.index, m.emissiveTexture.texCoord}},
  };
  for (const auto& [field, info] : textures) {
    const std::string name = fmt::format("TEXCOORD_{}", info.second);
    if (info.first < 0 || p.attributes.count(name)) continue;
    fail(path_, fmt::format("{}: material {}'s {} reads {} (texCoord {}), which the primitive "
                            "does not have (glTF 2.0: a primitive has the texture coordinates its "
                            "material's textures name)",
                            what, p.material, field, name, info.second));
  }
}

// glTF 2.0 "Meshes": NORMAL vectors are unit length. A zero one has no direction to light by;
// the primitive is drawn, with one warning.
void GltfLoader::warn_zero_normals(const Mesh& mesh, const std::string& what) {
  const size_t zero =
      size_t(std::count_if(mesh.vertices.begin(), mesh.vertices.end(),
                           [](const Vertex& v) { return v.normal == glm::vec3(0); }));
  if (zero > 0)
    warn_once(
        fmt::format("{}: {} of its {} NORMAL vectors are (0, 0, 0), not unit length (glTF "
                    "2.0); the lighting of those vertices is undefined",
                    what, zero, mesh.vertices.size()));
}

// A primitive's vertices: POSITION (bounds kept, their extent finite in float), the base colour
// texture's TEXCOORD_n, NORMAL and COLOR_0, each with one element per vertex.
void GltfLoader::build_vertices(Mesh& mesh, const tinygltf::Primitive& p,
                                const tinygltf::Material& material, const std::string& what) {
  const AccessorData* pos = read_attribute(p, what, "POSITION", Semantic::position, {3});
  if (!pos) fail(path_, what + " has no POSITION attribute");
  const size_t vertex_count = pos->count;
  auto check_count = [&](const AccessorData* d, const std::string& name) {
    if (d && d->count != vertex_count)
      fail(path_, fmt::format("{}: {} has {} elements, POSITION {} (one per vertex required)", what,
                              name, d->count, vertex_count));
  };
  const std::string texcoord_name =
      fmt::format("TEXCOORD_{}", material.pbrMetallicRoughness.baseColorTexture.texCoord);
  const AccessorData* uv = read_attribute(p, what, texcoord_name, Semantic::texcoord, {2});
  const AccessorData* normal = read_attribute(p, what, "NORMAL", Semantic::normal, {3});
  const AccessorData* color = read_attribute(p, what, "COLOR_0", Semantic::color, {3, 4});
  check_count(uv, texcoord_name);
  check_count(normal, "NORMAL");
  check_count(color, "COLOR_0");
  check_texcoords(p, material, what);

  mesh.vertices.resize(vertex_count);
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (size_t i = 0; i < vertex_count; ++i) {
    Vertex& v = mesh.vertices[i];
    v.position = glm::vec3(pos->get(i, 0), pos->get(i, 1), pos->get(i, 2));
    if (!std::isfinite(v.position.x) || !std::isfinite(v.position.y) ||
        !std::isfinite(v.position.z))
      fail(path_, fmt::format("{}: POSITION {} is not finite", what, i));
    lo = glm::min(lo, v.position);
    hi = glm::max(hi, v.position);
    if (uv) v.texcoord = glm::vec2(uv->get(i, 0), uv->get(i, 1));
    if (normal) v.normal = glm::vec3(normal->get(i, 0), normal->get(i, 1), normal->get(i, 2));
    if (color)
      v.color = glm::u8vec4(to_unorm8(color->get(i, 0)), to_unorm8(color->get(i, 1)),
                            to_unorm8(color->get(i, 2)),
                            color->components == 4 ? to_unorm8(color->get(i, 3)) : 255);
  }
  if (normal) warn_zero_normals(mesh, what);
  mesh.bounds_min = vertex_count ? lo : glm::vec3(0);
  mesh.bounds_max = vertex_count ? hi : glm::vec3(0);
  const glm::vec3 extent = mesh.bounds_max - mesh.bounds_min;
  if (!std::isfinite(extent.x) || !std::isfinite(extent.y) || !std::isfinite(extent.z))
    fail(path_, fmt::format("{}: the POSITION extent (max - min) overflows 32-bit float", what));
}

// The primitive's vertex sequence: its indices (each below `vertex_count`), or 0..count-1.
std::vector<uint32_t> GltfLoader::vertex_sequence(const tinygltf::Primitive& p, size_t vertex_count,
                                                  const std::string& what) {
  std::vector<uint32_t> sequence;
  if (p.indices < -1)
    fail(path_, fmt::format("{}: indices accessor {} does not exist", what, p.indices));
  if (p.indices < 0) {
    sequence.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) sequence[i] = static_cast<uint32_t>(i);
    return sequence;
  }
  stage_ = fmt::format("reading {} indices (accessor {})", what, p.indices);
  const AccessorData& idx = accessor(p.indices, what + " indices");
  if (idx.components != 1 || (idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
                              idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
                              idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT))
    fail(path_, fmt::format("{}: indices accessor {} is not UNSIGNED_BYTE, UNSIGNED_SHORT or "
                            "UNSIGNED_INT scalars",
                            what, p.indices));
  sequence.resize(idx.count);
  for (size_t i = 0; i < idx.count; ++i) {
    const double v = idx.values[i];
    if (v >= double(vertex_count))
      fail(path_, fmt::format("{}: index {} = {} is out of range (vertex count {})", what, i,
                              static_cast<uint64_t>(v), vertex_count));
    sequence[i] = static_cast<uint32_t>(v);
  }
  return sequence;
}

// One Mesh per (glTF mesh, primitive, mirrored) drawn, built once; kSkipped for primitives
// bindery does not draw (points, lines, nothing whole to draw), with a warning.
uint32_t GltfLoader::build_mesh(int mesh_index, int prim_index, bool mirrored) {
  const auto key = std::make_tuple(mesh_index, prim_index, mirrored);
  if (auto it = mesh_of_primitive_.find(key); it != mesh_of_primitive_.end()) return it->second;
  const tinygltf::Primitive& p = model_.meshes[mesh_index].primitives[prim_index];
  const std::string what = fmt::format("mesh {} primitive {}", mesh_index, prim_index);
  stage_ = "reading " + what;
  const int mode = p.mode < 0 ? gltf::kTriangles : p.mode;
  if (gltf::mode_name(mode).empty())
    fail(path_, fmt::format("{}: mode {} is not a glTF primitive mode (0..6)", what, p.mode));
  if (mode != gltf::kTriangles && mode != gltf::kTriangleStrip && mode != gltf::kTriangleFan) {
    warn_once(fmt::format("{}: mode {} ({}) skipped: bindery draws triangles only", what, mode,
                          gltf::mode_name(mode)));
    return mesh_of_primitive_[key] = kSkipped;
  }
  if (p.material >= 0 && size_t(p.material) >= model_.materials.size())
    fail(path_, fmt::format("{} names material {}, which does not exist ({} materials)", what,
                            p.material, model_.materials.size()));
  const tinygltf::Material& material =
      p.material >= 0 ? model_.materials[p.material] : default_gltf_material_;

  // An accessor past bindery's element limit is refused as that, before the budget it would
  // also exceed (whose advice, raising it, would not help).
  for (int index : {p.indices, p.attributes.count("POSITION") ? p.attributes.at("POSITION") : -1})
    if (index >= 0 && size_t(index) < model_.accessors.size() &&
        model_.accessors[index].count > kMaxAccessorCount)
      fail(path_, fmt::format("{}: accessor {}: count {} exceeds bindery's limit of {} elements "
                              "per accessor",
                              what, index, model_.accessors[index].count, kMaxAccessorCount));
  std::string detail;
  const uint64_t bytes = mesh_bytes(p, mode, material.doubleSided, detail);
  charge_geometry(bytes, what + (mirrored ? " (mirrored copy)" : ""), detail);
  Mesh mesh;
  mesh.name = fmt::format("{}/{}", model_.meshes[mesh_index].name, prim_index);
  build_vertices(mesh, p, material, what);
  const std::vector<uint32_t> sequence = vertex_sequence(p, mesh.vertices.size(), what);
  stage_ = "building the triangles of " + what;
  mesh.indices = gltf::triangle_list(mode, sequence);
  if (mode == gltf::kTriangles && sequence.size() % 3 != 0)
    warn_once(fmt::format("{}: {} vertices are not whole triangles; the last {} ignored", what,
                          sequence.size(), sequence.size() % 3));
  if (mesh.indices.empty()) {  // nothing to draw: skipped (a draw of 0 indices binds 0 bytes)
    warn_once(
        fmt::format("{}: {} vertices make no whole triangle; skipped", what, sequence.size()));
    return mesh_of_primitive_[key] = kSkipped;
  }
  if (!has_area(mesh)) {  // draws no pixel: skipped like a primitive without a whole triangle
    warn_once(
        fmt::format("{}: none of its {} triangles has a non-zero area (corners equal or "
                    "on one line); skipped",
                    what, mesh.indices.size() / 3));
    return mesh_of_primitive_[key] = kSkipped;
  }
  if (p.attributes.count("NORMAL") == 0)
    gltf::make_flat_normals(mesh);                       // "Meshes": flat normals when missing
  if (mirrored) gltf::reverse_winding(mesh.indices);     // "Transformations": det < 0
  if (material.doubleSided) gltf::add_back_faces(mesh);  // "Double Sided"
  mesh.index16 = mesh.vertices.size() <= 65536;
  scene_.meshes.push_back(std::move(mesh));
  return mesh_of_primitive_[key] = static_cast<uint32_t>(scene_.meshes.size() - 1);
}

}  // namespace bindery::gltf
