// SPDX-License-Identifier: MIT
// The render pipeline of --strategy gpu-driven: every visible object's world matrix rows and
// material were written by the culling pass (gpu_driven_cull.wgsl) into `instances`, in windows
// per batch that the indirect draws' firstInstance points at. One bind group for the whole
// frame: materials in a storage array, textures in one 2D array texture (layer per texture), so
// that draws of different materials need no bind group change.
// @include cubes_common.wgsl

struct DrivenFrame {
  viewProjection: mat4x4f,
  lightWorldPosition: vec3f,
  time: f32,
  viewWorldPosition: vec3f,
  objectCount: u32,
  targetSize: vec2f,
  batchCount: u32,
  occlusion: u32,
  pyramidLevels: u32,
};

struct Instance {
  row0: vec4f,
  row1: vec4f,
  row2: vec4f,
  material: u32,
};

struct MaterialData {
  color: vec4f,
  shininess: f32,
  alphaCutoff: f32,  // glTF alphaMode as in MaterialUniforms (cubes_common.wgsl)
  layer: u32,  // the material's texture in `textures`
};

@group(0) @binding(0) var<uniform> frame: DrivenFrame;
@group(0) @binding(1) var<storage, read> instances: array<Instance>;
@group(0) @binding(2) var<storage, read> materials: array<MaterialData>;
@group(0) @binding(3) var textures: texture_2d_array<f32>;
@group(0) @binding(4) var textureSampler: sampler;

struct DrivenVSOutput {
  @builtin(position) position: vec4f,
  @location(0) normal: vec3f,
  @location(1) surfaceToLight: vec3f,
  @location(2) surfaceToView: vec3f,
  @location(3) texcoord: vec2f,
  @location(4) @interpolate(flat) material: u32,
  @location(5) color: vec4f,
};

@vertex fn vs(vert: Vertex, @builtin(instance_index) instance: u32) -> DrivenVSOutput {
  let inst = instances[instance];
  let p = vec4f(vert.position.xyz, 1.0);
  let world = vec3f(dot(inst.row0, p), dot(inst.row1, p), dot(inst.row2, p));
  var out: DrivenVSOutput;
  out.position = frame.viewProjection * vec4f(world, 1.0);
  // Rotation times a uniform scale: its own inverse transpose up to a scale, which the fragment
  // stage's normalize() removes.
  out.normal = vec3f(dot(inst.row0.xyz, vert.normal), dot(inst.row1.xyz, vert.normal),
                     dot(inst.row2.xyz, vert.normal));
  out.surfaceToLight = frame.lightWorldPosition - world;
  out.surfaceToView = frame.viewWorldPosition - world;
  out.texcoord = vert.texcoord;
  out.material = inst.material;
  out.color = vert.color;
  return out;
}

@fragment fn fs(in: DrivenVSOutput) -> @location(0) vec4f {
  let material = materials[in.material];
  let texel = textureSample(textures, textureSampler, in.texcoord, material.layer);
  var v: VSOutput;
  v.position = in.position;
  v.normal = in.normal;
  v.surfaceToLight = in.surfaceToLight;
  v.surfaceToView = in.surfaceToView;
  v.texcoord = in.texcoord;
  v.color = in.color;
  return shade(v, material.color, material.shininess, texel, material.alphaCutoff);
}
