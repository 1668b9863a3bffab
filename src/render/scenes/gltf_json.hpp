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
//   - an external URI of a buffer or of a used image that resolve_model_resource refuses;
//   - the non-integer fields of gltf_json_fields.cpp (check_gltf_fields): asset, accessor type
//     and componentType, byteStride, buffer URIs and data: URIs, node transforms, material
//     factors; and, for a GLB, its chunk layout (split_gltf_file).
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
  /// images[i]'s declared media type, "image/png" or "image/jpeg", from its `mimeType` or else
  /// its data: URI's media type; empty when it declares neither (an external file without
  /// mimeType). The decoder checks it against the bytes' signature.
  std::vector<std::string> image_media_type;
  /// External resources allowed to be opened: tinygltf's spelling of the URI (it decodes `%XX`
  /// and turns `+` into a space) -> the canonical path resolve_model_resource returned.
  std::map<std::string, std::filesystem::path> resources;
  /// The same keys -> the URI as written (for messages).
  std::map<std::string, std::string> uri_as_written;
};

/// A glTF file's JSON text and, for a GLB, what its chunks hold.
struct GltfText {
  std::string_view json;   ///< all of a .gltf; a GLB's JSON chunk
  bool glb = false;        ///< the file is a GLB (starts with the magic "glTF")
  bool has_bin = false;    ///< the GLB has a BIN chunk right after its JSON chunk
  uint64_t bin_bytes = 0;  ///< that chunk's chunkLength
};

/// Splits the file `bytes` of `path` (glTF 2.0 "Binary glTF Layout"): a .gltf is all JSON; a GLB
/// (12-byte header: magic, version 2, length; then chunks of chunkLength, chunkType, data) must
/// have a header length of at least 20 and at most the file's size, a JSON chunk first that
/// fits inside that length (its length a multiple of 4), and, when bytes follow it, a whole BIN
/// chunk (8-byte header, length a multiple of 4, inside the GLB); any later chunks whole, aligned
/// and inside the GLB, none of them a second BIN or JSON chunk. Throws ModelLoad naming the
/// chunk, the byte offset and the rule.
GltfText split_gltf_file(const std::string& path, std::string_view bytes);

/// `text` for a message: control bytes escaped, at most `max` characters of it, then "..." (a
/// data: URI may be megabytes long).
std::string quote_input(std::string_view text, size_t max = 80);

/// The greatest nesting depth of arrays and objects in `json` (0 for a scalar; strings skipped,
/// escapes honoured). Linear, no recursion; works on any bytes.
int json_nesting_depth(std::string_view json);

/// Runs every check the header comment lists on the text `text` of the glTF file `path`
/// (split_gltf_file), resolving resources in `model_dir`. Throws ModelLoad, Io or
/// UnsupportedExtension; messages start "glTF '<path>': ".
GltfJsonFacts check_gltf_json(const std::string& path, const GltfText& text,
                              const std::filesystem::path& model_dir);

}  // namespace bindery::gltf
