// SPDX-License-Identifier: MIT
// Per-draw data as immediates (wgpu-native's Immediates feature, WGSL var<immediate>):
//   group 0 = frame    (GlobalUniforms: once per pass)
//   group 1 = material (texture, sampler, MaterialUniforms: once per material; draws sorted by it)
//   immediate data     (PerObjectImmediates, 112 bytes: set with setImmediates before each draw;
//                       no per-object buffer, bind group or writeBuffer)
// The same functions as cubes_by_frequency.wgsl, so the image is the same. Used by
// --strategy immediates.
// @include cubes_common.wgsl

// The bytes of PerObjectUniforms (112), with the normal matrix as its three columns, vec4f each
// (w unused): the layout of a mat3x3f (WGSL §14.4.1: 16-byte column stride). wgpu-native's GL
// backend emulates immediates with plain uniforms, and there a mat3x3f or mat3x4f member came out
// wrong (unlit, black cubes on llvmpipe) while vec4f members are right on every backend tried.
struct PerObjectImmediates {
  normalColumn0: vec4f,
  normalColumn1: vec4f,
  normalColumn2: vec4f,
  world: mat4x4f,
};

@group(0) @binding(0) var<uniform> glb: GlobalUniforms;
@group(1) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(1) @binding(1) var diffuseSampler: sampler;
@group(1) @binding(2) var<uniform> material: MaterialUniforms;
var<immediate> obj: PerObjectImmediates;

@vertex fn vs(vert: Vertex) -> VSOutput {
  let n = mat3x3f(obj.normalColumn0.xyz, obj.normalColumn1.xyz, obj.normalColumn2.xyz);
  return vertex_out(vert, obj.world, n, glb);
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let texel = textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  return shade(vsOut, material.color, material.shininess, texel, material.alphaCutoff);
}
