// SPDX-License-Identifier: MIT
/// @file
/// bindery/render/scene.hpp — what a strategy draws: meshes, textures, materials and objects on the
/// CPU, independent of how per-draw data reaches the GPU.
///
/// Three scenes fill it:
/// - make_cube_scene(): the webgpufundamentals "optimization" article (the optimization article): one cube mesh
///   (interleaved position/normal/uv, uint16 indices), 6 textures with mips, 20 materials,
///   N objects animated exactly like the article.
/// - load_gltf_scene(): a glTF 2.0 model (.gltf/.glb, via tinygltf): every triangle primitive one
///   mesh with its own material, K copies of the model on a grid. What the glTF specification
///   asks of a renderer that one pipeline (cull back faces, counter-clockwise front) cannot do is
///   done to the mesh at load: strips and fans become lists, mirrored nodes get a copy with the
///   winding reversed, double-sided materials get their back faces as extra triangles.
/// - make_city_scene(): a generated city for benchmarks: many procedural meshes, materials and
///   textures of several sizes, buildings that hide each other, cars the application moves.
///
/// Strategies (strategy.hpp) upload the meshes and textures once and per frame ask the scene for
/// each object's world and normal matrices (animate()).
#pragma once

#include "bindery/data/scene_data.hpp"

#include <glm/glm.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bindery {

/// The farthest world coordinate render() draws (world units): every object's bounds under its
/// placement and the eye lie within +-this, or render() throws SceneInput. Beyond, float32's
/// squared distances (the shaders' lighting, culling and level of detail) overflow
/// (3.4e38 = (1.8e19)^2). load_gltf_scene() frames a model only within it (ModelLoad otherwise).
inline constexpr double kMaxWorldCoordinate = 1.0e18;

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
  /// true: the article's animation above (cubes); false: `placement` (glTF), or the application's
  /// motion below when `moving` is set.
  bool animated = true;
  /// Motion the application gives an object (the city's cars), used when `animated` is false and
  /// `moving` is true: at time t seconds, world(t) = `placement` with its translation column
  /// replaced by wrap(translation + velocity x t), where wrap() brings each coordinate into
  /// [Scene::wrap_min, Scene::wrap_max) along every axis where wrap_max > wrap_min (computed in
  /// double precision, so long runs do not drift). The rotation and scale part of `placement` and
  /// so the normal matrix do not change. velocity: world units per second.
  ///@{
  glm::vec3 velocity{0.0f};
  bool moving = false;
  ///@}

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
  /// "cubes" (make_cube_scene), "gltf" (load_gltf_scene) or "city" (make_city_scene); reported as
  /// RenderReport::scene.
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
  /// Indices of the objects whose transform changes with time, ascending: every object of the
  /// cube scene, none of a glTF scene, the cars of the city (its first objects). A renderer needs
  /// to recompute and upload only these after the first frame (see moving_share()).
  std::vector<uint32_t> moving;
  /// The box moving objects (Object::moving) wrap around in, world units: along each axis where
  /// wrap_max > wrap_min a coordinate is brought into [wrap_min, wrap_max); other axes do not wrap.
  ///@{
  glm::vec3 wrap_min{0.0f}, wrap_max{0.0f};
  ///@}

  /// The RenderOptions::moving share that recomputes every object in `moving` each frame when
  /// they are the first objects (as in every scene bindery builds): (largest index in `moving` +
  /// 1) / objects.size(); 0 when `moving` is empty.
  double moving_share() const;

  /// Fills `out[i]` for i in [begin, min(end, objects.size())) with object i's matrices at
  /// `time_s` (seconds); `out` is resized to objects.size() first. Cubes follow the article's
  /// animation; static objects use their placement; moving objects (Object::moving) their
  /// placement moved by velocity x time_s, wrapped into [wrap_min, wrap_max).
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

/// Options of the generated city (make_city_scene): a seeded, reproducible benchmark scene.
struct CitySceneOptions {
  /// Objects in the scene, 1..10,000,000: round(moving x objects) cars, the rest buildings.
  uint32_t objects = 20'000;
  /// Unique procedural meshes, 1..200,000 (each 12..2,000 triangles); mesh 0 is the unit box the
  /// cars use, buildings take the others in turn (every mesh as often as every other, +-1).
  uint32_t meshes = 200;
  uint32_t materials = 64;  ///< materials, 1..100,000 (random colours, textures and shininess)
  /// Textures, 1..1024, in 16 sizes from 16x16 to 512x256 (non-square and non-power-of-two
  /// among them; texture i has the (i mod 16)-th size), each with its mips.
  uint32_t textures = 16;
  /// Share of objects that are cars driving along the streets, 0..1: round(moving x objects)
  /// objects with Object::moving, the first ones in Scene::objects.
  double moving = 0.1;
  uint64_t seed = 1;  ///< same seed and options, same scene (byte for byte)
};

/// Builds a city for benchmarks: blocks of 4 x 4 lots of 10 x 10 world units separated by
/// streets 8 units wide, on a square grid sized from the building count, filled row by row; one
/// building (a procedural mesh: box, stepped tower with setbacks, k-sided prism or cylinder,
/// gabled or pyramid roof; y up from 0, footprint within [-0.5, 0.5]^2) per lot, scaled to 6..9
/// units wide. The cars are boxes 1.6..2 units wide and 3.5..5 long driving at 4..14 units per
/// second along the streets (x or z), in two lanes, wrapping around the city (Scene::wrap_min /
/// wrap_max). Materials use a repeating sampler (Scene::samplers[1]) over window, brick, stripe
/// and panel textures. The camera stands low at one corner and looks across the city along its
/// diagonal, so near buildings hide far ones; the far plane covers the whole city.
/// Meshes are generated independently of each other (each from the seed and its index; in
/// parallel with oneTBB), in time proportional to their triangles. Throws SceneInput when an
/// option is outside its range (the message names it).
Scene make_city_scene(const CitySceneOptions& options);

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

/// The default GltfLoadOptions::image_budget_bytes: 1 GiB, room for the base colour textures of
/// real models (eleven 4096 x 4096 textures with their mips, or one 8192 x 8192 and change).
inline constexpr uint64_t kDefaultGltfImageBudgetBytes = 1ull << 30;

/// The default GltfLoadOptions::geometry_budget_bytes: 1 GiB, about 10 million triangles of an
/// indexed model with normals and texture coordinates (each accessor decoded plus its mesh).
inline constexpr uint64_t kDefaultGltfGeometryBudgetBytes = 1ull << 30;

/// Limits of load_gltf_scene() a caller may change (README, "What a model may load").
struct GltfLoadOptions {
  /// Most bytes the model's images may take decoded: RGBA8 (4 bytes a pixel) with the full mip
  /// chain, summed over the images some material's base colour texture uses (others are not
  /// decoded). Checked from each image's header before it is decoded; ModelLoad beyond it. The
  /// CLI's `render --image-budget-mib` sets it.
  uint64_t image_budget_bytes = kDefaultGltfImageBudgetBytes;
  /// Most bytes the model's geometry may take decoded: every accessor a drawn primitive reads,
  /// once however many primitives share it (count x components x 8 bytes), plus every mesh built
  /// (sizeof(Vertex) = 36 bytes a vertex, 4 an index; flat normals and double-sided back faces
  /// included). Checked from the accessors' counts before each is decoded or built; ModelLoad
  /// beyond it, naming the accessor or primitive. The CLI's `--geometry-budget-mib` sets it.
  uint64_t geometry_budget_bytes = kDefaultGltfGeometryBudgetBytes;
};

/// load_gltf_scene() with `options`. A model's resources (buffer and image URIs) are read only
/// from the model's folder (no absolute paths, no `..` or symbolic link leading out of it, no
/// control bytes; data: URIs allowed); its JSON nests at most 64 levels; every integer field is
/// an integer in its schema range; node transforms, world matrices and bounds are finite in
/// float; images are PNG or JPEG of at most 16384 x 16384 pixels within the image budget; the
/// decoded accessors and meshes within the geometry budget; the fields tinygltf would read as
/// defaults (node matrix and TRS, material factors, data: URIs, GLB chunks) of their glTF 2.0
/// type, length and range; scene roots unique and the node hierarchy strict trees. Each
/// violation is a ModelLoad error naming the field, URI (as written) or node, and the rule.
Scene load_gltf_scene(const std::string& path, uint32_t instances, const GltfLoadOptions& options);


}  // namespace bindery
