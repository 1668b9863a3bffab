// SPDX-License-Identifier: MIT
// Bind groups organised by frequency of change (seeds 001 and 003):
//   group 0 = frame    (GlobalUniforms: once per pass)
//   group 1 = material (texture, sampler, MaterialUniforms: once per material; draws sorted by it)
//   group 2 = object   (PerObjectUniforms: one bind group over one buffer, a dynamic offset per draw)
// Used by --strategy dynamic-offsets, mapped-staging and render-bundles.
// @include cubes_common.wgsl

@group(0) @binding(0) var<uniform> glb: GlobalUniforms;
@group(1) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(1) @binding(1) var diffuseSampler: sampler;
@group(1) @binding(2) var<uniform> material: MaterialUniforms;
@group(2) @binding(0) var<uniform> obj: PerObjectUniforms;

@vertex fn vs(vert: Vertex) -> VSOutput {
  return vertex_out(vert, obj.world, obj.normalMatrix, glb);
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let texel = textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  return shade(vsOut, material.color, material.shininess, texel, material.alphaCutoff);
}
