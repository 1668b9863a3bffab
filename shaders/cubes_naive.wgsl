// SPDX-License-Identifier: MIT
// The article's starting point (seed 003): every object has one uniform buffer holding all of its
// values and one bind group (texture, sampler, uniforms). Used by --strategy naive.
// @include cubes_common.wgsl

struct Uniforms {
  normalMatrix: mat3x3f,
  viewProjection: mat4x4f,
  world: mat4x4f,
  color: vec4f,
  lightWorldPosition: vec3f,
  alphaCutoff: f32,  // in the 4 bytes after the vec3f, which were padding: the size stays 224
  viewWorldPosition: vec3f,
  shininess: f32,
};

@group(0) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(0) @binding(1) var diffuseSampler: sampler;
@group(0) @binding(2) var<uniform> uni: Uniforms;

@vertex fn vs(vert: Vertex) -> VSOutput {
  let glb = GlobalUniforms(uni.viewProjection, uni.lightWorldPosition, uni.viewWorldPosition);
  return vertex_out(vert, uni.world, uni.normalMatrix, glb);
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let texel = textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  return shade(vsOut, uni.color, uni.shininess, texel, uni.alphaCutoff);
}
