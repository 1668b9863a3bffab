// SPDX-License-Identifier: MIT
// glTF 2.0 models as a Scene: every triangle primitive becomes a Mesh, every (node, primitive)
// pair of every instance an Object with its own material and a static placement on a grid.
//
// Order of work (GltfLoader::load(); each stage's failures are one bindery::Error naming the file
// and what broke):
//   1. read_and_validate_json: the file is read (Io); bindery's own JSON pass (gltf_json.hpp)
//      limits the nesting depth, checks extensionsRequired (UnsupportedExtension), every integer
//      field's type and range, and resolves every external resource a buffer or a used image
//      names inside the model's folder (resource_resolver.hpp) before tinygltf sees the file;
//   2. parse_model: tinygltf parses it; its file callbacks open only what step 1 resolved, and
//      its image callback decodes only images a material uses (gltf_image.hpp: PNG or JPEG, size
//      and budget checked before decoding), keeping exceptions for after it returns (ModelLoad);
//   3. build_materials: materials, their base colour textures and samplers;
//   4. walk_nodes: the node hierarchy with every world matrix checked finite in float; each
//      drawn primitive is built once (build_mesh): accessors bounds-checked and decoded (base
//      bufferView or zeros, then sparse values) before any byte is used, attribute component
//      types as the glTF 2.0 core table and, where the file uses it, KHR_mesh_quantization's;
//      triangles as gltf_mesh.hpp makes them (strips, fans, flat normals, mirrored copies,
//      double-sided back faces);
//   5. place_instances, place_camera: the copies on a grid and a camera that frames them, every
//      bound and placement checked finite in float.
// An exception from tinygltf, the image decoder or the standard library that escapes all this is
// caught at the boundary (load_gltf_scene) and becomes a ModelLoad error naming the stage.
#include "bindery/core/error.hpp"
#include "bindery/core/io.hpp"
#include "bindery/core/limits.hpp"
#include "bindery/render/scene.hpp"
#include "gltf_image.hpp"
#include "gltf_json.hpp"
#include "gltf_mesh.hpp"
#include "resource_resolver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <tiny_gltf.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
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

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::ModelLoad, fmt::format("glTF '{}': {}", path, what));
}

// ---------------------------------------------------------------------------------------------
// 1. The JSON text, which bindery checks itself (gltf_json.hpp) before tinygltf sees it: tinygltf
//    may fail on what an unimplemented extension changes, or recurse and read outside the folder.

// ---------------------------------------------------------------------------------------------
// 2. tinygltf with bindery's file reading and an image decoder that cannot throw through it.

// tinygltf joins each search folder to the URI it decoded and asks the callbacks about the path;
// its folders are the base folder given to it and "." (the current directory). Given this
// base folder, a path that starts with it is a URI to look up among the resources the JSON pass
// resolved; every other path (the "." fallback) exists for nobody. No control byte can start a
// path tinygltf builds from ".", so the two cannot be confused.
const std::string kModelFolder = "\x01model-folder";

// What tinygltf's callbacks need, and what they saw go wrong (rethrown after tinygltf returns).
struct CallbackState {
  const gltf::GltfJsonFacts* facts = nullptr;
  uint64_t image_budget_bytes = 0;
  uint64_t image_bytes_used = 0;
  std::exception_ptr error;
};

// The JSON pass's key for a path tinygltf built from kModelFolder; nullopt for any other path.
std::optional<std::string> resource_key(const std::string& path) {
  if (path.size() <= kModelFolder.size() + 1 || path.compare(0, kModelFolder.size(), kModelFolder))
    return std::nullopt;
  if (path[kModelFolder.size()] != '/') return std::nullopt;
  return path.substr(kModelFolder.size() + 1);
}

bool file_exists(const std::string& path, void* user) {
  const auto* state = static_cast<CallbackState*>(user);
  const std::optional<std::string> key = resource_key(path);
  return key && state->facts->resources.count(*key) > 0;
}

// tinygltf's default expands the path like a shell would (wordexp); a URI is a path, nothing more.
std::string expand_file_path(const std::string& path, void*) {
  return path;
}

bool read_whole_file(std::vector<unsigned char>* out, std::string* err, const std::string& path,
                     void* user) {
  auto* state = static_cast<CallbackState*>(user);
  const std::optional<std::string> key = resource_key(path);
  const auto found = key ? state->facts->resources.find(*key) : state->facts->resources.end();
  const std::string uri = found != state->facts->resources.end()
                              ? gltf::quote_input(state->facts->uri_as_written.at(*key))
                              : std::string("(not resolved)");
  try {
    if (found == state->facts->resources.end())
      throw Error(ErrorKind::ModelLoad, "was not resolved inside the model's folder");
    *out = read_model_resource(found->second, kMaxGltfFileBytes);
    return true;
  } catch (const Error& e) {
    if (!state->error)
      state->error = std::make_exception_ptr(
          Error(e.kind(), fmt::format("resource uri '{}' {}", uri, e.what())));
  } catch (...) {
    if (!state->error) state->error = std::current_exception();
  }
  if (err) *err += "cannot read resource '" + uri + "'";
  return false;
}

bool write_whole_file(std::string* err, const std::string&, const std::vector<unsigned char>&,
                      void*) {
  if (err) *err += "bindery does not write glTF files";
  return false;
}

// tinygltf's error text for a file bindery's own checks let through, as one capped line: its
// folder marker replaced by "the model's folder", every data: URI cut to 80 characters, the
// whole to 300.
std::string tinygltf_refusal(std::string text) {
  if (text.empty()) text = "no reason given";
  for (size_t at = text.find(kModelFolder); at != text.npos; at = text.find(kModelFolder, at))
    text.replace(at, kModelFolder.size(), "(the model's folder)");
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 5, "data:") == 0) {
      const size_t end = std::min(text.find_first_of(" \n", i), text.size());
      out += text.substr(i, std::min<size_t>(end - i, 80));
      if (end - i > 80) out += "...";
      i = end;
    } else {
      out += text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
      ++i;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return "the glTF library refused it: " + gltf::quote_input(out, 300);
}

// Decodes used images (gltf_image.hpp) to RGBA8 into the tinygltf image; leaves the others
// undecoded (bindery draws none of them).
bool load_image(tinygltf::Image* image, const int index, std::string* err, std::string*, int, int,
                const unsigned char* bytes, int size, void* user) {
  auto* state = static_cast<CallbackState*>(user);
  const std::vector<bool>& used = state->facts->image_used;
  if (index < 0 || size_t(index) >= used.size() || !used[size_t(index)]) return true;
  try {
    // glTF 2.0 "Images": the declared media type (mimeType, or a data: URI's) is the bytes' type.
    const std::span<const uint8_t> data(bytes, size_t(std::max(size, 0)));
    const std::string& declared = state->facts->image_media_type.size() > size_t(index)
                                      ? state->facts->image_media_type[size_t(index)]
                                      : std::string();
    const std::string_view format = gltf::image_format_name(data);
    if ((declared == "image/png" && format == "JPEG") ||
        (declared == "image/jpeg" && format == "PNG"))
      throw Error(ErrorKind::ModelLoad,
                  fmt::format("image {} is declared {} but its bytes are a {} file (by their "
                              "signature); glTF 2.0 images must be of their declared media type",
                              index, declared, format));
    gltf::DecodedImage d = gltf::decode_gltf_image(
        std::span(bytes, size_t(std::max(size, 0))), fmt::format("image {}", index),
        state->image_budget_bytes, state->image_bytes_used);
    image->width = static_cast<int>(d.width);
    image->height = static_cast<int>(d.height);
    image->component = 4;
    image->bits = 8;
    image->pixel_type = TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
    image->image = std::move(d.rgba);
    return true;
  } catch (...) {
    if (!state->error) state->error = std::current_exception();
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
    double previous = -1.0;
    for (int k = 0; k < s.count; ++k) {
      const double target = decode_component(indices + size_t(k) * index_bytes, index_type, false);
      if (target >= double(d.count))
        fail(path, fmt::format("{}: sparse index {} = {} is out of range (count {})", what, k,
                               uint64_t(target), d.count));
      // glTF 2.0 accessor.sparse.indices: "strictly increasing" (no repeats, in order).
      if (target <= previous)
        fail(path, fmt::format("{}: sparse index {} = {} is not greater than index {} = {}; "
                               "sparse indices must strictly increase (glTF 2.0 "
                               "accessor.sparse.indices)",
                               what, k, uint64_t(target), k - 1, uint64_t(previous)));
      previous = target;
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
// 4. Samplers and node transforms.

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

uint8_t to_unorm8(double v) {
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

// ---------------------------------------------------------------------------------------------
// 5. The loader: one member function per stage (load() runs them in order).

constexpr uint32_t kSkipped = UINT32_MAX;  // a primitive bindery does not draw

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
  loader.SetFsCallbacks(
      {&file_exists, &expand_file_path, &read_whole_file, &write_whole_file, &callbacks});
  loader.SetImageLoader(&load_image, &callbacks);
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

uint32_t GltfLoader::sampler_index(const SamplerData& s) {
  auto it = std::find(scene_.samplers.begin(), scene_.samplers.end(), s);
  if (it != scene_.samplers.end()) return static_cast<uint32_t>(it - scene_.samplers.begin());
  scene_.samplers.push_back(s);
  return static_cast<uint32_t>(scene_.samplers.size() - 1);
}

// A base colour texture -> (scene texture, scene sampler). Its image was decoded to RGBA8 by
// load_image; the pixels move into the scene's texture (no copy).
std::pair<uint32_t, uint32_t> GltfLoader::texture_for(int gltf_texture) {
  if (gltf_texture < 0) return {0, 0};  // no base colour texture: white
  if (size_t(gltf_texture) >= model_.textures.size())
    fail(path_, fmt::format("texture {} does not exist ({} textures)", gltf_texture,
                            model_.textures.size()));
  const tinygltf::Texture& tex = model_.textures[gltf_texture];
  const uint32_t sampler = sampler_index(sampler_data(model_, tex.sampler, path_));
  const int source = tex.source;
  if (source < 0 && tex.extensions.count("KHR_texture_basisu"))
    fail(path_, fmt::format("texture {} has no source bindery can decode: its only image is given "
                            "through KHR_texture_basisu, which bindery does not support (a "
                            "texture's source is a PNG or JPEG image)",
                            gltf_texture));
  if (source < 0)
    fail(path_, fmt::format("texture {} has no source (and no extension bindery supports gives "
                            "one); bindery draws textures from a PNG or JPEG source image",
                            gltf_texture));
  if (size_t(source) >= model_.images.size())
    fail(path_, fmt::format("texture {} names image {}, which does not exist ({} images)",
                            gltf_texture, source, model_.images.size()));
  auto it = texture_of_image_.find(source);
  if (it != texture_of_image_.end()) return {it->second, sampler};
  stage_ = fmt::format("converting image {}", source);
  tinygltf::Image& img = model_.images[source];
  const size_t bytes = size_t(std::max(img.width, 0)) * size_t(std::max(img.height, 0)) * 4;
  if (img.width <= 0 || img.height <= 0 || img.component != 4 || img.bits != 8 ||
      img.image.size() != bytes)
    fail(path_, fmt::format("image {} ('{}') could not be read or decoded", source,
                            gltf::quote_input(img.uri.empty() ? img.name : img.uri)));
  // Named after the file's image, so that a later refusal (a side past the device's
  // maxTextureDimension2D) says which image of the model it is.
  const std::string label = img.name.empty() ? (is_data_uri(img.uri) ? "" : img.uri) : img.name;
  scene_.textures.push_back(make_texture_with_mips(
      label.empty() ? fmt::format("glTF image {}", source)
                    : fmt::format("glTF image {} '{}'", source, gltf::quote_input(label)),
      uint32_t(img.width), uint32_t(img.height), std::move(img.image)));
  const uint32_t t = static_cast<uint32_t>(scene_.textures.size() - 1);
  texture_of_image_[source] = t;
  return {t, sampler};
}

Material GltfLoader::convert_material(const tinygltf::Material& m, size_t index) {
  stage_ = fmt::format("reading material {}", index);
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
      fail(path_,
           fmt::format("material {}: alphaCutoff {} is not a number >= 0", index, m.alphaCutoff));
    mat.alpha_cutoff = static_cast<float>(m.alphaCutoff);
  } else if (m.alphaMode == "BLEND") {
    mat.alpha_mode = AlphaMode::blend;
  } else {
    fail(path_, fmt::format("material {}: alphaMode '{}' is not OPAQUE, MASK or BLEND", index,
                            escape_for_message(m.alphaMode)));
  }
  return mat;
}

// Stage 3: glTF material i -> scene material i; the default material (every property at its
// default: base colour 1, roughness 1; "Default Material") at the end.
void GltfLoader::build_materials() {
  for (size_t i = 0; i < model_.materials.size(); ++i)
    scene_.materials.push_back(convert_material(model_.materials[i], i));
  default_material_ = static_cast<uint32_t>(scene_.materials.size());
  scene_.materials.push_back(convert_material(default_gltf_material_, default_material_));
}

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
      charge_geometry(uint64_t(a.count) * uint64_t(comps) * sizeof(double),
                      fmt::format("{} accessor {}", role, index),
                      fmt::format("{} elements of {} components, decoded at 8 bytes each",
                                  a.count, comps));
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
  const size_t zero = size_t(std::count_if(mesh.vertices.begin(), mesh.vertices.end(),
                                           [](const Vertex& v) { return v.normal == glm::vec3(0); }));
  if (zero > 0)
    warn_once(fmt::format("{}: {} of its {} NORMAL vectors are (0, 0, 0), not unit length (glTF "
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
      fail(path_, fmt::format("{}: {} has {} elements, POSITION {} (one per vertex required)",
                              what, name, d->count, vertex_count));
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
std::vector<uint32_t> GltfLoader::vertex_sequence(const tinygltf::Primitive& p,
                                                  size_t vertex_count, const std::string& what) {
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
    gltf::make_flat_normals(mesh);                      // "Meshes": flat normals when missing
  if (mirrored) gltf::reverse_winding(mesh.indices);     // "Transformations": det < 0
  if (material.doubleSided) gltf::add_back_faces(mesh);  // "Double Sided"
  mesh.index16 = mesh.vertices.size() <= 65536;
  scene_.meshes.push_back(std::move(mesh));
  return mesh_of_primitive_[key] = static_cast<uint32_t>(scene_.meshes.size() - 1);
}

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
    fail(path_, fmt::format("the default scene {} does not exist ({} scenes)",
                            model_.defaultScene, model_.scenes.size()));
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
  const glm::dvec3 extent = glm::max(hi - lo, glm::dvec3(1e-3));
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
  if (!std::isfinite(distance + radius * 2.0f))
    fail(path_, fmt::format("a camera framing the model's {} copies (bounding radius {}) is not "
                            "finite in 32-bit float",
                            instances_, radius));
  scene_.view.target = glm::vec3(0.0f);
  scene_.view.eye = dir * distance;
  scene_.view.near_plane = std::max(distance * 0.01f, distance - radius * 2.0f);
  scene_.view.far_plane = distance + radius * 2.0f;
  scene_.view.light_world_position = scene_.view.eye + glm::vec3(-radius, radius, 0.0f);
}

}  // namespace

Scene load_gltf_scene(const std::string& path, uint32_t instances) {
  return load_gltf_scene(path, instances, GltfLoadOptions{});
}

Scene load_gltf_scene(const std::string& path, uint32_t instances,
                      const GltfLoadOptions& options) {
  if (instances == 0)
    throw Error(ErrorKind::SceneInput, "glTF scene: instances = 0, valid 1 or more");
  std::string stage = "reading the file";
  try {
    return GltfLoader(path, instances, options, stage).load();
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
