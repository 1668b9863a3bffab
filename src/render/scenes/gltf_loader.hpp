// SPDX-License-Identifier: MIT
// src/render/scenes/gltf_loader.hpp — private to src/render/scenes/: the glTF loader
// (load_gltf_scene, scene_gltf.cpp) as one class whose member functions are its stages; load()
// runs them in order. Each stage lives in the file of what it reads: the JSON and tinygltf in
// scene_gltf.cpp (with gltf_files.hpp), materials and samplers in gltf_materials.cpp, the
// primitives' meshes in gltf_primitives.cpp (with gltf_accessors.hpp), the node hierarchy,
// placement and camera in gltf_nodes.cpp.
#pragma once

#include "bindery/core/error.hpp"
#include "bindery/render/scene.hpp"
#include "gltf_accessors.hpp"
#include "gltf_json.hpp"

#include <fmt/format.h>
#include <glm/glm.hpp>
#include <tiny_gltf.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace bindery::gltf {

/// Throws ModelLoad "glTF 'PATH': WHAT".
[[noreturn]] inline void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::ModelLoad, fmt::format("glTF '{}': {}", path, what));
}

inline constexpr uint32_t kSkipped = UINT32_MAX;  // a primitive bindery does not draw

// One drawn primitive of one copy of the model.
struct Part {
  uint32_t mesh, material;
  glm::dmat4 world;  ///< in double until place_instances() moves it near the origin
  int node;
};

class GltfLoader {
 public:
  GltfLoader(const std::string& path, uint32_t instances, const GltfLoadOptions& options,
             std::string& stage)
      : path_(path), instances_(instances), options_(options), stage_(stage) {}

  Scene load() {
    read_and_validate_json();
    parse_model();
    begin_scene();
    build_materials();
    walk_nodes();
    place_instances();
    place_camera();
    return std::move(scene_);
  }

 private:
  void read_and_validate_json();
  void parse_model();
  void begin_scene();
  void warn_once(std::string line);
  uint32_t sampler_index(const SamplerData& s);
  std::pair<uint32_t, uint32_t> texture_for(int gltf_texture);
  Material convert_material(const tinygltf::Material& m, size_t index);
  void build_materials();
  void charge_geometry(uint64_t bytes, const std::string& what, const std::string& detail);
  const AccessorData& accessor(int index, const std::string& role);
  uint64_t mesh_bytes(const tinygltf::Primitive& p, int mode, bool double_sided,
                      std::string& detail) const;
  const AccessorData* read_attribute(const tinygltf::Primitive& p, const std::string& what,
                                     const std::string& name, Semantic semantic,
                                     std::initializer_list<size_t> components);
  uint32_t build_mesh(int mesh_index, int prim_index, bool mirrored);
  void check_texcoords(const tinygltf::Primitive& p, const tinygltf::Material& m,
                       const std::string& what);
  void warn_zero_normals(const Mesh& mesh, const std::string& what);
  void build_vertices(Mesh& mesh, const tinygltf::Primitive& p, const tinygltf::Material& material,
                      const std::string& what);
  std::vector<uint32_t> vertex_sequence(const tinygltf::Primitive& p, size_t vertex_count,
                                        const std::string& what);
  void visit(int node, const glm::dmat4& parent);
  void warn_far_from_origin(const glm::dvec3& lo, const glm::dvec3& hi);
  void recentre_far_meshes();
  std::vector<int> node_parents();
  std::vector<int> scene_roots();
  void walk_nodes();
  void place_instances();
  void place_camera();

  const std::string& path_;
  const uint32_t instances_;
  const GltfLoadOptions options_;
  std::string& stage_;  ///< what is being done, for the messages of unexpected exceptions
  std::string bytes_;
  bool binary_ = false;
  gltf::GltfJsonFacts facts_;
  tinygltf::Model model_;
  bool quantization_ = false;
  Scene scene_;
  std::map<int, uint32_t> texture_of_image_;
  const tinygltf::Material default_gltf_material_{};
  uint32_t default_material_ = 0;
  std::map<std::tuple<int, int, bool>, uint32_t> mesh_of_primitive_;
  std::map<int, AccessorData> accessors_;  ///< each accessor decoded once, until walk_nodes ends
  uint64_t geometry_bytes_ = 0;            ///< charged against options_.geometry_budget_bytes
  std::vector<Part> parts_;
  std::vector<int> stack_;  ///< nodes on the current path, for cycle detection
  glm::vec3 extent_{0.0f};  ///< the model's extent (world bounds after node transforms)
  float spacing_ = 0.0f;    ///< distance between copies on the grid
  uint32_t side_ = 1;       ///< copies per grid row
};

}  // namespace bindery::gltf
