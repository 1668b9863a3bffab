// SPDX-License-Identifier: MIT
// glTF 2.0 models as a Scene: every triangle primitive becomes a Mesh, every (node, primitive)
// pair of every instance an Object with its own material and a static placement on a grid.
//
// Order of work (GltfLoader::load() in gltf_loader.hpp; each stage's failures are one
// bindery::Error naming the file and what broke; each stage lives in the file of what it reads):
//   1. read_and_validate_json (here): the file is read (Io); bindery's own JSON pass
//      (gltf_json.hpp) limits the nesting depth, checks extensionsRequired (UnsupportedExtension),
//      every integer field's type and range, and resolves every external resource a buffer or a
//      used image names inside the model's folder (resource_resolver.hpp) before tinygltf sees
//      the file;
//   2. parse_model (here): tinygltf parses it; its file callbacks (gltf_files.hpp) open only what
//      step 1 resolved, and its image callback decodes only images a material uses
//      (gltf_image.hpp: PNG or JPEG, size and budget checked before decoding), keeping
//      exceptions for after it returns (ModelLoad);
//   3. build_materials (gltf_materials.cpp): materials, their base colour textures and samplers;
//   4. walk_nodes (gltf_nodes.cpp): the node hierarchy with every world matrix checked finite in
//      float; each drawn primitive is built once (build_mesh, gltf_primitives.cpp): accessors
//      (gltf_accessors.hpp) bounds-checked and decoded (base bufferView or zeros, then sparse
//      values) before any byte is used, attribute component types as the glTF 2.0 core table
//      and, where the file uses it, KHR_mesh_quantization's; triangles as gltf_mesh.hpp makes
//      them (strips, fans, flat normals, mirrored copies, double-sided back faces);
//   5. place_instances, place_camera (gltf_nodes.cpp): the copies on a grid and a camera that
//      frames them, every bound and placement checked finite in float.
// An exception from tinygltf, the image decoder or the standard library that escapes all this is
// caught at the boundary (load_gltf_scene) and becomes a ModelLoad error naming the stage.
#include "bindery/core/error.hpp"
#include "bindery/core/io.hpp"
#include "bindery/render/scene.hpp"
#include "gltf_files.hpp"
#include "gltf_json.hpp"
#include "gltf_loader.hpp"

#include <fmt/format.h>
#include <tiny_gltf.h>

#include <algorithm>
#include <exception>
#include <new>
#include <stdexcept>

namespace bindery {
namespace gltf {

// Stage 1: bindery's own checks of the JSON (gltf_json.hpp), before tinygltf sees the file.
void GltfLoader::read_and_validate_json() {
  bytes_ = read_input_file(path_, "glTF", kMaxGltfFileBytes);
  stage_ = "checking the JSON";
  const gltf::GltfText text = gltf::split_gltf_file(path_, bytes_);
  binary_ = text.glb;
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  facts_ = gltf::check_gltf_json(path_, text, dir);
}


// Stage 2: tinygltf, with file callbacks that open only what stage 1 resolved and an image
// callback that decodes only the images materials use.
void GltfLoader::parse_model() {
  stage_ = "parsing the file with tinygltf";
  tinygltf::TinyGLTF loader;
  CallbackState callbacks;
  callbacks.facts = &facts_;
  callbacks.image_budget_bytes = options_.image_budget_bytes;
  set_callbacks(loader, callbacks);
  std::string err, warn;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes_.data());
  const auto size = static_cast<unsigned>(bytes_.size());
  const bool ok = binary_ ? loader.LoadBinaryFromMemory(&model_, &err, &warn, data, size,
                                                        kModelFolder)
                          : loader.LoadASCIIFromString(&model_, &err, &warn, bytes_.data(), size,
                                                       kModelFolder);
  std::string().swap(bytes_);  // the file's bytes are in model_ now
  if (callbacks.error) {
    try {
      std::rethrow_exception(callbacks.error);
    } catch (const Error& e) {
      throw Error(e.kind(), fmt::format("glTF '{}': {}", path_, e.what()));
    }
  }
  if (!ok) fail(path_, tinygltf_refusal(err));
  auto uses = [](const std::vector<std::string>& names) {
    return std::count(names.begin(), names.end(), "KHR_mesh_quantization") > 0;
  };
  quantization_ = uses(model_.extensionsUsed) || uses(model_.extensionsRequired);
}

void GltfLoader::begin_scene() {
  scene_.name = "gltf";
  // Texture 0 is white: materials without a base colour texture sample it (factor only).
  scene_.textures.push_back(make_texture_with_mips("white", 1, 1, {255, 255, 255, 255}));
  if (!model_.animations.empty())
    warn_once("animations are not played (nodes keep their own transforms)");
  if (!model_.skins.empty()) warn_once("skins are not applied (meshes are drawn unskinned)");
}

void GltfLoader::warn_once(std::string line) {
  if (std::find(scene_.warnings.begin(), scene_.warnings.end(), line) == scene_.warnings.end())
    scene_.warnings.push_back(std::move(line));
}

}  // namespace gltf

using gltf::fail;

Scene load_gltf_scene(const std::string& path, uint32_t instances) {
  return load_gltf_scene(path, instances, GltfLoadOptions{});
}

Scene load_gltf_scene(const std::string& path, uint32_t instances,
                      const GltfLoadOptions& options) {
  if (instances == 0)
    throw Error(ErrorKind::SceneInput, "glTF scene: instances = 0, valid 1 or more");
  std::string stage = "reading the file";
  try {
    return gltf::GltfLoader(path, instances, options, stage).load();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    fail(path, fmt::format("while {}: the model needs more memory than is available (counts or "
                           "sizes too large)",
                           stage));
  } catch (const std::length_error&) {
    fail(path, fmt::format("while {}: a count or size in the model is too large to load", stage));
  } catch (const std::exception& e) {
    fail(path, fmt::format("while {}: {}", stage, escape_for_message(e.what())));
  } catch (...) {
    fail(path, fmt::format("while {}: an unknown exception", stage));
  }
}

}  // namespace bindery
