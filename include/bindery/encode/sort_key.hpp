// SPDX-License-Identifier: MIT
/// @file
/// bindery/encode/sort_key.hpp — the 64-bit sort key of a draw-list item and its bit layout.
///
/// Sorting draws by a single integer puts equal state next to each other, so the encoder can skip
/// redundant setPipeline / setBindGroup calls (the by-frequency note: "ordenas el bucle por material").
/// Two layouts, each a set of constexpr shift/mask pairs whose masks are checked not to overlap
/// (pattern: bgfx's kSortKeyDraw* constants):
///
///   material order (default: pipeline > material > mesh)
///     bit 63 ........ 52 51 ......... 32 31 ......... 12 11 .... 0
///         pipeline (12)    material (20)    mesh (20)     zero (12)
///
///   depth order (front to back inside a pipeline)
///     bit 63 ........ 52 51 .............................. 20 19 ........ 0
///         pipeline (12)    depth: IEEE-754 bits of a float >= 0 (32)  material (20)
///
/// The bit pattern of a non-negative finite float grows with its value, so comparing the 32 bits
/// as an unsigned integer orders depths front to back (smaller first). Ties keep insertion order
/// (DrawList sorts stably), which is how object slots stay in draw order (the cases (docs/REFERENCES.md) C01).
#pragma once

#include <bit>
#include <cstdint>

namespace bindery::sort_key {

/// Width of each field in bits; ids must be below 1 << width (DrawList::add checks this).
///@{
inline constexpr unsigned kPipelineBits = 12;
inline constexpr unsigned kMaterialBits = 20;
inline constexpr unsigned kMeshBits = 20;
inline constexpr unsigned kDepthBits = 32;
///@}

/// Material order: pipeline > material > mesh. Bit positions (shift) and masks of the fields.
///@{
inline constexpr unsigned kPipelineShift = 52;
inline constexpr uint64_t kPipelineMask = ((uint64_t{1} << kPipelineBits) - 1) << kPipelineShift;
inline constexpr unsigned kMaterialShift = 32;
inline constexpr uint64_t kMaterialMask = ((uint64_t{1} << kMaterialBits) - 1) << kMaterialShift;
inline constexpr unsigned kMeshShift = 12;
inline constexpr uint64_t kMeshMask = ((uint64_t{1} << kMeshBits) - 1) << kMeshShift;
///@}

/// Depth order: pipeline > depth (front to back) > material. Bit positions and masks.
///@{
inline constexpr unsigned kDepthPipelineShift = 52;
inline constexpr uint64_t kDepthPipelineMask = ((uint64_t{1} << kPipelineBits) - 1)
                                               << kDepthPipelineShift;
inline constexpr unsigned kDepthShift = 20;
inline constexpr uint64_t kDepthMask = ((uint64_t{1} << kDepthBits) - 1) << kDepthShift;
inline constexpr unsigned kDepthMaterialShift = 0;
inline constexpr uint64_t kDepthMaterialMask = ((uint64_t{1} << kMaterialBits) - 1)
                                               << kDepthMaterialShift;
///@}

static_assert((kPipelineMask & kMaterialMask) == 0 && (kPipelineMask & kMeshMask) == 0 &&
                  (kMaterialMask & kMeshMask) == 0,
              "material-order key fields overlap");
static_assert((kPipelineMask | kMaterialMask | kMeshMask) == ~uint64_t{0xfff},
              "material-order key: fields must fill bits 12..63");
static_assert((kDepthPipelineMask & kDepthMask) == 0 && (kDepthPipelineMask & kDepthMaterialMask) == 0 &&
                  (kDepthMask & kDepthMaterialMask) == 0,
              "depth-order key fields overlap");
static_assert((kDepthPipelineMask | kDepthMask | kDepthMaterialMask) == ~uint64_t{0},
              "depth-order key: fields must fill all 64 bits");

/// Places `value` in the field (shift, mask). `value` must fit the field (checked by callers).
constexpr uint64_t encode(uint64_t value, unsigned shift, uint64_t mask) {
  return (value << shift) & mask;
}
/// Reads the field (shift, mask) back out of `key`.
constexpr uint64_t decode(uint64_t key, unsigned shift, uint64_t mask) {
  return (key & mask) >> shift;
}

/// The 32-bit ordering code of a depth (view-space distance, >= 0, finite; callers check).
/// -0.0 is folded to +0.0 so both sort first.
inline uint32_t depth_bits(float depth) {
  return depth == 0.0f ? 0u : std::bit_cast<uint32_t>(depth);
}

/// Key for material order: pipeline > material > mesh.
constexpr uint64_t material_order(uint32_t pipeline, uint32_t material, uint32_t mesh) {
  return encode(pipeline, kPipelineShift, kPipelineMask) |
         encode(material, kMaterialShift, kMaterialMask) | encode(mesh, kMeshShift, kMeshMask);
}

/// Key for depth order: pipeline > depth (front to back) > material.
inline uint64_t depth_order(uint32_t pipeline, float depth, uint32_t material) {
  return encode(pipeline, kDepthPipelineShift, kDepthPipelineMask) |
         encode(depth_bits(depth), kDepthShift, kDepthMask) |
         encode(material, kDepthMaterialShift, kDepthMaterialMask);
}

}  // namespace bindery::sort_key
