// SPDX-License-Identifier: MIT
/// @file
/// bindery/scene.hpp — what a strategy draws: meshes, textures, materials and objects on the CPU,
/// independent of how per-draw data reaches the GPU.
///
/// Two scenes fill it:
/// - make_cube_scene(): the webgpufundamentals "optimization" article (the optimization article): one cube mesh
///   (interleaved position/normal/uv, uint16 indices), 6 textures with mips, 20 materials,
///   N objects animated exactly like the article.
/// - load_gltf_scene(): a glTF 2.0 model (.gltf/.glb, via tinygltf): every triangle primitive one
///   mesh with its own material, K copies of the model on a grid. What the glTF specification
///   asks of a renderer that one pipeline (cull back faces, counter-clockwise front) cannot do is
///   done to the mesh at load: strips and fans become lists, mirrored nodes get a copy with the
///   winding reversed, double-sided materials get their back faces as extra triangles.
///
/// Strategies (strategy.hpp) upload the meshes and textures once and per frame ask the scene for
/// each object's world and normal matrices (animate()).
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/type_precision.hpp>

#include <cstdint>
#include <span>
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
  /// cull with it).
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

/// One drawable thing: a mesh with a material and its animation parameters.
struct Object {
  /// Index into Scene::meshes (render() throws SceneInput when out of range).
  uint32_t mesh = 0;
  /// Index into Scene::materials (render() throws SceneInput when out of range).
  uint32_t material = 0;
  /// The article's animation (the optimization article, cubes), at time t in seconds: world =
  /// rotate(axis, phase + t x speed) x translateZ(sin(phase_z1 + t x speed) x radius)
  /// x translateZ(sin(phase_z2 + t x 0.1) x radius) x rotateX(t x rotation_speed + phase)
  /// x scale(scale). axis: unit rotation axis; radius: world units; speed and rotation_speed:
  /// radians per second; scale: uniform, non-zero.
  ///@{
  glm::vec3 axis{0.0f, 1.0f, 0.0f};
  float radius = 0.0f, speed = 0.0f, rotation_speed = 0.0f, scale = 1.0f;
  ///@}
  /// The article's per-object phase terms i, i * 3.721 and i * 9.721 (radians, i = the object's
  /// index), reduced to [0, 2π) in double precision when the scene is built: a float sin/cos of
  /// i * 9.721 at a million objects would otherwise be off by a large fraction of a turn, and the
  /// CPU and GPU paths would disagree. set_article_phases() fills them.
  ///@{
  float phase = 0.0f, phase_z1 = 0.0f, phase_z2 = 0.0f;
  ///@}
  /// Static placement (glTF): used instead of the animation when `animated` is false.
  glm::mat4 placement{1.0f};
  /// true: the article's animation above (cubes); false: `placement` (glTF).
  bool animated = true;

  /// Sets phase, phase_z1, phase_z2 for object index `i` (the optimization article's animation).
  void set_article_phases(uint32_t i);
};

/// Per-object matrices for one frame: world and its inverse-transpose (for normals).
struct ObjectTransform {
  /// Object space to world space (column-major, glm).
  glm::mat4 world;
  /// inverse(transpose(mat3(world))): object-space normals to world space (unnormalised).
  glm::mat3 normal;
};

/// Camera and light of a scene (the optimization article: eye (100,150,200) at the origin, fov 60°, near 1,
/// far 2000, light at (-10, 30, 300)).
struct View {
  /// Camera position, world units (also the specular view position).
  glm::vec3 eye{100.0f, 150.0f, 200.0f};
  /// The point the camera looks at.
  glm::vec3 target{0.0f};
  /// World up direction of the right-handed look-at.
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  /// Vertical field of view in degrees.
  float fov_y_degrees = 60.0f;
  /// Near clip distance from the eye, world units (> 0).
  float near_plane = 1.0f;
  /// Far clip distance from the eye, world units (> near_plane).
  float far_plane = 2000.0f;
  /// The point light's position, world units.
  glm::vec3 light_world_position{-10.0f, 30.0f, 300.0f};
  /// The colour target's clear value, RGBA in [0, 1].
  glm::vec4 clear_color{0.3f, 0.3f, 0.3f, 1.0f};

  /// Projection (WebGPU clip space: z in [0, 1]) times view, for a target of aspect w/h.
  glm::mat4 view_projection(float aspect) const;
};

/// A whole scene on the CPU.
struct Scene {
  /// "cubes" (make_cube_scene) or "gltf" (load_gltf_scene); reported as RenderReport::scene.
  std::string name;
  /// Meshes objects name by index; each uploaded once.
  std::vector<Mesh> meshes;
  /// Textures materials name by index; each uploaded once with its mips.
  std::vector<TextureData> textures;
  /// Materials objects name by index.
  std::vector<Material> materials;
  /// What is drawn: every object each frame, unless a culling strategy finds it hidden.
  std::vector<Object> objects;
  /// Samplers materials name; one default (the article's) sampler unless a loader adds others.
  std::vector<SamplerData> samplers{SamplerData{}};
  /// Camera, light and clear colour.
  View view;
  /// What a loader skipped and why (e.g. a glTF primitive of lines), one line each, for the user.
  std::vector<std::string> warnings;

  /// Fills `out[i]` for i in [begin, min(end, objects.size())) with object i's matrices at
  /// `time_s` (seconds); `out` is resized to objects.size() first. Cubes follow the article's
  /// animation; static objects use their placement.
  void animate(float time_s, std::vector<ObjectTransform>& out, uint32_t begin = 0,
               uint32_t end = UINT32_MAX) const;
  /// The same for a caller-sized `out` (out.size() == objects.size()), so that disjoint ranges
  /// can be computed on several threads at once. An animated object is a rotation times a
  /// uniform scale, so its normal matrix is mat3(world) / scale² (no general inverse); static
  /// objects use the inverse transpose of their placement.
  void animate_range(float time_s, std::span<ObjectTransform> out, uint32_t begin,
                     uint32_t end) const;
};

/// Options of the article's cube scene.
struct CubeSceneOptions {
  uint32_t objects = 1000;  ///< number of cubes (the article's slider; max 30000 there)
  uint32_t materials = 20;  ///< the article's 20 materials
  uint32_t textures = 6;    ///< the article's 6 textures (procedural here: no fonts needed)
  uint64_t seed = 1;        ///< random seed: same seed, same scene
  /// Scales every cube's placement radius (1 = the article; 8 puts most cubes outside the view,
  /// for culling). 0.01..1000.
  float spread = 1.0f;
};

/// Builds the article's scene (the optimization article). Throws SceneInput when `objects` exceeds 10,000,000,
/// `materials` is outside 1..100,000, `textures` outside 1..1024 or `spread` outside 0.01..1000.
Scene make_cube_scene(const CubeSceneOptions& options);

/// Loads a glTF 2.0 file (.gltf or .glb) and places `instances` copies on a square grid, each
/// copy of each primitive one object. The camera is placed to frame the whole grid.
/// Drawn as glTF 2.0 says (sections of the specification): triangle lists, strips and fans,
/// indexed (uint8/16/32) or not ("Meshes"; points and lines are skipped with a line in
/// Scene::warnings); flat normals where NORMAL is missing; winding reversed under a world
/// transform with a negative determinant ("Transformations"); `doubleSided` back faces added with
/// reversed normals ("Double Sided"); COLOR_0 (float, unorm8/16; VEC3 or VEC4); accessors without
/// a bufferView (zeros) and sparse accessors ("Accessors"); normalized integer attributes and
/// KHR_mesh_quantization; the base colour texture's TEXCOORD_n set and its sampler (wrap and
/// filter modes); 8- and 16-bit, grey, palette and RGB(A) images as RGBA8; alphaMode and
/// alphaCutoff ("Alpha Coverage"; BLEND as AlphaMode::blend). A primitive without a material gets
/// the default material (base colour 1, roughness 1).
/// Throws Io (unreadable), UnsupportedExtension (extensionsRequired names an extension other than
/// KHR_mesh_quantization; checked before anything else), ModelLoad (malformed, unsupported, or
/// nothing to draw; the message names the file and the accessor, field or offset), SceneInput
/// (instances == 0 or too many objects). Nothing else escapes: exceptions of tinygltf, the image
/// decoder and the standard library become ModelLoad errors.
Scene load_gltf_scene(const std::string& path, uint32_t instances);

/// Generates the mip chain of an RGBA8 level-0 image with a 2x2 box filter.
TextureData make_texture_with_mips(std::string name, uint32_t width, uint32_t height,
                                   std::vector<uint8_t> level0);

}  // namespace bindery
