// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/scene_data.hpp — the plain data a scene is made of and a GPU part takes: the
/// interleaved Vertex, an indexed Mesh, a TextureData with its mips, a SamplerData and a Material.
/// No device, no loader: the mesh pool and the material table (bindery/gpu_driven/) take these,
/// and bindery/render/scene.hpp builds whole scenes from them.
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/type_precision.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bindery {

/// One interleaved vertex: position (vec3f), normal (vec3f), texcoord (vec2f) and colour (RGBA,
/// 8-bit unorm: WebGPU vertex format unorm8x4, read as vec4f in [0, 1]); 36 bytes.
/// The shader reads position as vec4f (w = 1 from the vertex fetch default). The colour is glTF's
/// COLOR_0 (a linear multiplier of the base colour; white = no change, what cubes use). 8 bits a
/// channel are as fine as the RGBA8 colour target the product is written to, and cost 4 bytes
/// instead of 16 for a vec4f (the vertex grows from 32 to 36 bytes, not to 48).
struct Vertex {
  /// Object-space position (byte offset 0; `@location(0)`, float32x3).
  glm::vec3 position{0.0f};
  /// Object-space normal (offset 12; `@location(1)`, float32x3); the shader normalises it after
  /// the normal matrix, so it need not be unit length.
  glm::vec3 normal{0.0f};
  /// Texture coordinates (offset 24; `@location(2)`, float32x2): (0, 0) is the first texel of the
  /// texture's first row, as in glTF TEXCOORD_n and WebGPU.
  glm::vec2 texcoord{0.0f};
  /// Vertex colour RGBA (offset 32; `@location(3)`, unorm8x4); white multiplies by 1.
  glm::u8vec4 color{255, 255, 255, 255};
};
static_assert(sizeof(Vertex) == 36);

/// Indexed triangle list. Indices are uint32 in memory; `index16` says they all fit uint16 and
/// are uploaded as WGPUIndexFormat_Uint16.
struct Mesh {
  /// For messages: "cube", or "<glTF mesh name>/<primitive index>".
  std::string name;
  /// The vertex buffer's contents; render() needs at least one.
  std::vector<Vertex> vertices;
  /// Triangle list, counter-clockwise front faces: 3 per triangle, each < vertices.size()
  /// (render() throws SceneInput otherwise).
  std::vector<uint32_t> indices;
  /// Every index fits uint16 (at most 65,536 vertices; render() throws SceneInput for more).
  bool index16 = true;
  /// Object-space axis-aligned bounding box, corners min and max (the GPU-culling strategies
  /// cull with it). Both (0, 0, 0), the default, means "not set": MeshPool::add computes the
  /// box of the positions; set bounds must contain every position (MeshBounds otherwise).
  ///@{
  glm::vec3 bounds_min{0.0f}, bounds_max{0.0f};  ///< object-space AABB
  ///@}
};

/// RGBA8 texture with its full mip chain (level 0 first), each level tightly packed.
struct TextureData {
  /// For messages and GPU labels.
  std::string name;
  /// Level 0 size in pixels, each 1..maxTextureDimension2D (render() throws
  /// TextureSizeOutOfRange otherwise).
  ///@{
  uint32_t width = 0, height = 0;
  ///@}
  /// Level i is max(1, width >> i) x max(1, height >> i) x 4 bytes, rows top to bottom; at least
  /// level 0, none past 1x1 (make_texture_with_mips() builds the whole chain).
  std::vector<std::vector<uint8_t>> mips;
};

/// How a texture is addressed outside [0, 1] (WebGPU GPUAddressMode; glTF sampler wrapS/wrapT:
/// CLAMP_TO_EDGE 33071, REPEAT 10497, MIRRORED_REPEAT 33648).
enum class AddressMode { clamp_to_edge, repeat, mirror_repeat };
/// Texel filtering (WebGPU GPUFilterMode / GPUMipmapFilterMode; glTF NEAREST 9728, LINEAR 9729).
enum class FilterMode { nearest, linear };

/// A texture sampler (WebGPU GPUSamplerDescriptor). The default is the article's sampler
/// (the optimization article): clamp-to-edge, linear magnification and minification, nearest mip level.
struct SamplerData {
  /// addressModeU (glTF wrapS).
  AddressMode address_mode_u = AddressMode::clamp_to_edge;
  /// addressModeV (glTF wrapT).
  AddressMode address_mode_v = AddressMode::clamp_to_edge;
  /// magFilter (glTF magFilter).
  FilterMode mag_filter = FilterMode::linear;
  /// minFilter (glTF minFilter's texel part).
  FilterMode min_filter = FilterMode::linear;
  /// mipmapFilter (glTF minFilter's mipmap part: *_MIPMAP_NEAREST or *_MIPMAP_LINEAR).
  FilterMode mipmap_filter = FilterMode::nearest;
  /// false: only mip level 0 is sampled (lodMaxClamp 0; glTF minFilter NEAREST or LINEAR).
  bool use_mipmaps = true;
  /// Every field equal: the glTF loader shares one Scene::samplers entry between equal samplers.
  bool operator==(const SamplerData&) const = default;
};

/// How a material's alpha (base colour x texture x vertex colour) is used (glTF 2.0, Materials,
/// "Alpha Coverage").
enum class AlphaMode {
  opaque,  ///< alpha ignored, the output is opaque
  mask,    ///< fragments with alpha < alpha_cutoff are discarded, the rest opaque
  /// Blending approximated without a blending pipeline: a 4x4 ordered-dither discard keeps about
  /// alpha x 16 of every 16 pixels (screen-door transparency), so what lies behind shows through
  /// in proportion to 1 - alpha whatever the draw order.
  blend,
};

/// A material: colour multiplied with its texture (and the vertex colour), Blinn-Phong shininess
/// (the optimization article), the sampler of its texture and its alpha mode.
struct Material {
  /// RGBA factor multiplied with the texel and the vertex colour (glTF baseColorFactor; the
  /// article's HSL colours for cubes); alpha feeds alpha_mode.
  glm::vec4 color{1.0f};
  /// Blinn-Phong specular exponent (the optimization article: 10..120 for cubes; glTF: 2 + (1 - roughness) x 118).
  float shininess = 30.0f;
  uint32_t texture = 0;  ///< index into Scene::textures
  uint32_t sampler = 0;  ///< index into Scene::samplers
  /// How alpha is used (glTF alphaMode; cubes are opaque).
  AlphaMode alpha_mode = AlphaMode::opaque;
  float alpha_cutoff = 0.5f;  ///< used by AlphaMode::mask (glTF default 0.5)
};

/// Generates the mip chain of an RGBA8 level-0 image with a 2x2 box filter.
TextureData make_texture_with_mips(std::string name, uint32_t width, uint32_t height,
                                   std::vector<uint8_t> level0);

}  // namespace bindery
