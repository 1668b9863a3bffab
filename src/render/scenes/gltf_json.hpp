// SPDX-License-Identifier: MIT
// src/render/gltf_json.hpp — bindery's own pass over a glTF file's JSON, before tinygltf sees it.
// Private to bindery (scene_gltf.cpp; tested through load_gltf_scene in tests/gltf_*_test.cpp).
//
// tinygltf converts JSON recursively (a deep `extras` overflows the stack), reads integers
// through `int`/`size_t` (4294967296 becomes 0, -12 is dropped and read as the default) and opens
// any file a URI names. This pass reads the JSON with nlohmann::json (iterative: no depth limit
// of its own) and refuses, one ModelLoad line each, naming the field and the rule:
//   - nesting deeper than kMaxGltfJsonDepth arrays/objects;
//   - extensionsRequired naming an extension bindery does not implement (UnsupportedExtension);
//   - an integer field of the glTF 2.0 schema (indices, counts, offsets, lengths, enums) that is
//     not an integer, or out of its range: an index must name an existing element (a material's
//     texture index may also be -1, "none", as published models write it), the rest are
//     0..2^32-1 (2^31-1 where tinygltf keeps an `int`);
//   - an image's bufferView whose byteOffset + byteLength exceeds its buffer's byteLength;
//   - a used image whose mimeType (or data: URI media type) is not image/png or image/jpeg;
//   - an external URI of a buffer or of a used image that resolve_model_resource refuses.
// "Used" images are the sources of textures some material's base colour texture names, the only
// images bindery draws; no other image is decoded or opened.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::gltf {

/// Deepest nesting of JSON arrays and objects accepted in a glTF file (the root object is level
/// 1; core glTF needs 6, `extras` and extensions hold the rest). Deeper files are refused before
/// any library recurses over them.
inline constexpr int kMaxGltfJsonDepth = 64;

/// What the JSON pass found that the loader needs later.
struct GltfJsonFacts {
  /// images[i] is some material's base colour texture source.
  std::vector<bool> image_used;
  /// External resources allowed to be opened: tinygltf's spelling of the URI (it decodes `%XX`
  /// and turns `+` into a space) -> the canonical path resolve_model_resource returned.
  std::map<std::string, std::filesystem::path> resources;
  /// The same keys -> the URI as written (for messages).
  std::map<std::string, std::string> uri_as_written;
};

/// The greatest nesting depth of arrays and objects in `json` (0 for a scalar; strings skipped,
/// escapes honoured). Linear, no recursion; works on any bytes.
int json_nesting_depth(std::string_view json);

/// Runs every check the header comment lists on the JSON text `json` of the glTF file `path`
/// (for a GLB, its JSON chunk), resolving resources in `model_dir`. Throws ModelLoad or
/// UnsupportedExtension; messages start "glTF '<path>': ".
GltfJsonFacts check_gltf_json(const std::string& path, std::string_view json,
                              const std::filesystem::path& model_dir);

}  // namespace bindery::gltf
