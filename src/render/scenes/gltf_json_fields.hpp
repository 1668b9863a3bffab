// SPDX-License-Identifier: MIT
// src/render/scenes/gltf_json_fields.hpp — the non-integer fields of a glTF file that bindery
// checks itself before tinygltf sees the file (part of the JSON pass, gltf_json.hpp). Private to
// bindery; tested through load_gltf_scene in tests/gltf_*_test.cpp.
//
// tinygltf reads a field of the wrong type or length as its default (a baseColorFactor "red"
// becomes white, a 15-number matrix the identity) and words its own refusals (with the whole
// of a data: URI in them). Each check here refuses in one ModelLoad line naming the field and
// the glTF 2.0 rule:
//   - asset: an object whose version is a string "2.x";
//   - accessors: type one of SCALAR, VEC2..4, MAT2..4; componentType one of 5120..5126 (no
//     5124); count present; normalized a boolean;
//   - bufferViews: buffer and byteLength present; byteStride 4..252 and a multiple of 4;
//   - buffers: byteLength present; uri a string, absent only for a GLB's buffer 0 (then the BIN
//     chunk must exist and hold byteLength bytes); a data: URI is base64 with the media type
//     application/octet-stream or application/gltf-buffer and decodes to exactly byteLength bytes;
//   - images: uri or bufferView; a data: URI base64 and decodable;
//   - nodes: matrix 16 numbers whose last row is 0, 0, 0, 1 (decomposable to TRS), translation
//     and scale 3 numbers, rotation 4 numbers in -1..1;
//   - materials: baseColorFactor 4 numbers in 0..1, emissiveFactor 3 in 0..1, metallicFactor,
//     roughnessFactor and occlusionTexture.strength in 0..1, normalTexture.scale a number,
//     alphaCutoff a number >= 0 finite as a 32-bit float, alphaMode OPAQUE, MASK or BLEND,
//     doubleSided a boolean.
#pragma once

#include "gltf_json.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::gltf {

/// Runs the checks of the header comment on the parsed root `root` of the file `path` (`text`:
/// what split_gltf_file found, for a GLB's BIN chunk). Throws ModelLoad.
void check_gltf_fields(const std::string& path, const nlohmann::json& root, const GltfText& text);

/// The image checks of the header comment; `used[i]`: images[i] is decoded (GltfJsonFacts).
void check_gltf_images(const std::string& path, const nlohmann::json& root,
                       const std::vector<bool>& used);

/// The bytes a base64 data: URI decodes to, for a URI tinygltf decodes ("data:" + one of its
/// media types + ";base64," + the payload). nullopt when `uri` is not of that form or its payload
/// is not base64 (RFC 4648 alphabet, '=' only as one or two padding characters at the end, no
/// length of 4k + 1). `reason` receives why, in bindery's words.
std::optional<uint64_t> data_uri_bytes(std::string_view uri, std::string& reason);

}  // namespace bindery::gltf
