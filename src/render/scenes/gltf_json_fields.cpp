// SPDX-License-Identifier: MIT
// The non-integer fields of a glTF file, checked before tinygltf reads them (gltf_json_fields.hpp).
#include "gltf_json_fields.hpp"

#include "bindery/core/error.hpp"
#include "resource_resolver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <cfloat>
#include <set>

namespace bindery::gltf {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::ModelLoad, fmt::format("glTF '{}': {}", path, what));
}

std::string shown(const json& v) {
  return quote_input(v.dump(), 40);
}

// The media types whose base64 data: URIs tinygltf decodes; any other data: URI it takes for a
// file name.
constexpr std::array<std::string_view, 7> kDecodedMediaTypes = {
    "application/octet-stream", "application/gltf-buffer", "image/png", "image/jpeg",
    "image/bmp",                "image/gif",               "text/plain"};

const json* member(const json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

// `v` (at `where`) must be a number in lo..hi.
void check_number(const std::string& path, const json& v, const std::string& where, double lo,
                  double hi, const char* rule) {
  if (!v.is_number())
    fail(path, fmt::format("{} is {}; it must be a number ({})", where, shown(v), rule));
  const double d = v.get<double>();
  if (!(d >= lo && d <= hi))
    fail(path, fmt::format("{} is {}; it must be {} ({})", where, shown(v),
                           hi == FLT_MAX ? fmt::format(">= {} and finite as a 32-bit float", lo)
                                         : fmt::format("in {}..{}", lo, hi),
                           rule));
}

// `v` must be an array of exactly `n` numbers, each in lo..hi.
void check_numbers(const std::string& path, const json& v, const std::string& where, size_t n,
                   double lo, double hi, const char* rule) {
  if (!v.is_array() || v.size() != n)
    fail(path, fmt::format("{} is {}; it must be an array of {} numbers ({})", where,
                           v.is_array() ? fmt::format("an array of {} elements", v.size())
                                        : shown(v),
                           n, rule));
  for (size_t i = 0; i < n; ++i)
    check_number(path, v[i], fmt::format("{}[{}]", where, i), lo, hi, rule);
}

void check_asset(const std::string& path, const json& root) {
  const json* asset = member(root, "asset");
  if (!asset || !asset->is_object())
    fail(path, "the file has no \"asset\" object (glTF 2.0: asset, with its version, is required)");
  const json* version = member(*asset, "version");
  if (!version || !version->is_string())
    fail(path, "asset.version is missing or not a string (glTF 2.0: asset.version is required)");
  const std::string v = version->get<std::string>();
  if (v.rfind("2.", 0) != 0)
    fail(path, fmt::format("asset.version is \"{}\"; bindery reads glTF 2.0 files (version 2.x)",
                           quote_input(v)));
}

void check_accessors(const std::string& path, const json& root) {
  static const std::set<std::string> kTypes = {"SCALAR", "VEC2", "VEC3", "VEC4",
                                               "MAT2",   "MAT3", "MAT4"};
  static const std::set<int64_t> kComponentTypes = {5120, 5121, 5122, 5123, 5125, 5126};
  const json* accessors = member(root, "accessors");
  if (!accessors || !accessors->is_array()) return;
  for (size_t i = 0; i < accessors->size(); ++i) {
    const json& a = (*accessors)[i];
    const json* type = member(a, "type");
    if (!type || !type->is_string() || !kTypes.count(type->get<std::string>()))
      fail(path, fmt::format("accessors[{}].type is {}; it must be SCALAR, VEC2, VEC3, VEC4, "
                             "MAT2, MAT3 or MAT4 (glTF 2.0 accessor.type)",
                             i, type ? shown(*type) : "missing"));
    const json* ct = member(a, "componentType");
    if (!ct || !ct->is_number_integer() || !kComponentTypes.count(ct->get<int64_t>()))
      fail(path, fmt::format("accessors[{}].componentType is {}; it must be 5120 (BYTE), 5121 "
                             "(UNSIGNED_BYTE), 5122 (SHORT), 5123 (UNSIGNED_SHORT), 5125 "
                             "(UNSIGNED_INT) or 5126 (FLOAT) (glTF 2.0 accessor.componentType)",
                             i, ct ? shown(*ct) : "missing"));
    if (!member(a, "count"))
      fail(path, fmt::format("accessors[{}].count is missing (glTF 2.0: it is required)", i));
    if (const json* n = member(a, "normalized"); n && !n->is_boolean())
      fail(path, fmt::format("accessors[{}].normalized is {}; it must be true or false", i,
                             shown(*n)));
    // glTF 2.0 accessor.normalized: MUST NOT be true for FLOAT or UNSIGNED_INT components.
    if (const json* n = member(a, "normalized");
        n && n->is_boolean() && n->get<bool>() &&
        (ct->get<int64_t>() == 5126 || ct->get<int64_t>() == 5125))
      fail(path, fmt::format("accessors[{}].normalized is true for componentType {} ({}); glTF "
                             "2.0 normalizes only BYTE, UNSIGNED_BYTE, SHORT and UNSIGNED_SHORT "
                             "data",
                             i, ct->get<int64_t>(),
                             ct->get<int64_t>() == 5126 ? "FLOAT" : "UNSIGNED_INT"));
  }
}

void check_buffer_views(const std::string& path, const json& root) {
  const json* views = member(root, "bufferViews");
  if (!views || !views->is_array()) return;
  for (size_t i = 0; i < views->size(); ++i) {
    for (const char* required : {"buffer", "byteLength"})
      if (!member((*views)[i], required))
        fail(path, fmt::format("bufferViews[{}].{} is missing (glTF 2.0: it is required)", i,
                               required));
    const json* stride = member((*views)[i], "byteStride");
    if (!stride) continue;
    const bool ok = stride->is_number_integer() && stride->get<int64_t>() >= 4 &&
                    stride->get<int64_t>() <= 252 && stride->get<int64_t>() % 4 == 0;
    if (!ok)
      fail(path, fmt::format("bufferViews[{}].byteStride is {}; it must be a multiple of 4 in "
                             "4..252 (glTF 2.0 bufferView.byteStride)",
                             i, shown(*stride)));
  }
}

// buffers[i]: its data present as glTF 2.0 "Buffers and Buffer Views" says.
void check_buffer(const std::string& path, const json& b, size_t i, const GltfText& text) {
  const json* length = member(b, "byteLength");
  if (!length)
    fail(path, fmt::format("buffers[{}].byteLength is missing (glTF 2.0: it is required)", i));
  const uint64_t byte_length = length->get<uint64_t>();  // an integer: checked before
  const json* uri = member(b, "uri");
  if (!uri) {
    if (!text.glb)
      fail(path, fmt::format("buffers[{}] has no uri; in a .gltf file every buffer names its data "
                             "(only a GLB's buffer 0 may omit it, for the BIN chunk)",
                             i));
    if (i != 0)
      fail(path, fmt::format("buffers[{}] has no uri; only buffer 0 of a GLB may omit it (it then "
                             "refers to the BIN chunk)",
                             i));
    if (!text.has_bin)
      fail(path, "buffers[0] has no uri, so it refers to the GLB's BIN chunk, but the GLB has no "
                 "BIN chunk");
    if (byte_length > text.bin_bytes)
      fail(path, fmt::format("buffers[0].byteLength {} exceeds the GLB's BIN chunk of {} bytes",
                             byte_length, text.bin_bytes));
    return;
  }
  if (!uri->is_string())
    fail(path, fmt::format("buffers[{}].uri is {}; it must be a string", i, shown(*uri)));
  const std::string u = uri->get<std::string>();
  if (!is_data_uri(u)) return;  // an external file: resolved and its size checked later
  std::string reason;
  const std::optional<uint64_t> bytes = data_uri_bytes(u, reason);
  if (!bytes)
    fail(path, fmt::format("buffers[{}].uri '{}' {}", i, quote_input(u), reason));
  if (u.rfind("data:application/octet-stream;", 0) != 0 &&
      u.rfind("data:application/gltf-buffer;", 0) != 0)
    fail(path, fmt::format("buffers[{}].uri '{}' is not of the media type "
                           "application/octet-stream or application/gltf-buffer (glTF 2.0 "
                           "buffer data: URIs)",
                           i, quote_input(u)));
  if (*bytes != byte_length)
    fail(path, fmt::format("buffers[{}].uri '{}' decodes to {} bytes, but byteLength is {} (they "
                           "must be equal)",
                           i, quote_input(u), *bytes, byte_length));
}

// images[i]: a uri or a bufferView; a data: URI that tinygltf decodes, or that a used image has,
// must be base64 of at least one byte.
void check_image(const std::string& path, const json& image, size_t i, bool used) {
  const json* uri = member(image, "uri");
  if (!uri && !member(image, "bufferView"))
    fail(path, fmt::format("images[{}] has neither uri nor bufferView (glTF 2.0: an image has "
                           "exactly one of them)",
                           i));
  if (!uri) return;
  if (!uri->is_string())
    fail(path, fmt::format("images[{}].uri is {}; it must be a string", i, shown(*uri)));
  const std::string u = uri->get<std::string>();
  if (!is_data_uri(u)) return;
  std::string reason;
  const std::optional<uint64_t> bytes = data_uri_bytes(u, reason);
  const bool decoded_by_tinygltf =
      std::any_of(kDecodedMediaTypes.begin(), kDecodedMediaTypes.end(), [&](std::string_view t) {
        return u.rfind(fmt::format("data:{};base64,", t), 0) == 0;
      });
  if (!used && !decoded_by_tinygltf) return;  // never read
  if (!bytes) fail(path, fmt::format("images[{}].uri '{}' {}", i, quote_input(u), reason));
  if (*bytes == 0)
    fail(path, fmt::format("images[{}].uri '{}' holds no bytes", i, quote_input(u)));
}

void check_node(const std::string& path, const json& n, size_t i) {
  const std::string where = fmt::format("nodes[{}]", i);
  const double big = DBL_MAX;
  if (const json* m = member(n, "matrix")) {
    check_numbers(path, *m, where + ".matrix", 16, -big, big,
                  "glTF 2.0 node.matrix: a 4x4 column-major matrix");
    const std::array<double, 4> last = {(*m)[3].get<double>(), (*m)[7].get<double>(),
                                        (*m)[11].get<double>(), (*m)[15].get<double>()};
    if (last[0] != 0.0 || last[1] != 0.0 || last[2] != 0.0 || last[3] != 1.0)
      fail(path, fmt::format("{}.matrix has the last row {}, {}, {}, {} (elements 3, 7, 11, 15); "
                             "it must be 0, 0, 0, 1 (glTF 2.0 node.matrix: decomposable to "
                             "translation, rotation and scale)",
                             where, last[0], last[1], last[2], last[3]));
  }
  if (const json* t = member(n, "translation"))
    check_numbers(path, *t, where + ".translation", 3, -big, big, "glTF 2.0 node.translation");
  if (const json* r = member(n, "rotation")) {
    check_numbers(path, *r, where + ".rotation", 4, -1.0, 1.0,
                  "glTF 2.0 node.rotation: a unit quaternion x, y, z, w");
    double squares = 0;
    for (const json& q : *r) squares += q.get<double>() * q.get<double>();
    const double length = std::sqrt(squares);
    if (!(std::abs(length - 1.0) <= 1e-3))
      fail(path, fmt::format("{}.rotation has length {:g}; glTF 2.0 node.rotation is a unit "
                             "quaternion (length 1, within 0.001 here)",
                             where, length));
  }
  if (member(n, "matrix"))
    for (const char* trs : {"translation", "rotation", "scale"})
      if (member(n, trs))
        fail(path, fmt::format("{} has both matrix and {}; glTF 2.0 node: a node has either a "
                               "matrix or translation, rotation and scale, not both",
                               where, trs));
  if (const json* s = member(n, "scale"))
    check_numbers(path, *s, where + ".scale", 3, -big, big, "glTF 2.0 node.scale");
}

void check_material(const std::string& path, const json& m, size_t i) {
  const std::string where = fmt::format("materials[{}]", i);
  if (const json* pbr = member(m, "pbrMetallicRoughness")) {
    if (!pbr->is_object())
      fail(path, fmt::format("{}.pbrMetallicRoughness is {}; it must be an object", where,
                             shown(*pbr)));
    const std::string p = where + ".pbrMetallicRoughness";
    if (const json* f = member(*pbr, "baseColorFactor"))
      check_numbers(path, *f, p + ".baseColorFactor", 4, 0.0, 1.0,
                    "glTF 2.0: linear RGBA, each in 0..1");
    if (const json* f = member(*pbr, "metallicFactor"))
      check_number(path, *f, p + ".metallicFactor", 0.0, 1.0, "glTF 2.0 material");
    if (const json* f = member(*pbr, "roughnessFactor"))
      check_number(path, *f, p + ".roughnessFactor", 0.0, 1.0, "glTF 2.0 material");
  }
  if (const json* f = member(m, "emissiveFactor"))
    check_numbers(path, *f, where + ".emissiveFactor", 3, 0.0, 1.0,
                  "glTF 2.0: linear RGB, each in 0..1");
  if (const json* o = member(m, "occlusionTexture"))
    if (const json* f = member(*o, "strength"))
      check_number(path, *f, where + ".occlusionTexture.strength", 0.0, 1.0, "glTF 2.0 material");
  if (const json* o = member(m, "normalTexture"))
    if (const json* f = member(*o, "scale"))
      check_number(path, *f, where + ".normalTexture.scale", -DBL_MAX, DBL_MAX,
                   "glTF 2.0 material");
  if (const json* f = member(m, "alphaCutoff"))
    check_number(path, *f, where + ".alphaCutoff", 0.0, FLT_MAX, "glTF 2.0 material.alphaCutoff");
  if (const json* f = member(m, "alphaMode")) {
    const bool ok = f->is_string() && (*f == "OPAQUE" || *f == "MASK" || *f == "BLEND");
    if (!ok)
      fail(path, fmt::format("{}.alphaMode is {}; it must be \"OPAQUE\", \"MASK\" or \"BLEND\" "
                             "(glTF 2.0 material.alphaMode)",
                             where, shown(*f)));
  }
  if (const json* f = member(m, "doubleSided"); f && !f->is_boolean())
    fail(path, fmt::format("{}.doubleSided is {}; it must be true or false", where, shown(*f)));
}

// Calls `check(element, index)` for every element of the top-level array `name`.
template <typename F>
void each(const json& root, const char* name, F check) {
  const json* array = member(root, name);
  if (!array || !array->is_array()) return;
  for (size_t i = 0; i < array->size(); ++i) check((*array)[i], i);
}

}  // namespace

std::optional<uint64_t> data_uri_bytes(std::string_view uri, std::string& reason) {
  const size_t comma = uri.find(',');
  if (uri.rfind("data:", 0) != 0) {
    reason = "does not start with 'data:' in lower case (bindery reads data: URIs as glTF 2.0 "
             "exporters write them)";
    return std::nullopt;
  }
  if (comma == uri.npos) {
    reason = "is not a data: URI of the form data:TYPE;base64,DATA";
    return std::nullopt;
  }
  const std::string_view header = uri.substr(5, comma - 5);
  constexpr std::string_view kBase64 = ";base64";
  if (header.size() < kBase64.size() || header.substr(header.size() - kBase64.size()) != kBase64) {
    reason = "is not base64-encoded (no ';base64' before the ','); bindery reads base64 data: "
             "URIs only, as glTF 2.0 writes them";
    return std::nullopt;
  }
  const std::string_view type = header.substr(0, header.size() - kBase64.size());
  if (std::find(kDecodedMediaTypes.begin(), kDecodedMediaTypes.end(), type) ==
      kDecodedMediaTypes.end()) {
    reason = fmt::format("has the media type '{}', which bindery does not read as embedded "
                         "data (glTF 2.0: application/octet-stream, application/gltf-buffer, "
                         "image/png, image/jpeg)",
                         quote_input(type, 40));
    return std::nullopt;
  }
  std::string_view payload = uri.substr(comma + 1);
  size_t padding = 0;
  while (!payload.empty() && payload.back() == '=' && padding < 2) {
    payload.remove_suffix(1);
    ++padding;
  }
  for (size_t k = 0; k < payload.size(); ++k) {
    const char c = payload[k];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/';
    if (!ok) {
      reason = fmt::format("is not valid base64: character {} of its data is {} (RFC 4648 "
                           "alphabet A-Z a-z 0-9 + /, '=' only as padding at the end)",
                           k, quote_input(std::string(1, c)));
      return std::nullopt;
    }
  }
  if (payload.size() % 4 == 1 || (padding > 0 && (payload.size() + padding) % 4 != 0)) {
    reason = fmt::format("is not valid base64: its data is {} characters long, which no byte "
                         "sequence encodes to",
                         payload.size() + padding);
    return std::nullopt;
  }
  return uint64_t(payload.size()) * 6 / 8;
}

void check_gltf_fields(const std::string& path, const json& root, const GltfText& text) {
  check_asset(path, root);
  check_accessors(path, root);
  check_buffer_views(path, root);
  each(root, "buffers", [&](const json& b, size_t i) { check_buffer(path, b, i, text); });
  each(root, "nodes", [&](const json& n, size_t i) { check_node(path, n, i); });
  each(root, "materials", [&](const json& m, size_t i) { check_material(path, m, i); });
}

void check_gltf_images(const std::string& path, const json& root, const std::vector<bool>& used) {
  each(root, "images", [&](const json& image, size_t i) {
    check_image(path, image, i, i < used.size() && used[i]);
  });
}

}  // namespace bindery::gltf
