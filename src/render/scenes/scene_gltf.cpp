// SPDX-License-Identifier: MIT
// glTF 2.0 models as a Scene: every triangle primitive becomes a Mesh, every (node, primitive)
// pair of every instance an Object with its own material and a static placement on a grid.
//
// Order of work (each step's failures are one bindery::Error naming the file and what broke):
//   1. the file is read (Io) and its JSON's extensionsRequired checked before anything else
//      (UnsupportedExtension);
//   2. tinygltf parses it; external files go through read_input_file (regular files, size cap)
//      and images through tinygltf's decoder inside a handler that keeps exceptions (ModelLoad);
//   3. accessors are bounds-checked and decoded (base bufferView or zeros, then sparse values)
//      before any byte is used; attribute component types follow the glTF 2.0 core table and,
//      where the file uses it, KHR_mesh_quantization's;
//   4. primitives become triangle lists (gltf_mesh.hpp: strips, fans, flat normals, mirrored
//      copies, double-sided back faces); materials, textures and samplers are converted.
// An exception from tinygltf, the image decoder or the standard library that escapes all this is
// caught at the boundary (load_gltf_scene) and becomes a ModelLoad error naming the stage.
#include "encode/json_message.hpp"
#include "bindery/core/error.hpp"
#include "bindery/core/io.hpp"
#include "bindery/render/scene.hpp"
#include "gltf_mesh.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <nlohmann/json.hpp>
#include <stb/stb_image.h>
#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace bindery {
namespace {

constexpr int kMaxNodeDepth = 64;
/// Largest .gltf/.glb/.bin/image file read (tinygltf takes sizes as 32-bit unsigned).
constexpr uint64_t kMaxGltfFileBytes = 1ull << 30;
/// Largest accessor count decoded (16,777,216 elements; at most 512 MiB of decoded VEC4 values):
/// bounds memory for accessors whose data is implicit (no bufferView: zeros, or sparse), which a
/// tiny file can declare with any count, and for the decoding of any one accessor.
constexpr uint64_t kMaxAccessorCount = 1ull << 24;
/// Most pixels of one image (16384 x 16384): checked from the image's header before decoding, so
/// a small file declaring a huge image cannot make the decoder allocate gigabytes.
constexpr uint64_t kMaxImagePixels = 1ull << 28;
/// The glTF extensions bindery implements, so accepts in extensionsRequired.
const std::set<std::string> kImplementedExtensions = {"KHR_mesh_quantization"};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::ModelLoad, fmt::format("glTF '{}': {}", path, what));
}

// ---------------------------------------------------------------------------------------------
// 1. Required extensions, from the JSON itself (before tinygltf, which may fail on what an
//    unimplemented extension changes, e.g. Draco primitives whose accessors have no data).

// True when the bytes start with the GLB magic "glTF" (glTF 2.0 "Binary glTF Layout").
bool has_glb_magic(const std::string& bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
}

uint32_t read_u32le(const std::string& bytes, size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// The JSON text of a file: all of a .gltf; a GLB's first chunk, which must be of type JSON
// (12-byte header, then chunkLength, chunkType 0x4E4F534A, chunkData).
std::string_view json_text(const std::string& path, const std::string& bytes) {
  if (!has_glb_magic(bytes)) return bytes;
  if (bytes.size() < 20)
    fail(path, fmt::format("GLB of {} bytes is shorter than its 12-byte header and the first "
                           "chunk's 8-byte header",
                           bytes.size()));
  const uint32_t version = read_u32le(bytes, 4), length = read_u32le(bytes, 8);
  const uint32_t chunk_length = read_u32le(bytes, 12), chunk_type = read_u32le(bytes, 16);
  if (version != 2) fail(path, fmt::format("GLB header version {} at byte 4 is not 2", version));
  if (length > bytes.size())
    fail(path, fmt::format("GLB header length {} at byte 8 exceeds the file's {} bytes", length,
                           bytes.size()));
  if (chunk_type != 0x4E4F534Au)
    fail(path, fmt::format("GLB chunk 0 at byte 12 has type 0x{:08X}, not JSON (0x4E4F534A)",
                           chunk_type));
  if (chunk_length > length - 20)
    fail(path, fmt::format("GLB JSON chunk length {} at byte 12 runs past the GLB length {}",
                           chunk_length, length));
  return std::string_view(bytes).substr(20, chunk_length);
}

void check_required_extensions(const std::string& path, std::string_view json) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error& e) {
    fail(path, fmt::format("the JSON does not parse (byte {}): {}", e.byte, json_message(e)));
  } catch (const nlohmann::json::exception& e) {
    // e.g. out_of_range.406: a number too large for a double ("1e999"); RFC 8259 §6 leaves
    // the range to implementations, glTF's numbers are IEEE doubles.
    fail(path, fmt::format("the JSON does not parse: {}", json_message(e)));
  }
  if (!j.is_object()) fail(path, "the JSON's top level is not an object (glTF 2.0 root)");
  auto it = j.find("extensionsRequired");
  if (it == j.end()) return;
  if (!it->is_array()) fail(path, "extensionsRequired is not an array of strings");
  std::vector<std::string> missing;
  for (const auto& e : *it) {
    if (!e.is_string()) fail(path, "extensionsRequired is not an array of strings");
    const std::string name = e.get<std::string>();
    if (!kImplementedExtensions.count(name)) missing.push_back(name);
  }
  if (!missing.empty())
    throw Error(ErrorKind::UnsupportedExtension,
                fmt::format("glTF '{}': requires the extension{} {} (extensionsRequired), which "
                            "bindery does not implement (it implements KHR_mesh_quantization)",
                            path, missing.size() > 1 ? "s" : "", fmt::join(missing, ", ")));
}

// ---------------------------------------------------------------------------------------------
// 2. tinygltf with bindery's file reading and an image decoder that cannot throw through it.

// What tinygltf's callbacks saw go wrong, rethrown after tinygltf returns.
struct CallbackState {
  std::exception_ptr error;
};

bool file_exists(const std::string& path, void*) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// tinygltf's default expands the path like a shell would (wordexp); a URI is a path, nothing more.
std::string expand_file_path(const std::string& path, void*) {
  return path;
}

bool read_whole_file(std::vector<unsigned char>* out, std::string* err, const std::string& path,
                     void* user) {
  try {
    const std::string bytes = read_input_file(path, "glTF resource", kMaxGltfFileBytes);
    out->assign(bytes.begin(), bytes.end());
    return true;
  } catch (...) {
    auto* state = static_cast<CallbackState*>(user);
    if (!state->error) state->error = std::current_exception();
    if (err) *err += "cannot read '" + path + "'";
    return false;
  }
}

bool write_whole_file(std::string* err, const std::string&, const std::vector<unsigned char>&,
                      void*) {
  if (err) *err += "bindery does not write glTF files";
  return false;
}

bool load_image(tinygltf::Image* image, const int index, std::string* err, std::string* warn,
                int width, int height, const unsigned char* bytes, int size, void* user) {
  auto* state = static_cast<CallbackState*>(user);
  try {
    int w = 0, h = 0, components = 0;
    if (stbi_info_from_memory(bytes, size, &w, &h, &components) &&
        uint64_t(w) * uint64_t(h) > kMaxImagePixels) {
      state->error = std::make_exception_ptr(Error(
          ErrorKind::ModelLoad, fmt::format("image {} is {} x {} pixels, more than the {} bindery "
                                            "decodes (16384 x 16384)",
                                            index, w, h, kMaxImagePixels)));
      if (err) *err += fmt::format("image {} is too large", index);
      return false;
    }
    // tinygltf's stb_image decoder; RGBA out (palette and grey expanded), 8 or 16 bits.
    return tinygltf::LoadImageData(image, index, err, warn, width, height, bytes, size, nullptr);
  } catch (const std::bad_alloc&) {
    if (!state->error)
      state->error = std::make_exception_ptr(Error(
          ErrorKind::ModelLoad, fmt::format("image {} ({} bytes): decoding it needs more memory "
                                            "than is available",
                                            index, size)));
  } catch (const std::exception& e) {
    if (!state->error)
      state->error = std::make_exception_ptr(
          Error(ErrorKind::ModelLoad,
                fmt::format("image {} ({} bytes): the decoder failed: {}", index, size, e.what())));
  }
  if (err) *err += fmt::format("image {} could not be decoded", index);
  return false;
}

// ---------------------------------------------------------------------------------------------
// 3. Accessors (glTF 2.0 "Accessors"), decoded into doubles: exact for every component type
//    including uint32 indices; normalized integers mapped as the specification says
//    (unsigned c / (2^b - 1), signed max(c / (2^(b-1) - 1), -1)).

const char* component_type_name(int type) {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
      return "BYTE";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return "UNSIGNED_BYTE";
    case TINYGLTF_COMPONENT_TYPE_SHORT:
      return "SHORT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return "UNSIGNED_SHORT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
      return "UNSIGNED_INT";
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
      return "FLOAT";
    default:
      return "an invalid component type";
  }
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

double decode_component(const uint8_t* p, int type, bool normalized) {
  switch (type) {
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

struct AccessorData {
  size_t count = 0, components = 0;
  int component_type = 0;
  bool normalized = false;
  std::vector<double> values;  ///< count x components
  double get(size_t i, size_t c) const { return values[i * components + c]; }
};

// The bytes [offset, offset + (count - 1) * stride + element) of bufferView `view`, checked to lie
// inside the view and the view inside its buffer (glTF 2.0 "Accessors": data alignment and
// bounds). Every sum is compared against a size first, so nothing can wrap around.
const uint8_t* view_bytes(const tinygltf::Model& model, const std::string& path,
                          const std::string& what, int view, uint64_t offset, uint64_t count,
                          uint64_t element, uint64_t stride) {
  if (view < 0 || size_t(view) >= model.bufferViews.size())
    fail(path, fmt::format("{}: bufferView {} does not exist ({} bufferViews)", what, view,
                           model.bufferViews.size()));
  const tinygltf::BufferView& bv = model.bufferViews[view];
  if (bv.buffer < 0 || size_t(bv.buffer) >= model.buffers.size())
    fail(path, fmt::format("bufferView {} names buffer {}, which does not exist ({} buffers)", view,
                           bv.buffer, model.buffers.size()));
  const uint64_t buffer_size = model.buffers[bv.buffer].data.size();
  if (bv.byteOffset > buffer_size || bv.byteLength > buffer_size - bv.byteOffset)
    fail(path, fmt::format("bufferView {} (byteOffset {} + byteLength {}) exceeds buffer {} of {} "
                           "bytes",
                           view, bv.byteOffset, bv.byteLength, bv.buffer, buffer_size));
  if (count > 0) {
    const uint64_t length = bv.byteLength;
    const bool fits = offset <= length && element <= length - offset &&
                      (count - 1) <= (length - offset - element) / stride;
    if (!fits)
      fail(path, fmt::format("{}: {} elements of {} bytes at stride {} from byteOffset {} do not "
                             "fit bufferView {} of {} bytes",
                             what, count, element, stride, offset, view, length));
  }
  return model.buffers[bv.buffer].data.data() + bv.byteOffset + offset;
}

AccessorData read_accessor(const tinygltf::Model& model, int index, const std::string& path,
                           const std::string& role) {
  if (index < 0 || size_t(index) >= model.accessors.size())
    fail(path, fmt::format("{}: accessor {} does not exist ({} accessors)", role, index,
                           model.accessors.size()));
  const tinygltf::Accessor& a = model.accessors[index];
  const std::string what = fmt::format("{} accessor {}", role, index);
  AccessorData d;
  d.component_type = a.componentType;
  d.normalized = a.normalized;
  const size_t bytes = component_size(a.componentType);
  const int comps = tinygltf::GetNumComponentsInType(a.type);
  if (bytes == 0 || comps <= 0 || comps > 4)
    fail(path, fmt::format("{}: componentType {} / type {} is not a vector or scalar accessor",
                           what, a.componentType, a.type));
  d.components = static_cast<size_t>(comps);
  if (a.count > kMaxAccessorCount)
    fail(path, fmt::format("{}: count {} exceeds bindery's limit of {} elements per accessor", what,
                           a.count, kMaxAccessorCount));
  d.count = a.count;
  const size_t element = d.components * bytes;
  d.values.assign(d.count * d.components, 0.0);  // no bufferView: all zeros ("Accessors")
  if (a.bufferView >= 0) {
    const tinygltf::BufferView* bv = size_t(a.bufferView) < model.bufferViews.size()
                                         ? &model.bufferViews[a.bufferView]
                                         : nullptr;
    const size_t stride = bv && bv->byteStride ? bv->byteStride : element;
    if (stride < element)
      fail(path, fmt::format("{}: bufferView {} byteStride {} is smaller than the {}-byte element",
                             what, a.bufferView, stride, element));
    const uint8_t* base =
        view_bytes(model, path, what, a.bufferView, a.byteOffset, d.count, element, stride);
    for (size_t i = 0; i < d.count; ++i)
      for (size_t c = 0; c < d.components; ++c)
        d.values[i * d.components + c] =
            decode_component(base + i * stride + c * bytes, a.componentType, a.normalized);
  }
  if (a.sparse.isSparse) {
    // Sparse: `count` (index, value) pairs replace elements of the base; indices and values are
    // tightly packed in their bufferViews.
    const auto& s = a.sparse;
    if (s.count < 1 || uint64_t(s.count) > d.count)
      fail(path,
           fmt::format("{}: sparse.count {} is outside 1..count ({})", what, s.count, d.count));
    const int index_type = s.indices.componentType;
    if (index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
        index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
      fail(path, fmt::format("{}: sparse.indices.componentType {} is not UNSIGNED_BYTE, "
                             "UNSIGNED_SHORT or UNSIGNED_INT",
                             what, index_type));
    if (s.indices.byteOffset < 0 || s.values.byteOffset < 0)
      fail(path, fmt::format("{}: sparse byteOffset is negative", what));
    const size_t index_bytes = component_size(index_type);
    const uint8_t* indices =
        view_bytes(model, path, what + " sparse.indices", s.indices.bufferView,
                   uint64_t(s.indices.byteOffset), uint64_t(s.count), index_bytes, index_bytes);
    const uint8_t* values =
        view_bytes(model, path, what + " sparse.values", s.values.bufferView,
                   uint64_t(s.values.byteOffset), uint64_t(s.count), element, element);
    for (int k = 0; k < s.count; ++k) {
      const double target = decode_component(indices + size_t(k) * index_bytes, index_type, false);
      if (target >= double(d.count))
        fail(path, fmt::format("{}: sparse index {} = {} is out of range (count {})", what, k,
                               uint64_t(target), d.count));
      const size_t i = static_cast<size_t>(target);
      for (size_t c = 0; c < d.components; ++c)
        d.values[i * d.components + c] = decode_component(values + size_t(k) * element + c * bytes,
                                                          a.componentType, a.normalized);
    }
  }
  return d;
}

// Component types each attribute may use: glTF 2.0 core ("Meshes", attribute table) and, when
// the file uses it, KHR_mesh_quantization's additions.
enum class Semantic { position, normal, texcoord, color };

bool component_type_allowed(Semantic s, int type, bool normalized, bool quantization) {
  const bool is_float = type == TINYGLTF_COMPONENT_TYPE_FLOAT;
  const bool u8 = type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
  const bool u16 = type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
  const bool i8 = type == TINYGLTF_COMPONENT_TYPE_BYTE;
  const bool i16 = type == TINYGLTF_COMPONENT_TYPE_SHORT;
  switch (s) {
    case Semantic::position:
      return is_float || (quantization && (u8 || u16 || i8 || i16));
    case Semantic::normal:
      return is_float || (quantization && normalized && (i8 || i16));
    case Semantic::texcoord:
      return is_float || (normalized && (u8 || u16)) || (quantization && (u8 || u16 || i8 || i16));
    case Semantic::color:
      return is_float || (normalized && (u8 || u16));
  }
  return false;
}

const char* allowed_text(Semantic s) {
  switch (s) {
    case Semantic::position:
      return "FLOAT; KHR_mesh_quantization adds BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT";
    case Semantic::normal:
      return "FLOAT; KHR_mesh_quantization adds normalized BYTE and SHORT";
    case Semantic::texcoord:
      return "FLOAT, normalized UNSIGNED_BYTE or UNSIGNED_SHORT; KHR_mesh_quantization adds BYTE, "
             "SHORT and non-normalized integers";
    case Semantic::color:
      return "FLOAT, normalized UNSIGNED_BYTE or UNSIGNED_SHORT";
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// 4. Images, samplers, materials, nodes.

// A decoded tinygltf image (8 or 16 bits, 1..4 components) as RGBA8: 16-bit samples scaled by
// round(v * 255 / 65535); grey replicated to RGB; missing alpha 255.
std::vector<uint8_t> to_rgba8(const tinygltf::Image& img, int index, const std::string& path) {
  const size_t pixels = size_t(img.width) * size_t(img.height);
  const size_t sample_bytes = img.bits == 16 ? 2 : 1;
  if ((img.bits != 8 && img.bits != 16) || img.component < 1 || img.component > 4 ||
      img.width <= 0 || img.height <= 0 ||
      img.image.size() < pixels * size_t(img.component) * sample_bytes)
    fail(path, fmt::format("image {} ('{}') is not a decoded 8- or 16-bit image ({}x{}, {} "
                           "components, {} bits, {} bytes)",
                           index, img.uri.empty() ? img.name : img.uri, img.width, img.height,
                           img.component, img.bits, img.image.size()));
  auto sample = [&](size_t p, int c) -> uint8_t {
    const size_t at = (p * size_t(img.component) + size_t(c)) * sample_bytes;
    if (sample_bytes == 1) return img.image[at];
    uint16_t v;
    std::memcpy(&v, &img.image[at], 2);  // stb_image returns 16-bit samples in host order
    return static_cast<uint8_t>((uint32_t(v) * 255u + 32767u) / 65535u);
  };
  std::vector<uint8_t> out(pixels * 4);
  for (size_t p = 0; p < pixels; ++p) {
    uint8_t* d = &out[p * 4];
    if (img.component <= 2) {
      d[0] = d[1] = d[2] = sample(p, 0);
      d[3] = img.component == 2 ? sample(p, 1) : 255;
    } else {
      for (int c = 0; c < 3; ++c) d[c] = sample(p, c);
      d[3] = img.component == 4 ? sample(p, 3) : 255;
    }
  }
  return out;
}

// glTF sampler -> SamplerData ("Samplers"; undefined filters: the article's defaults).
SamplerData sampler_data(const tinygltf::Model& model, int index, const std::string& path) {
  SamplerData s;
  s.address_mode_u = s.address_mode_v = AddressMode::repeat;  // no sampler: repeat wrapping
  if (index < 0) return s;
  if (size_t(index) >= model.samplers.size())
    fail(path,
         fmt::format("sampler {} does not exist ({} samplers)", index, model.samplers.size()));
  const tinygltf::Sampler& g = model.samplers[index];
  auto wrap = [&](int mode, const char* field) {
    switch (mode) {
      case TINYGLTF_TEXTURE_WRAP_REPEAT:
        return AddressMode::repeat;
      case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE:
        return AddressMode::clamp_to_edge;
      case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT:
        return AddressMode::mirror_repeat;
    }
    fail(path, fmt::format("sampler {}: {} {} is not 33071, 33648 or 10497", index, field, mode));
  };
  s.address_mode_u = wrap(g.wrapS, "wrapS");
  s.address_mode_v = wrap(g.wrapT, "wrapT");
  switch (g.magFilter) {
    case -1:
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST:
      s.mag_filter = FilterMode::nearest;
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR:
      s.mag_filter = FilterMode::linear;
      break;
    default:
      fail(path, fmt::format("sampler {}: magFilter {} is not 9728 or 9729", index, g.magFilter));
  }
  const FilterMode n = FilterMode::nearest, l = FilterMode::linear;
  switch (g.minFilter) {
    case -1:
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST:
      s.min_filter = n;
      s.use_mipmaps = false;
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR:
      s.min_filter = l;
      s.use_mipmaps = false;
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_NEAREST:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(n, n);
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_NEAREST:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(l, n);
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_LINEAR:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(n, l);
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(l, l);
      break;
    default:
      fail(path, fmt::format("sampler {}: minFilter {} is not 9728, 9729 or 9984..9987", index,
                             g.minFilter));
  }
  return s;
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

uint8_t to_unorm8(double v) {
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

Scene load_gltf(const std::string& path, uint32_t instances, std::string& stage);

}  // namespace

Scene load_gltf_scene(const std::string& path, uint32_t instances) {
  if (instances == 0)
    throw Error(ErrorKind::SceneInput, "glTF scene: --instances must be at least 1");
  std::string stage = "reading the file";
  try {
    return load_gltf(path, instances, stage);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    fail(path, fmt::format("while {}: the model needs more memory than is available (counts or "
                           "sizes too large)",
                           stage));
  } catch (const std::length_error&) {
    fail(path, fmt::format("while {}: a count or size in the model is too large to load", stage));
  } catch (const std::exception& e) {
    fail(path, fmt::format("while {}: {}", stage, e.what()));
  } catch (...) {
    fail(path, fmt::format("while {}: an unknown exception", stage));
  }
}

namespace {

Scene load_gltf(const std::string& path, uint32_t instances, std::string& stage) {
  const std::string bytes = read_input_file(path, "glTF", kMaxGltfFileBytes);
  stage = "checking extensionsRequired";
  const bool binary = has_glb_magic(bytes);
  check_required_extensions(path, json_text(path, bytes));

  stage = "parsing the file with tinygltf";
  tinygltf::TinyGLTF loader;
  CallbackState callbacks;
  loader.SetFsCallbacks(
      {&file_exists, &expand_file_path, &read_whole_file, &write_whole_file, &callbacks});
  loader.SetImageLoader(&load_image, &callbacks);
  tinygltf::Model model;
  std::string err, warn;
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  const bool ok =
      binary ? loader.LoadBinaryFromMemory(&model, &err, &warn,
                                           reinterpret_cast<const unsigned char*>(bytes.data()),
                                           static_cast<unsigned>(bytes.size()), base_dir)
             : loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(),
                                          static_cast<unsigned>(bytes.size()), base_dir);
  if (callbacks.error) {
    try {
      std::rethrow_exception(callbacks.error);
    } catch (const Error& e) {
      throw Error(e.kind(), fmt::format("glTF '{}': {}", path, e.what()));
    }
  }
  if (!ok) {
    std::string msg = err.empty() ? std::string("not a readable glTF 2.0 file") : err;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.pop_back();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    fail(path, msg);
  }
  const bool quantization =
      std::count(model.extensionsUsed.begin(), model.extensionsUsed.end(),
                 "KHR_mesh_quantization") +
          std::count(model.extensionsRequired.begin(), model.extensionsRequired.end(),
                     "KHR_mesh_quantization") >
      0;

  Scene scene;
  scene.name = "gltf";
  // Texture 0 is white: materials without a base colour texture sample it (factor only).
  scene.textures.push_back(make_texture_with_mips("white", 1, 1, {255, 255, 255, 255}));
  auto warn_once = [&](std::string line) {
    if (std::find(scene.warnings.begin(), scene.warnings.end(), line) == scene.warnings.end())
      scene.warnings.push_back(std::move(line));
  };
  if (!model.animations.empty())
    warn_once("animations are not played (nodes keep their own transforms)");
  if (!model.skins.empty()) warn_once("skins are not applied (meshes are drawn unskinned)");

  std::map<int, uint32_t> texture_of_image;
  auto sampler_index = [&](const SamplerData& s) -> uint32_t {
    auto it = std::find(scene.samplers.begin(), scene.samplers.end(), s);
    if (it != scene.samplers.end()) return static_cast<uint32_t>(it - scene.samplers.begin());
    scene.samplers.push_back(s);
    return static_cast<uint32_t>(scene.samplers.size() - 1);
  };
  // A base colour texture -> (scene texture, scene sampler).
  auto texture_for = [&](int gltf_texture) -> std::pair<uint32_t, uint32_t> {
    if (gltf_texture < 0) return {0, 0};  // no base colour texture: white
    if (size_t(gltf_texture) >= model.textures.size())
      fail(path, fmt::format("texture {} does not exist ({} textures)", gltf_texture,
                             model.textures.size()));
    const tinygltf::Texture& tex = model.textures[gltf_texture];
    const uint32_t sampler = sampler_index(sampler_data(model, tex.sampler, path));
    const int source = tex.source;
    if (source < 0 || size_t(source) >= model.images.size())
      fail(path, fmt::format("texture {} names image {}, which does not exist ({} images)",
                             gltf_texture, source, model.images.size()));
    auto it = texture_of_image.find(source);
    if (it != texture_of_image.end()) return {it->second, sampler};
    stage = fmt::format("converting image {}", source);
    const tinygltf::Image& img = model.images[source];
    if (img.width <= 0 || img.height <= 0)
      fail(path, fmt::format("image {} ('{}') could not be read or decoded", source,
                             img.uri.empty() ? img.name : img.uri));
    scene.textures.push_back(make_texture_with_mips(img.name.empty() ? img.uri : img.name,
                                                    uint32_t(img.width), uint32_t(img.height),
                                                    to_rgba8(img, source, path)));
    const uint32_t t = static_cast<uint32_t>(scene.textures.size() - 1);
    texture_of_image[source] = t;
    return {t, sampler};
  };

  // Materials: glTF material i -> scene material i; the default material (every property at its
  // default: base colour 1, roughness 1; "Default Material") at the end.
  auto convert_material = [&](const tinygltf::Material& m, size_t index) {
    stage = fmt::format("reading material {}", index);
    Material mat;
    const auto& f = m.pbrMetallicRoughness.baseColorFactor;
    if (f.size() == 4) mat.color = glm::vec4(f[0], f[1], f[2], f[3]);
    const double roughness = std::clamp(m.pbrMetallicRoughness.roughnessFactor, 0.0, 1.0);
    mat.shininess = static_cast<float>(2.0 + (1.0 - roughness) * 118.0);
    const tinygltf::TextureInfo& base = m.pbrMetallicRoughness.baseColorTexture;
    std::tie(mat.texture, mat.sampler) = texture_for(base.index);
    if (base.extensions.count("KHR_texture_transform"))
      warn_once("KHR_texture_transform is not applied (textures keep their own placement)");
    if (m.alphaMode == "OPAQUE" || m.alphaMode.empty()) {
      mat.alpha_mode = AlphaMode::opaque;
    } else if (m.alphaMode == "MASK") {
      mat.alpha_mode = AlphaMode::mask;
      if (!(m.alphaCutoff >= 0.0) || !std::isfinite(m.alphaCutoff))
        fail(path,
             fmt::format("material {}: alphaCutoff {} is not a number >= 0", index, m.alphaCutoff));
      mat.alpha_cutoff = static_cast<float>(m.alphaCutoff);
    } else if (m.alphaMode == "BLEND") {
      mat.alpha_mode = AlphaMode::blend;
    } else {
      fail(path, fmt::format("material {}: alphaMode '{}' is not OPAQUE, MASK or BLEND", index,
                             m.alphaMode));
    }
    return mat;
  };
  for (size_t i = 0; i < model.materials.size(); ++i)
    scene.materials.push_back(convert_material(model.materials[i], i));
  const tinygltf::Material default_gltf_material;
  const uint32_t default_material = static_cast<uint32_t>(scene.materials.size());
  scene.materials.push_back(convert_material(default_gltf_material, default_material));

  // Meshes: one per (glTF mesh, primitive, mirrored) drawn, built once.
  std::map<std::tuple<int, int, bool>, uint32_t> mesh_of_primitive;
  constexpr uint32_t kSkipped = UINT32_MAX;
  auto build_mesh = [&](int mesh_index, int prim_index, bool mirrored) -> uint32_t {
    const auto key = std::make_tuple(mesh_index, prim_index, mirrored);
    if (auto it = mesh_of_primitive.find(key); it != mesh_of_primitive.end()) return it->second;
    const tinygltf::Primitive& p = model.meshes[mesh_index].primitives[prim_index];
    const std::string what = fmt::format("mesh {} primitive {}", mesh_index, prim_index);
    stage = "reading " + what;
    const int mode = p.mode < 0 ? gltf::kTriangles : p.mode;
    if (gltf::mode_name(mode).empty())
      fail(path, fmt::format("{}: mode {} is not a glTF primitive mode (0..6)", what, p.mode));
    if (mode != gltf::kTriangles && mode != gltf::kTriangleStrip && mode != gltf::kTriangleFan) {
      warn_once(fmt::format("{}: mode {} ({}) skipped: bindery draws triangles only", what, mode,
                            gltf::mode_name(mode)));
      return mesh_of_primitive[key] = kSkipped;
    }
    if (p.material >= 0 && size_t(p.material) >= model.materials.size())
      fail(path, fmt::format("{} names material {}, which does not exist ({} materials)", what,
                             p.material, model.materials.size()));
    const tinygltf::Material& material =
        p.material >= 0 ? model.materials[p.material] : default_gltf_material;

    auto attribute = [&](const std::string& name, Semantic semantic,
                         std::initializer_list<size_t> components) -> std::optional<AccessorData> {
      auto it = p.attributes.find(name);
      if (it == p.attributes.end()) return std::nullopt;
      const std::string role = fmt::format("{} {}", what, name);
      stage = fmt::format("reading {} (accessor {})", role, it->second);
      AccessorData d = read_accessor(model, it->second, path, role);
      if (std::find(components.begin(), components.end(), d.components) == components.end())
        fail(path, fmt::format("{} accessor {} has {} components per element; {} takes {}", role,
                               it->second, d.components, name, fmt::join(components, " or ")));
      if (!component_type_allowed(semantic, d.component_type, d.normalized, quantization))
        fail(path, fmt::format("{} accessor {} is {}{}; glTF 2.0 allows {}{}", role, it->second,
                               d.normalized ? "normalized " : "",
                               component_type_name(d.component_type), allowed_text(semantic),
                               quantization || semantic == Semantic::color
                                   ? ""
                                   : " (the file does not use KHR_mesh_quantization)"));
      return d;
    };

    const std::optional<AccessorData> pos = attribute("POSITION", Semantic::position, {3});
    if (!pos) fail(path, what + " has no POSITION attribute");
    const size_t vertex_count = pos->count;
    auto check_count = [&](const std::optional<AccessorData>& d, const char* name) {
      if (d && d->count != vertex_count)
        fail(path, fmt::format("{}: {} has {} elements, POSITION {} (one per vertex required)",
                               what, name, d->count, vertex_count));
    };
    const std::string texcoord_name =
        fmt::format("TEXCOORD_{}", material.pbrMetallicRoughness.baseColorTexture.texCoord);
    const std::optional<AccessorData> uv = attribute(texcoord_name, Semantic::texcoord, {2});
    const std::optional<AccessorData> normal = attribute("NORMAL", Semantic::normal, {3});
    const std::optional<AccessorData> color = attribute("COLOR_0", Semantic::color, {3, 4});
    check_count(uv, texcoord_name.c_str());
    check_count(normal, "NORMAL");
    check_count(color, "COLOR_0");

    Mesh mesh;
    mesh.name = fmt::format("{}/{}", model.meshes[mesh_index].name, prim_index);
    mesh.vertices.resize(vertex_count);
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    for (size_t i = 0; i < vertex_count; ++i) {
      Vertex& v = mesh.vertices[i];
      v.position = glm::vec3(pos->get(i, 0), pos->get(i, 1), pos->get(i, 2));
      if (!std::isfinite(v.position.x) || !std::isfinite(v.position.y) ||
          !std::isfinite(v.position.z))
        fail(path, fmt::format("{}: POSITION {} is not finite", what, i));
      lo = glm::min(lo, v.position);
      hi = glm::max(hi, v.position);
      if (uv) v.texcoord = glm::vec2(uv->get(i, 0), uv->get(i, 1));
      if (normal) v.normal = glm::vec3(normal->get(i, 0), normal->get(i, 1), normal->get(i, 2));
      if (color)
        v.color = glm::u8vec4(to_unorm8(color->get(i, 0)), to_unorm8(color->get(i, 1)),
                              to_unorm8(color->get(i, 2)),
                              color->components == 4 ? to_unorm8(color->get(i, 3)) : 255);
    }
    mesh.bounds_min = vertex_count ? lo : glm::vec3(0);
    mesh.bounds_max = vertex_count ? hi : glm::vec3(0);

    // The vertex sequence: the indices, or 0..count-1.
    std::vector<uint32_t> sequence;
    if (p.indices < -1)
      fail(path, fmt::format("{}: indices accessor {} does not exist", what, p.indices));
    if (p.indices >= 0) {
      stage = fmt::format("reading {} indices (accessor {})", what, p.indices);
      const AccessorData idx = read_accessor(model, p.indices, path, what + " indices");
      if (idx.components != 1 || (idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
                                  idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
                                  idx.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT))
        fail(path, fmt::format("{}: indices accessor {} is not UNSIGNED_BYTE, UNSIGNED_SHORT or "
                               "UNSIGNED_INT scalars",
                               what, p.indices));
      sequence.resize(idx.count);
      for (size_t i = 0; i < idx.count; ++i) {
        const double v = idx.values[i];
        if (v >= double(vertex_count))
          fail(path, fmt::format("{}: index {} = {} is out of range (vertex count {})", what, i,
                                 static_cast<uint64_t>(v), vertex_count));
        sequence[i] = static_cast<uint32_t>(v);
      }
    } else {
      sequence.resize(vertex_count);
      for (size_t i = 0; i < vertex_count; ++i) sequence[i] = static_cast<uint32_t>(i);
    }
    stage = "building the triangles of " + what;
    mesh.indices = gltf::triangle_list(mode, sequence);
    if (mode == gltf::kTriangles && sequence.size() % 3 != 0)
      warn_once(fmt::format("{}: {} vertices are not whole triangles; the last {} ignored", what,
                            sequence.size(), sequence.size() % 3));
    if (mesh.indices.empty()) {  // nothing to draw: skipped (a draw of 0 indices binds 0 bytes)
      warn_once(
          fmt::format("{}: {} vertices make no whole triangle; skipped", what, sequence.size()));
      return mesh_of_primitive[key] = kSkipped;
    }
    if (!normal) gltf::make_flat_normals(mesh);            // "Meshes": flat normals when missing
    if (mirrored) gltf::reverse_winding(mesh.indices);     // "Transformations": det < 0
    if (material.doubleSided) gltf::add_back_faces(mesh);  // "Double Sided"
    mesh.index16 = mesh.vertices.size() <= 65536;
    scene.meshes.push_back(std::move(mesh));
    return mesh_of_primitive[key] = static_cast<uint32_t>(scene.meshes.size() - 1);
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
      // "Transformations": a negative determinant mirrors; its front faces are clockwise.
      const bool mirrored = glm::determinant(glm::mat3(world)) < 0.0f;
      const auto& prims = model.meshes[n.mesh].primitives;
      for (size_t p = 0; p < prims.size(); ++p) {
        const uint32_t mesh = build_mesh(n.mesh, static_cast<int>(p), mirrored);
        if (mesh == kSkipped) continue;
        const int mat = prims[p].material;
        parts.push_back({mesh, mat >= 0 ? uint32_t(mat) : default_material, world});
      }
    }
    for (int child : n.children) visit(child, world);
    stack.pop_back();
  };
  stage = "walking the node hierarchy";
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
  if (parts.empty())
    fail(path, scene.warnings.empty()
                   ? std::string("the scene has no triangle primitives to draw")
                   : fmt::format("the scene has no triangle primitives to draw ({})",
                                 fmt::join(scene.warnings, "; ")));

  // Model bounds (in model space after node transforms).
  stage = "placing the instances";
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
