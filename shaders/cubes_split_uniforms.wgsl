// SPDX-License-Identifier: MIT
// Seed 003's layout from its "split uniform buffers" step on: one bind group per object holding
// everything its draw reads, the values split by how often they change:
//   binding 0, 1: the material's texture and sampler
//   binding 2:    PerObjectUniforms (the object's own buffer, or its window of one large buffer)
//   binding 3:    GlobalUniforms (one buffer for all objects, written once per frame)
//   binding 4:    MaterialUniforms (the material's window, written once at start)
// Used by --strategy split-uniforms, buffer-offsets and buffer-offsets-mapped.
// @include cubes_common.wgsl

@group(0) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(0) @binding(1) var diffuseSampler: sampler;
@group(0) @binding(2) var<uniform> obj: PerObjectUniforms;
@group(0) @binding(3) var<uniform> glb: GlobalUniforms;
@group(0) @binding(4) var<uniform> material: MaterialUniforms;

@vertex fn vs(vert: Vertex) -> VSOutput {
  return vertex_out(vert, obj.world, obj.normalMatrix, glb);
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let texel = textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  return shade(vsOut, material.color, material.shininess, texel, material.alphaCutoff);
}
