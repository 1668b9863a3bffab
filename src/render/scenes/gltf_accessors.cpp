// SPDX-License-Identifier: MIT
// glTF accessors decoded and checked (gltf_accessors.hpp).
#include "gltf_accessors.hpp"

#include "gltf_loader.hpp"

#include <fmt/format.h>

#include <cstring>

namespace bindery::gltf {

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

namespace {

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

}  // namespace

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

}  // namespace bindery::gltf
