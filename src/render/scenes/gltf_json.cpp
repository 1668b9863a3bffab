// SPDX-License-Identifier: MIT
// bindery's own pass over a glTF file's JSON before tinygltf (gltf_json.hpp).
#include "gltf_json.hpp"

#include "bindery/core/error.hpp"
#include "gltf_json_fields.hpp"
#include "internal/json_message.hpp"
#include "resource_resolver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace bindery::gltf {
namespace {

using nlohmann::json;

/// The glTF extensions bindery implements, so accepts in extensionsRequired.
const std::set<std::string> kImplementedExtensions = {"KHR_mesh_quantization"};

constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();    // tinygltf's `int` fields
constexpr int64_t kMaxUint = std::numeric_limits<uint32_t>::max();  // its `size_t` fields

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::ModelLoad, fmt::format("glTF '{}': {}", path, what));
}

// A JSON value for a message: at most 40 characters of its text, control bytes escaped.
std::string shown(const json& v) {
  return quote_input(v.dump(), 40);
}

// One integer field of the glTF 2.0 schema: `field` inside each element of the top-level array
// `array`. `field` is dot-separated; a segment ending in "[]" stands for every element of an
// array there, "{}" for every value of an object. `refers` names the top-level array the value
// indexes (then the range is 0..size-1), else the value lies in min..max.
struct IntRule {
  const char* array;
  const char* field;
  const char* refers;
  int64_t min, max;
};

// A texture index may be -1, "no texture": tinygltf's own convention, which published models
// (assimp's glTF2 test models) write; it is read as absent, as tinygltf reads it.
#define BINDERY_TEXTURE_INFO(name)                                         \
  {"materials", name ".index", "textures", -1, 0}, {                       \
    "materials", name ".texCoord", nullptr, 0, kMaxInt                     \
  }
const IntRule kIntRules[] = {
    {"accessors", "bufferView", "bufferViews", 0, 0},
    {"accessors", "byteOffset", nullptr, 0, kMaxUint},
    {"accessors", "componentType", nullptr, 0, kMaxInt},
    {"accessors", "count", nullptr, 1, kMaxUint},
    {"accessors", "sparse.count", nullptr, 1, kMaxInt},
    {"accessors", "sparse.indices.bufferView", "bufferViews", 0, 0},
    {"accessors", "sparse.indices.byteOffset", nullptr, 0, kMaxInt},
    {"accessors", "sparse.indices.componentType", nullptr, 0, kMaxInt},
    {"accessors", "sparse.values.bufferView", "bufferViews", 0, 0},
    {"accessors", "sparse.values.byteOffset", nullptr, 0, kMaxInt},
    {"animations", "channels[].sampler", nullptr, 0, kMaxInt},
    {"animations", "channels[].target.node", "nodes", 0, 0},
    {"animations", "samplers[].input", "accessors", 0, 0},
    {"animations", "samplers[].output", "accessors", 0, 0},
    {"buffers", "byteLength", nullptr, 0, kMaxUint},
    {"bufferViews", "buffer", "buffers", 0, 0},
    {"bufferViews", "byteOffset", nullptr, 0, kMaxUint},
    {"bufferViews", "byteLength", nullptr, 0, kMaxUint},
    {"bufferViews", "byteStride", nullptr, 0, kMaxUint},
    {"bufferViews", "target", nullptr, 0, kMaxInt},
    {"images", "bufferView", "bufferViews", 0, 0},
    BINDERY_TEXTURE_INFO("pbrMetallicRoughness.baseColorTexture"),
    BINDERY_TEXTURE_INFO("pbrMetallicRoughness.metallicRoughnessTexture"),
    BINDERY_TEXTURE_INFO("normalTexture"),
    BINDERY_TEXTURE_INFO("occlusionTexture"),
    BINDERY_TEXTURE_INFO("emissiveTexture"),
    {"meshes", "primitives[].attributes{}", "accessors", 0, 0},
    {"meshes", "primitives[].indices", "accessors", 0, 0},
    {"meshes", "primitives[].material", "materials", 0, 0},
    {"meshes", "primitives[].mode", nullptr, 0, kMaxInt},
    {"meshes", "primitives[].targets[].{}", "accessors", 0, 0},
    {"nodes", "camera", "cameras", 0, 0},
    {"nodes", "children[]", "nodes", 0, 0},
    {"nodes", "skin", "skins", 0, 0},
    {"nodes", "mesh", "meshes", 0, 0},
    {"samplers", "magFilter", nullptr, 0, kMaxInt},
    {"samplers", "minFilter", nullptr, 0, kMaxInt},
    {"samplers", "wrapS", nullptr, 0, kMaxInt},
    {"samplers", "wrapT", nullptr, 0, kMaxInt},
    {"scenes", "nodes[]", "nodes", 0, 0},
    {"skins", "inverseBindMatrices", "accessors", 0, 0},
    {"skins", "skeleton", "nodes", 0, 0},
    {"skins", "joints[]", "nodes", 0, 0},
    {"textures", "sampler", "samplers", 0, 0},
    {"textures", "source", "images", 0, 0},
};
#undef BINDERY_TEXTURE_INFO

size_t array_size(const json& root, const char* name) {
  auto it = root.find(name);
  return it != root.end() && it->is_array() ? it->size() : 0;
}

// Checks the integer `v` at `where` against `rule` (`count`: the size of the array it indexes).
void check_integer(const std::string& path, const json& v, const std::string& where,
                   const IntRule& rule, size_t count) {
  const bool integer = v.is_number_integer();  // unsigned included; 3.0 and 1e2 are not
  int64_t value = 0;
  bool in_range = false;
  if (integer && v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    in_range = u <= uint64_t(kMaxUint) + 1;  // bounded below by every max: exact in int64
    value = in_range ? int64_t(u) : 0;
  } else if (integer) {
    value = v.get<int64_t>();
    in_range = true;
  }
  const int64_t max = rule.refers ? int64_t(count) - 1 : rule.max;
  if (integer && in_range && value >= rule.min && value <= max) return;
  if (rule.refers && count == 0)
    fail(path, fmt::format("{} is {}, an index of {}, but the file has no {} (glTF 2.0 schema)",
                           where, shown(v), rule.refers, rule.refers));
  fail(path, fmt::format("{} is {}; it must be {} {}..{} (glTF 2.0 schema)", where, shown(v),
                         rule.refers ? fmt::format("an integer index of {},", rule.refers)
                                     : std::string("an integer in"),
                         rule.min, max));
}

// Applies `rule` to every value its field path reaches from `v` (segments[at...]).
void visit_rule(const std::string& path, const json& v, const std::vector<std::string>& segments,
                size_t at, const std::string& where, const IntRule& rule, size_t count) {
  if (at == segments.size()) return check_integer(path, v, where, rule, count);
  const std::string& s = segments[at];
  if (s == "[]" || s == "{}") {
    const bool array = s == "[]";
    if (array ? !v.is_array() : !v.is_object())
      fail(path, fmt::format("{} is {}; it must be an {} (glTF 2.0 schema)", where, shown(v),
                             array ? "array" : "object"));
    size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
      const std::string next = array ? fmt::format("{}[{}]", where, i)
                                     : fmt::format("{}.{}", where, escape_for_message(it.key()));
      visit_rule(path, *it, segments, at + 1, next, rule, count);
    }
    return;
  }
  if (!v.is_object()) return;  // not an object where the schema has one: tinygltf reports it
  auto it = v.find(s);
  if (it == v.end()) return;
  visit_rule(path, *it, segments, at + 1, where + "." + s, rule, count);
}

// "a.b[].c{}" -> {"a", "b", "[]", "c", "{}"}.
std::vector<std::string> field_segments(std::string_view field) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= field.size()) {
    size_t end = field.find('.', start);
    if (end == field.npos) end = field.size();
    std::string_view s = field.substr(start, end - start);
    for (std::string_view suffix : {"[]", "{}"}) {
      if (s.size() >= 2 && s.substr(s.size() - 2) == suffix) {
        if (s.size() > 2) out.emplace_back(s.substr(0, s.size() - 2));
        out.emplace_back(suffix);
        s = {};
      }
    }
    if (!s.empty()) out.emplace_back(s);
    start = end + 1;
  }
  return out;
}

void check_integer_fields(const std::string& path, const json& root) {
  if (auto it = root.find("scene"); it != root.end())
    check_integer(path, *it, "scene", {"", "", "scenes", 0, 0}, array_size(root, "scenes"));
  for (const IntRule& rule : kIntRules) {
    auto arr = root.find(rule.array);
    if (arr == root.end() || !arr->is_array()) continue;
    const std::vector<std::string> segments = field_segments(rule.field);
    const size_t count = rule.refers ? array_size(root, rule.refers) : 0;
    for (size_t i = 0; i < arr->size(); ++i)
      visit_rule(path, (*arr)[i], segments, 0, fmt::format("{}[{}]", rule.array, i), rule, count);
  }
}

// glTF 2.0 "Buffers and Buffer Views": a view lies inside its buffer. Checked here for the views
// images name, which tinygltf reads without checking (the loader checks the views accessors use
// when it reads them; a view nothing reads is not checked, as some published models have one).
void check_image_buffer_views(const std::string& path, const json& root) {
  auto views = root.find("bufferViews");
  auto buffers = root.find("buffers");
  auto images = root.find("images");
  if (views == root.end() || buffers == root.end() || images == root.end() ||
      !views->is_array() || !buffers->is_array() || !images->is_array())
    return;
  for (const json& image : *images) {
    if (!image.is_object() || !image.contains("bufferView")) continue;
    const size_t i = image["bufferView"].get<size_t>();  // an index, checked above
    const json& v = (*views)[i];
    if (!v.is_object() || !v.contains("buffer") || !v.contains("byteLength")) continue;
    const json& buffer = (*buffers)[v["buffer"].get<size_t>()];  // an index, checked above
    if (!buffer.is_object() || !buffer.contains("byteLength") ||
        !buffer["byteLength"].is_number_integer())
      continue;
    const uint64_t offset = v.value("byteOffset", uint64_t(0));
    const uint64_t length = v["byteLength"].get<uint64_t>();
    const uint64_t size = buffer["byteLength"].get<uint64_t>();
    if (offset > size || length > size - offset)
      fail(path, fmt::format("bufferViews[{}]: byteOffset {} + byteLength {} exceeds buffers[{}] "
                             "byteLength {} (a bufferView lies inside its buffer)",
                             i, offset, length, v["buffer"].get<size_t>(), size));
  }
}

void check_required_extensions(const std::string& path, const json& j) {
  auto it = j.find("extensionsRequired");
  if (it == j.end()) return;
  if (!it->is_array()) fail(path, "extensionsRequired is not an array of strings");
  std::vector<std::string> missing;
  for (const auto& e : *it) {
    if (!e.is_string()) fail(path, "extensionsRequired is not an array of strings");
    const std::string name = e.get<std::string>();
    if (!kImplementedExtensions.count(name)) missing.push_back(escape_for_message(name));
  }
  if (!missing.empty())
    throw Error(ErrorKind::UnsupportedExtension,
                fmt::format("glTF '{}': requires the extension{} {} (extensionsRequired), which "
                            "bindery does not implement (it implements KHR_mesh_quantization)",
                            path, missing.size() > 1 ? "s" : "", fmt::join(missing, ", ")));
}

// The images some material's base colour texture uses (indices valid: checked above).
std::vector<bool> used_images(const json& root) {
  std::vector<bool> used(array_size(root, "images"), false);
  auto materials = root.find("materials");
  if (materials == root.end() || !materials->is_array()) return used;
  const json* textures = root.contains("textures") ? &root["textures"] : nullptr;
  auto member = [](const json* v, const char* name) -> const json* {
    if (!v || !v->is_object()) return nullptr;
    auto it = v->find(name);
    return it == v->end() ? nullptr : &*it;
  };
  for (const json& m : *materials) {
    const json* index =
        member(member(member(&m, "pbrMetallicRoughness"), "baseColorTexture"), "index");
    if (!index || !index->is_number_unsigned() || !textures || !textures->is_array()) continue;
    const json& texture = (*textures)[index->get<size_t>()];
    if (texture.is_object() && texture.contains("source"))
      used[texture["source"].get<size_t>()] = true;
  }
  return used;
}

// tinygltf's reading of a URI (dlib::urldecode: `%XX` decoded, `+` a space), for URIs the
// resolver accepted (so every `%` has two hex digits).
std::string tinygltf_spelling(std::string_view uri) {
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '+') {
      out += ' ';
    } else if (uri[i] == '%' && i + 2 < uri.size()) {
      out += percent_decode_uri(uri.substr(i, 3));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

void add_resource(const std::string& path, const std::string& what, const std::string& uri,
                  const std::filesystem::path& model_dir, GltfJsonFacts& facts) {
  std::filesystem::path resolved;
  try {
    resolved = resolve_model_resource(model_dir, uri);
  } catch (const Error& e) {  // ModelLoad (a rule broken) or Io (a file inside not readable)
    throw Error(e.kind(), fmt::format("glTF '{}': {} {}", path, what, e.what()));
  }
  const std::string key = tinygltf_spelling(uri);
  auto [it, added] = facts.resources.emplace(key, resolved);
  if (!added && it->second != resolved)
    fail(path, fmt::format("{} uri '{}' reads like another URI of the file to tinygltf ('+' and "
                           "'%20' both mean a space to it); write spaces as %20 and '+' as %2B",
                           what, escape_for_message(uri)));
  facts.uri_as_written.emplace(key, uri);
}

// glTF 2.0 "Buffers and Buffer Views": buffers[i] holds byteLength bytes; tinygltf reads a
// buffer file only when its size is exactly that.
void check_buffer_file_size(const std::string& path, const json& b, size_t i,
                            const std::filesystem::path& resolved) {
  auto length = b.find("byteLength");
  if (length == b.end() || !length->is_number_unsigned()) return;  // refused before
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(resolved, ec);
  if (ec) return;  // unreadable: reading it says why
  if (size != length->get<uint64_t>())
    fail(path, fmt::format("buffers[{}].uri '{}' names a file of {} bytes, but byteLength is {} "
                           "(they must be equal)",
                           i, quote_input(b["uri"].get<std::string>()), size,
                           length->get<uint64_t>()));
}

// Media types of used images (glTF 2.0 "Images": image/png or image/jpeg) and every external
// resource a buffer or a used image names.
void collect_resources(const std::string& path, const json& root,
                       const std::filesystem::path& model_dir, GltfJsonFacts& facts) {
  auto is_image_type = [](std::string_view t) { return t == "image/png" || t == "image/jpeg"; };
  if (auto buffers = root.find("buffers"); buffers != root.end() && buffers->is_array())
    for (size_t i = 0; i < buffers->size(); ++i) {
      const json& b = (*buffers)[i];
      if (!b.is_object() || !b.contains("uri") || !b["uri"].is_string()) continue;
      const std::string uri = b["uri"].get<std::string>();
      if (is_data_uri(uri)) continue;
      add_resource(path, fmt::format("buffer {}", i), uri, model_dir, facts);
      check_buffer_file_size(path, b, i, facts.resources.at(tinygltf_spelling(uri)));
    }
  const json* images = root.contains("images") ? &root["images"] : nullptr;
  facts.image_media_type.assign(facts.image_used.size(), std::string());
  for (size_t i = 0; i < facts.image_used.size(); ++i) {
    const json& image = (*images)[i];
    if (!facts.image_used[i] || !image.is_object()) continue;
    if (auto t = image.find("mimeType"); t != image.end()) {
      if (!t->is_string() || !is_image_type(t->get<std::string>()))
        fail(path, fmt::format("image {}: mimeType {} is not image/png or image/jpeg (the image "
                               "formats of glTF 2.0)",
                               i, shown(*t)));
      facts.image_media_type[i] = t->get<std::string>();
    }
    if (!image.contains("uri") || !image["uri"].is_string()) continue;
    const std::string uri = image["uri"].get<std::string>();
    if (!is_data_uri(uri)) {
      add_resource(path, fmt::format("image {}", i), uri, model_dir, facts);
      continue;
    }
    const std::string type = uri.substr(5, uri.find_first_of(";,") - 5);
    if (type.rfind("image/", 0) == 0 && !is_image_type(type))
      fail(path, fmt::format("image {}: its data: URI holds {}, not image/png or image/jpeg (the "
                             "image formats of glTF 2.0)",
                             i, escape_for_message(type)));
    if (is_image_type(type)) {
      if (!facts.image_media_type[i].empty() && facts.image_media_type[i] != type)
        fail(path, fmt::format("image {}: its mimeType {} and its data: URI's media type {} "
                               "disagree",
                               i, facts.image_media_type[i], type));
      facts.image_media_type[i] = type;
    }
  }
}

}  // namespace

int json_nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::string quote_input(std::string_view text, size_t max) {
  if (text.size() <= max) return escape_for_message(text);
  while (max > 0 && (static_cast<unsigned char>(text[max]) & 0xC0) == 0x80) --max;  // UTF-8
  return escape_for_message(text.substr(0, max)) + "...";
}

namespace {
uint32_t read_u32le(std::string_view bytes, size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// The chunk after the JSON chunk, at byte `at` of a GLB of `length` bytes: a whole BIN chunk.
void read_bin_chunk(const std::string& path, std::string_view bytes, uint64_t at, uint64_t length,
                    GltfText& t) {
  if (length - at < 8)
    fail(path, fmt::format("GLB: {} bytes follow the JSON chunk at byte {}, fewer than a chunk's "
                           "8-byte header (glTF 2.0 Binary glTF Layout)",
                           length - at, at));
  const uint32_t bin_length = read_u32le(bytes, at), bin_type = read_u32le(bytes, at + 4);
  if (bin_type != 0x004E4942u)
    fail(path, fmt::format("GLB chunk 1 at byte {} has type 0x{:08X}, not BIN (0x004E4942); the "
                           "chunk after the JSON chunk must be the BIN chunk",
                           at + 4, bin_type));
  if (bin_length > length - at - 8)
    fail(path, fmt::format("GLB BIN chunk length {} at byte {} runs past the GLB length {}",
                           bin_length, at, length));
  if (bin_length == 0 || bin_length % 4 != 0)
    fail(path, fmt::format("GLB BIN chunk length {} at byte {} is not a positive multiple of 4 "
                           "(glTF 2.0: chunks are padded to 4 bytes; an empty BIN chunk is left "
                           "out)",
                           bin_length, at));
  t.has_bin = true;
  t.bin_bytes = bin_length;
}

// The chunks after the BIN chunk, from byte `at` to the GLB's `length`: glTF 2.0 "Binary glTF
// Layout" lets a loader ignore chunks of other types, but there is exactly one JSON chunk and at
// most one BIN chunk, and every chunk has a whole 8-byte header, a length that is a multiple of 4
// and data inside the GLB.
void check_later_chunks(const std::string& path, std::string_view bytes, uint64_t at,
                        uint64_t length) {
  for (int chunk = 2; at < length; ++chunk) {
    if (length - at < 8)
      fail(path, fmt::format("GLB: {} bytes at byte {} (after chunk {}) are fewer than a chunk's "
                             "8-byte header (glTF 2.0 Binary glTF Layout)",
                             length - at, at, chunk - 1));
    const uint32_t size = read_u32le(bytes, at), type = read_u32le(bytes, at + 4);
    if (type == 0x004E4942u)
      fail(path, fmt::format("GLB chunk {} at byte {} is a second BIN chunk; a GLB has at most one "
                             "BIN chunk (glTF 2.0 Binary glTF Layout)",
                             chunk, at));
    if (type == 0x4E4F534Au)
      fail(path, fmt::format("GLB chunk {} at byte {} is a second JSON chunk; a GLB has exactly "
                             "one JSON chunk, the first (glTF 2.0 Binary glTF Layout)",
                             chunk, at));
    if (size > length - at - 8)
      fail(path, fmt::format("GLB chunk {} length {} at byte {} runs past the GLB length {}", chunk,
                             size, at, length));
    if (size % 4 != 0)
      fail(path, fmt::format("GLB chunk {} length {} at byte {} is not a multiple of 4 (glTF 2.0: "
                             "chunks are padded to 4 bytes)",
                             chunk, size, at));
    at += 8 + uint64_t(size);
  }
}
}  // namespace

GltfText split_gltf_file(const std::string& path, std::string_view bytes) {
  GltfText t;
  t.json = bytes;
  if (bytes.size() < 4 || std::memcmp(bytes.data(), "glTF", 4) != 0) return t;
  t.glb = true;
  if (bytes.size() < 20)
    fail(path, fmt::format("GLB of {} bytes is shorter than its 12-byte header and the first "
                           "chunk's 8-byte header",
                           bytes.size()));
  const uint32_t version = read_u32le(bytes, 4), length = read_u32le(bytes, 8);
  const uint32_t chunk_length = read_u32le(bytes, 12), chunk_type = read_u32le(bytes, 16);
  if (version != 2) fail(path, fmt::format("GLB header version {} at byte 4 is not 2", version));
  if (length < 20)
    fail(path, fmt::format("GLB header length {} at byte 8 is less than 20, the 12-byte header "
                           "and the JSON chunk's 8-byte header (glTF 2.0 Binary glTF Layout)",
                           length));
  if (length > bytes.size())
    fail(path, fmt::format("GLB header length {} at byte 8 exceeds the file's {} bytes", length,
                           bytes.size()));
  if (chunk_type != 0x4E4F534Au)
    fail(path, fmt::format("GLB chunk 0 at byte 12 has type 0x{:08X}, not JSON (0x4E4F534A)",
                           chunk_type));
  if (chunk_length == 0)
    fail(path, "GLB JSON chunk length at byte 12 is 0: the JSON chunk is empty (glTF 2.0 Binary "
               "glTF Layout: it holds the glTF JSON)");
  if (chunk_length > length - 20)
    fail(path, fmt::format("GLB JSON chunk length {} at byte 12 runs past the GLB length {}",
                           chunk_length, length));
  if (chunk_length % 4 != 0)
    fail(path, fmt::format("GLB JSON chunk length {} at byte 12 is not a multiple of 4 (glTF 2.0: "
                           "the JSON chunk is padded with spaces to 4 bytes)",
                           chunk_length));
  t.json = bytes.substr(20, chunk_length);
  const uint64_t at = 20 + uint64_t(chunk_length);
  if (at < length) {
    read_bin_chunk(path, bytes, at, length, t);
    check_later_chunks(path, bytes, at + 8 + t.bin_bytes, length);
  }
  return t;
}

GltfJsonFacts check_gltf_json(const std::string& path, const GltfText& gltf_text,
                              const std::filesystem::path& model_dir) {
  const std::string_view text = gltf_text.json;
  if (const int depth = json_nesting_depth(text); depth > kMaxGltfJsonDepth)
    fail(path, fmt::format("the JSON nests arrays and objects {} levels deep, more than the {} "
                           "bindery reads (a glTF file needs fewer than 10)",
                           depth, kMaxGltfJsonDepth));
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path, fmt::format("the JSON does not parse (byte {}): {}", e.byte, json_message(e)));
  } catch (const json::exception& e) {
    // e.g. out_of_range.406: a number too large for a double ("1e999"); RFC 8259 §6 leaves
    // the range to implementations, glTF's numbers are IEEE doubles.
    fail(path, fmt::format("the JSON does not parse: {}", json_message(e)));
  }
  if (!j.is_object()) fail(path, "the JSON's top level is not an object (glTF 2.0 root)");
  check_required_extensions(path, j);
  check_integer_fields(path, j);
  check_gltf_fields(path, j, gltf_text);
  check_image_buffer_views(path, j);
  GltfJsonFacts facts;
  facts.image_used = used_images(j);
  collect_resources(path, j, model_dir, facts);
  check_gltf_images(path, j, facts.image_used);
  return facts;
}

}  // namespace bindery::gltf
