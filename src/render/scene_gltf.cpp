// glTF 2.0 models as a Scene: every triangle primitive becomes a Mesh, every (node, primitive)
// pair of every instance an Object with its own material and a static placement on a grid.
// Accessors are bounds-checked here before any byte is read: a malformed file ends in one
// ModelLoad error naming the accessor and the rule it broke, never in a crash.
#include "bindery/error.hpp"
#include "bindery/scene.hpp"

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

namespace bindery {
namespace {

constexpr int kTriangles = 4;  // glTF primitive.mode TRIANGLES (the default)
constexpr int kMaxNodeDepth = 64;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::ModelLoad, fmt::format("glTF '{}': {}", path, what));
}

size_t component_size(int type) {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
      return 4;
    default:
      return 0;
  }
}

// A bounds-checked view of one accessor's elements.
struct AccessorView {
  const uint8_t* base = nullptr;
  size_t stride = 0, count = 0, components = 0, component_bytes = 0;
  int component_type = 0;
  bool normalized = false;

  double get(size_t i, size_t c) const {
    const uint8_t* p = base + i * stride + c * component_bytes;
    switch (component_type) {
      case TINYGLTF_COMPONENT_TYPE_FLOAT: {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
      }
      case TINYGLTF_COMPONENT_TYPE_SHORT: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? std::max(v / 32767.0, -1.0) : v;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
        return normalized ? p[0] / 255.0 : p[0];
      case TINYGLTF_COMPONENT_TYPE_BYTE: {
        int8_t v;
        std::memcpy(&v, p, 1);
        return normalized ? std::max(v / 127.0, -1.0) : v;
      }
    }
    return 0.0;
  }
};

AccessorView view_accessor(const tinygltf::Model& model, int index, const std::string& path,
                           const char* what) {
  if (index < 0 || size_t(index) >= model.accessors.size())
    fail(path, fmt::format("{} accessor {} does not exist ({} accessors)", what, index,
                           model.accessors.size()));
  const tinygltf::Accessor& a = model.accessors[index];
  if (a.sparse.isSparse)
    fail(path, fmt::format("{} accessor {} is sparse (not supported)", what, index));
  if (a.bufferView < 0 || size_t(a.bufferView) >= model.bufferViews.size())
    fail(path,
         fmt::format("{} accessor {} has no valid bufferView ({})", what, index, a.bufferView));
  const tinygltf::BufferView& bv = model.bufferViews[a.bufferView];
  if (bv.buffer < 0 || size_t(bv.buffer) >= model.buffers.size())
    fail(path, fmt::format("bufferView {} names buffer {} which does not exist", a.bufferView,
                           bv.buffer));
  const tinygltf::Buffer& buf = model.buffers[bv.buffer];
  AccessorView v;
  v.component_type = a.componentType;
  v.component_bytes = component_size(a.componentType);
  const int comps = tinygltf::GetNumComponentsInType(a.type);
  if (v.component_bytes == 0 || comps <= 0)
    fail(path, fmt::format("{} accessor {} has an invalid component type {} or type {}", what,
                           index, a.componentType, a.type));
  v.components = static_cast<size_t>(comps);
  v.normalized = a.normalized;
  v.count = a.count;
  const size_t elem = v.components * v.component_bytes;
  v.stride = bv.byteStride ? bv.byteStride : elem;
  if (v.stride < elem)
    fail(path,
         fmt::format("{} accessor {}: bufferView {} byteStride {} is smaller than the {}-byte "
                     "element (glTF 2.0 §3.6.2.4)",
                     what, index, a.bufferView, v.stride, elem));
  // glTF 2.0 §3.6.2.4: the view lies inside its buffer and the last element ends inside the
  // view. Every sum is checked against the buffer size first, so nothing can wrap around.
  const uint64_t buffer_size = buf.data.size();
  if (bv.byteOffset > buffer_size || bv.byteLength > buffer_size - bv.byteOffset)
    fail(path, fmt::format("bufferView {} (offset {} + length {}) exceeds buffer {} of {} bytes",
                           a.bufferView, bv.byteOffset, bv.byteLength, bv.buffer, buffer_size));
  if (v.count > 0) {
    const uint64_t view = bv.byteLength;
    const bool fits = a.byteOffset <= view && elem <= view - a.byteOffset &&
                      (v.count - 1) <= (view - a.byteOffset - elem) / v.stride;
    if (!fits)
      fail(path,
           fmt::format("{} accessor {}: {} elements of {} bytes at stride {} from offset {} "
                       "do not fit bufferView {} of {} bytes",
                       what, index, v.count, elem, v.stride, a.byteOffset, a.bufferView, view));
  }
  v.base = buf.data.data() + bv.byteOffset + a.byteOffset;
  return v;
}

glm::mat4 local_matrix(const tinygltf::Node& n) {
  if (n.matrix.size() == 16) {
    glm::mat4 m;
    for (int i = 0; i < 16; ++i) glm::value_ptr(m)[i] = static_cast<float>(n.matrix[i]);
    return m;
  }
  glm::mat4 m(1.0f);
  if (n.translation.size() == 3)
    m = glm::translate(m, glm::vec3(n.translation[0], n.translation[1], n.translation[2]));
  if (n.rotation.size() == 4)
    m *= glm::mat4_cast(glm::quat(float(n.rotation[3]), float(n.rotation[0]), float(n.rotation[1]),
                                  float(n.rotation[2])));
  if (n.scale.size() == 3) m = glm::scale(m, glm::vec3(n.scale[0], n.scale[1], n.scale[2]));
  return m;
}

// Converts a decoded tinygltf image to RGBA8 (8-bit images only).
std::vector<uint8_t> to_rgba8(const tinygltf::Image& img, const std::string& path) {
  if (img.bits != 8 || img.component < 1 || img.component > 4 || img.width <= 0 ||
      img.height <= 0 || img.image.size() < size_t(img.width) * img.height * img.component)
    fail(path,
         fmt::format("image '{}' is not a decoded 8-bit image ({}x{}, {} components, {} bits)",
                     img.name, img.width, img.height, img.component, img.bits));
  std::vector<uint8_t> out(size_t(img.width) * img.height * 4);
  for (size_t p = 0; p < size_t(img.width) * img.height; ++p) {
    const uint8_t* s = &img.image[p * img.component];
    uint8_t* d = &out[p * 4];
    switch (img.component) {
      case 1:
        d[0] = d[1] = d[2] = s[0];
        d[3] = 255;
        break;
      case 2:
        d[0] = d[1] = d[2] = s[0];
        d[3] = s[1];
        break;
      case 3:
        d[0] = s[0];
        d[1] = s[1];
        d[2] = s[2];
        d[3] = 255;
        break;
      default:
        std::memcpy(d, s, 4);
        break;
    }
  }
  return out;
}

// True when the file starts with the GLB magic "glTF" (binary glTF 2.0 §4.4.2), whatever its
// extension says.
bool has_glb_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && std::memcmp(magic, "glTF", 4) == 0;
}

Scene load_gltf(const std::string& path, uint32_t instances);

}  // namespace

Scene load_gltf_scene(const std::string& path, uint32_t instances) {
  if (instances == 0)
    throw Error(ErrorKind::SceneInput, "glTF scene: --instances must be at least 1");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(ErrorKind::Io, fmt::format("glTF '{}': no such file", path));
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorKind::Io, fmt::format("glTF '{}' is not a regular file", path));
  try {
    return load_gltf(path, instances);
  } catch (const std::bad_alloc&) {
    fail(path, "the model needs more memory than is available (counts or sizes too large)");
  } catch (const std::length_error&) {
    fail(path, "a count or size in the model is too large to load");
  }
}

namespace {

Scene load_gltf(const std::string& path, uint32_t instances) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  const bool binary = has_glb_magic(path);
  const bool ok = binary ? loader.LoadBinaryFromFile(&model, &err, &warn, path)
                         : loader.LoadASCIIFromFile(&model, &err, &warn, path);
  if (!ok) {
    std::string msg = err.empty() ? std::string("not a readable glTF 2.0 file") : err;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.pop_back();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    fail(path, msg);
  }
  for (const std::string& ext : model.extensionsRequired)
    fail(path, fmt::format("requires the extension {}, which bindery does not support", ext));

  Scene scene;
  scene.name = "gltf";
  scene.repeat_texcoords = true;  // glTF 2.0 §5.26: samplers wrap with REPEAT by default
  // Texture 0 is white: materials without a base colour texture sample it (factor only).
  scene.textures.push_back(make_texture_with_mips("white", 1, 1, {255, 255, 255, 255}));
  std::map<int, uint32_t> texture_of_image;
  auto texture_for = [&](int gltf_texture) -> uint32_t {
    if (gltf_texture < 0) return 0;  // no base colour texture: white
    if (size_t(gltf_texture) >= model.textures.size())
      fail(path, fmt::format("texture {} does not exist ({} textures)", gltf_texture,
                             model.textures.size()));
    const int source = model.textures[gltf_texture].source;
    if (source < 0 || size_t(source) >= model.images.size())
      fail(path, fmt::format("texture {} names image {}, which does not exist ({} images)",
                             gltf_texture, source, model.images.size()));
    auto it = texture_of_image.find(source);
    if (it != texture_of_image.end()) return it->second;
    const tinygltf::Image& img = model.images[source];
    if (img.width <= 0 || img.height <= 0)
      fail(path, fmt::format("image {} ('{}') could not be read or decoded", source,
                             img.uri.empty() ? img.name : img.uri));
    scene.textures.push_back(make_texture_with_mips(img.name.empty() ? img.uri : img.name,
                                                    uint32_t(img.width), uint32_t(img.height),
                                                    to_rgba8(img, path)));
    const uint32_t t = static_cast<uint32_t>(scene.textures.size() - 1);
    texture_of_image[source] = t;
    return t;
  };

  // Materials: glTF material i -> scene material i; one extra white default at the end.
  for (const tinygltf::Material& m : model.materials) {
    Material mat;
    const auto& f = m.pbrMetallicRoughness.baseColorFactor;
    if (f.size() == 4) mat.color = glm::vec4(f[0], f[1], f[2], f[3]);
    const double roughness = std::clamp(m.pbrMetallicRoughness.roughnessFactor, 0.0, 1.0);
    mat.shininess = static_cast<float>(2.0 + (1.0 - roughness) * 118.0);
    mat.texture = texture_for(m.pbrMetallicRoughness.baseColorTexture.index);
    scene.materials.push_back(mat);
  }
  const uint32_t default_material = static_cast<uint32_t>(scene.materials.size());
  scene.materials.push_back(Material{glm::vec4(0.8f, 0.8f, 0.8f, 1.0f), 30.0f, 0});

  // Meshes: one per triangle primitive, built once.
  std::map<std::pair<int, int>, uint32_t> mesh_of_primitive;
  constexpr uint32_t kSkipped = UINT32_MAX;
  auto build_mesh = [&](int mesh_index, int prim_index) -> uint32_t {
    auto key = std::make_pair(mesh_index, prim_index);
    if (auto it = mesh_of_primitive.find(key); it != mesh_of_primitive.end()) return it->second;
    const tinygltf::Primitive& p = model.meshes[mesh_index].primitives[prim_index];
    const std::string what = fmt::format("mesh {} primitive {}", mesh_index, prim_index);
    auto pos_it = p.attributes.find("POSITION");
    if (pos_it == p.attributes.end()) fail(path, what + " has no POSITION attribute");
    const AccessorView pos = view_accessor(model, pos_it->second, path, "POSITION");
    if (pos.components != 3) fail(path, what + ": POSITION is not VEC3");
    Mesh mesh;
    mesh.name = fmt::format("{}/{}", model.meshes[mesh_index].name, prim_index);
    mesh.vertices.resize(pos.count);
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    for (size_t i = 0; i < pos.count; ++i) {
      glm::vec3 v(pos.get(i, 0), pos.get(i, 1), pos.get(i, 2));
      if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
        fail(path, fmt::format("{}: POSITION {} is not finite", what, i));
      mesh.vertices[i].position = v;
      lo = glm::min(lo, v);
      hi = glm::max(hi, v);
    }
    mesh.bounds_min = pos.count ? lo : glm::vec3(0);
    mesh.bounds_max = pos.count ? hi : glm::vec3(0);
    if (auto it = p.attributes.find("TEXCOORD_0"); it != p.attributes.end()) {
      const AccessorView uv = view_accessor(model, it->second, path, "TEXCOORD_0");
      if (uv.components != 2 || uv.count != pos.count)
        fail(path, what + ": TEXCOORD_0 is not VEC2 with one element per vertex");
      for (size_t i = 0; i < uv.count; ++i)
        mesh.vertices[i].texcoord = glm::vec2(uv.get(i, 0), uv.get(i, 1));
    }
    if (p.indices < -1)
      fail(path, fmt::format("{}: indices accessor {} does not exist", what, p.indices));
    if (p.indices >= 0) {
      const AccessorView idx = view_accessor(model, p.indices, path, "indices");
      if (idx.components != 1 || (idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
                                  idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
                                  idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT))
        fail(path, what + ": indices are not unsigned byte/short/int scalars (glTF 2.0 §3.7.2.1)");
      mesh.indices.resize(idx.count);
      for (size_t i = 0; i < idx.count; ++i) {
        const double v = idx.get(i, 0);
        if (v < 0 || v >= double(pos.count))
          fail(path, fmt::format("{}: index {} = {} is out of range (vertex count {})", what, i,
                                 static_cast<uint64_t>(v), pos.count));
        mesh.indices[i] = static_cast<uint32_t>(v);
      }
    } else {
      mesh.indices.resize(pos.count);
      for (size_t i = 0; i < pos.count; ++i) mesh.indices[i] = static_cast<uint32_t>(i);
    }
    mesh.indices.resize(mesh.indices.size() / 3 * 3);  // whole triangles only
    if (mesh.indices.empty()) {  // nothing to draw: skipped (a draw of 0 indices binds 0 bytes)
      mesh_of_primitive[key] = kSkipped;
      return kSkipped;
    }
    if (auto it = p.attributes.find("NORMAL"); it != p.attributes.end()) {
      const AccessorView n = view_accessor(model, it->second, path, "NORMAL");
      if (n.components != 3 || n.count != pos.count)
        fail(path, what + ": NORMAL is not VEC3 with one element per vertex");
      for (size_t i = 0; i < n.count; ++i)
        mesh.vertices[i].normal = glm::vec3(n.get(i, 0), n.get(i, 1), n.get(i, 2));
    } else {
      // Area-weighted vertex normals from the triangles.
      for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        Vertex& a = mesh.vertices[mesh.indices[t]];
        Vertex& b = mesh.vertices[mesh.indices[t + 1]];
        Vertex& c = mesh.vertices[mesh.indices[t + 2]];
        const glm::vec3 n = glm::cross(b.position - a.position, c.position - a.position);
        a.normal += n;
        b.normal += n;
        c.normal += n;
      }
      for (Vertex& v : mesh.vertices)
        v.normal = glm::length(v.normal) > 0 ? glm::normalize(v.normal) : glm::vec3(0, 1, 0);
    }
    mesh.index16 = pos.count <= 65536;
    scene.meshes.push_back(std::move(mesh));
    const uint32_t id = static_cast<uint32_t>(scene.meshes.size() - 1);
    mesh_of_primitive[key] = id;
    return id;
  };

  // One copy of the model: (mesh, material, node world matrix) per drawn primitive.
  struct Part {
    uint32_t mesh, material;
    glm::mat4 world;
  };
  std::vector<Part> parts;
  std::vector<int> stack;  // nodes on the current path, for cycle detection
  std::function<void(int, const glm::mat4&)> visit = [&](int node, const glm::mat4& parent) {
    if (node < 0 || size_t(node) >= model.nodes.size())
      fail(path, fmt::format("node {} does not exist ({} nodes)", node, model.nodes.size()));
    if (std::find(stack.begin(), stack.end(), node) != stack.end())
      fail(path, fmt::format("node {} is its own ancestor (the node hierarchy has a cycle)", node));
    if (stack.size() >= size_t(kMaxNodeDepth))
      fail(path, fmt::format("node hierarchy deeper than {} levels", kMaxNodeDepth));
    stack.push_back(node);
    const tinygltf::Node& n = model.nodes[node];
    const glm::mat4 world = parent * local_matrix(n);
    if (n.mesh >= 0) {
      if (size_t(n.mesh) >= model.meshes.size())
        fail(path, fmt::format("node {} names mesh {} which does not exist", node, n.mesh));
      const auto& prims = model.meshes[n.mesh].primitives;
      for (size_t p = 0; p < prims.size(); ++p) {
        if (prims[p].mode != kTriangles && prims[p].mode != -1) continue;  // points/lines: skipped
        const uint32_t mesh = build_mesh(n.mesh, static_cast<int>(p));
        if (mesh == kSkipped) continue;
        const int mat = prims[p].material;
        if (mat >= 0 && size_t(mat) >= model.materials.size())
          fail(path, fmt::format("mesh {} primitive {} names material {}, which does not exist "
                                 "({} materials)",
                                 n.mesh, p, mat, model.materials.size()));
        parts.push_back({mesh, mat >= 0 ? uint32_t(mat) : default_material, world});
      }
    }
    for (int child : n.children) visit(child, world);
    stack.pop_back();
  };
  // glTF 2.0 §3.5.3: the node hierarchy is a set of disjoint trees, so no node has two parents
  // (a node listed twice would be drawn twice per path, and 40 such levels are 2^40 draws).
  std::vector<int> parents(model.nodes.size(), 0);
  for (size_t i = 0; i < model.nodes.size(); ++i)
    for (int c : model.nodes[i].children)
      if (c >= 0 && size_t(c) < parents.size() && ++parents[c] > 1)
        fail(path, fmt::format("node {} has more than one parent (node {} lists it again); glTF "
                               "node hierarchies are disjoint trees",
                               c, i));
  std::vector<int> roots;
  if (model.defaultScene >= 0 && size_t(model.defaultScene) >= model.scenes.size())
    fail(path, fmt::format("the default scene {} does not exist ({} scenes)", model.defaultScene,
                           model.scenes.size()));
  const int scene_index = model.defaultScene >= 0 ? model.defaultScene : 0;
  if (!model.scenes.empty()) {
    roots = model.scenes[scene_index].nodes;
  } else {
    std::vector<bool> is_child(model.nodes.size(), false);
    for (const auto& n : model.nodes)
      for (int c : n.children)
        if (c >= 0 && size_t(c) < is_child.size()) is_child[c] = true;
    for (size_t i = 0; i < model.nodes.size(); ++i)
      if (!is_child[i]) roots.push_back(static_cast<int>(i));
  }
  for (int r : roots) visit(r, glm::mat4(1.0f));
  if (parts.empty()) fail(path, "the scene has no triangle primitives to draw");

  // Model bounds (in model space after node transforms).
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const Part& p : parts) {
    const Mesh& m = scene.meshes[p.mesh];
    for (int c = 0; c < 8; ++c) {
      const glm::vec3 corner((c & 1) ? m.bounds_max.x : m.bounds_min.x,
                             (c & 2) ? m.bounds_max.y : m.bounds_min.y,
                             (c & 4) ? m.bounds_max.z : m.bounds_min.z);
      const glm::vec3 w = glm::vec3(p.world * glm::vec4(corner, 1.0f));
      lo = glm::min(lo, w);
      hi = glm::max(hi, w);
    }
  }
  const glm::vec3 extent = glm::max(hi - lo, glm::vec3(1e-3f));
  const glm::vec3 center = (lo + hi) * 0.5f;
  const float spacing = std::max({extent.x, extent.z}) * 1.25f;

  constexpr uint64_t kMaxObjects = 10'000'000;  // the same cap as --objects
  if (uint64_t(parts.size()) * instances > kMaxObjects)
    throw Error(
        ErrorKind::SceneInput,
        fmt::format("glTF scene: {} instances x {} drawn primitives = {} objects exceeds "
                    "the maximum {}",
                    instances, parts.size(), uint64_t(parts.size()) * instances, kMaxObjects));

  // Instances on a square grid in the XZ plane, centred on the origin.
  const uint32_t side = static_cast<uint32_t>(std::ceil(std::sqrt(double(instances))));
  for (uint32_t k = 0; k < instances; ++k) {
    const float gx = (float(k % side) - (side - 1) * 0.5f) * spacing;
    const float gz = (float(k / side) - (side - 1) * 0.5f) * spacing;
    const glm::mat4 place = glm::translate(glm::mat4(1.0f), glm::vec3(gx, 0, gz) - center);
    for (const Part& p : parts) {
      Object o;
      o.mesh = p.mesh;
      o.material = p.material;
      o.placement = place * p.world;
      o.animated = false;
      scene.objects.push_back(o);
    }
  }

  // Camera: the article's viewing direction, far enough for the grid's bounding sphere.
  const float half_w = (side - 1) * spacing * 0.5f + extent.x * 0.5f;
  const float half_d = (side - 1) * spacing * 0.5f + extent.z * 0.5f;
  const float radius = std::sqrt(half_w * half_w + half_d * half_d + extent.y * extent.y * 0.25f);
  const glm::vec3 dir = glm::normalize(glm::vec3(100.0f, 150.0f, 200.0f));
  const float distance = radius / std::sin(glm::radians(scene.view.fov_y_degrees * 0.5f)) * 0.9f;
  scene.view.target = glm::vec3(0.0f);
  scene.view.eye = dir * distance;
  scene.view.near_plane = std::max(distance * 0.01f, distance - radius * 2.0f);
  scene.view.far_plane = distance + radius * 2.0f;
  scene.view.light_world_position = scene.view.eye + glm::vec3(-radius, radius, 0.0f);
  return scene;
}

}  // namespace
}  // namespace bindery
