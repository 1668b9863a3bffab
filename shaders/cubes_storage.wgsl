// SPDX-License-Identifier: MIT
// Storage buffer + instancing (seeds 000, 002, 004): every object's matrices live in one
// read-only storage array indexed by @builtin(instance_index); objects are drawn in instanced
// batches of one material each (firstInstance = the batch's first element).
//   group 0 = frame    (GlobalUniforms)
//   group 1 = objects  (array<PerObjectUniforms>, bound once: its binding never changes)
//   group 2 = material (texture, sampler, MaterialUniforms: once per batch)
// Used by --strategy storage-instancing.
// @include cubes_common.wgsl

@group(0) @binding(0) var<uniform> glb: GlobalUniforms;
@group(1) @binding(0) var<storage, read> objects: array<PerObjectUniforms>;
@group(2) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(2) @binding(1) var diffuseSampler: sampler;
@group(2) @binding(2) var<uniform> material: MaterialUniforms;

@vertex fn vs(vert: Vertex, @builtin(instance_index) instance: u32) -> VSOutput {
  let obj = objects[instance];
  return vertex_out(vert, obj.world, obj.normalMatrix, glb);
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let texel = textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  return shade(vsOut, material.color, material.shininess, texel, material.alphaCutoff);
}
