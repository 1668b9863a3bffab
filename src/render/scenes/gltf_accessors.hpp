// SPDX-License-Identifier: MIT
// src/render/scenes/gltf_accessors.hpp — private to src/render/scenes/: glTF 2.0 accessors
// ("Accessors") decoded into doubles, bounds-checked before any byte is read (base bufferView or
// zeros, then sparse values): exact for every component type including uint32 indices;
// normalized integers mapped as the specification says (unsigned c / (2^b - 1), signed
// max(c / (2^(b-1) - 1), -1)). And the component types each vertex attribute may use.
#pragma once

#include <tiny_gltf.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bindery::gltf {

/// Largest accessor count decoded (16,777,216 elements; at most 512 MiB of decoded VEC4 values):
/// bounds memory for accessors whose data is implicit (no bufferView: zeros, or sparse), which a
/// tiny file can declare with any count, and for the decoding of any one accessor.
inline constexpr uint64_t kMaxAccessorCount = 1ull << 24;

/// The glTF name of component type `type` ("FLOAT", ...; "an invalid component type").
const char* component_type_name(int type);

/// An accessor's values, count x components doubles.
struct AccessorData {
  size_t count = 0, components = 0;
  int component_type = 0;
  bool normalized = false;
  std::vector<double> values;  ///< count x components
  double get(size_t i, size_t c) const { return values[i * components + c]; }
};

/// Accessor `index` of `model` decoded; `role` names it in messages. Throws ModelLoad naming the
/// accessor when it or its data is malformed or out of bounds.
AccessorData read_accessor(const tinygltf::Model& model, int index, const std::string& path,
                           const std::string& role);

// Component types each attribute may use: glTF 2.0 core ("Meshes", attribute table) and, when
// the file uses it, KHR_mesh_quantization's additions.
enum class Semantic { position, normal, texcoord, color };

/// Whether attribute `s` may use component type `type` (`normalized`; `quantization`: the file
/// uses KHR_mesh_quantization).
bool component_type_allowed(Semantic s, int type, bool normalized, bool quantization);

/// The component types attribute `s` may use, for messages.
const char* allowed_text(Semantic s);

}  // namespace bindery::gltf
