// SPDX-License-Identifier: MIT
// GPU-driven culling + indirect draws: a compute pass (shaders/cull.wgsl) tests every object's
// bounding sphere against the view frustum and appends the visible ones to `visible`, counting
// them into the instanceCount of their batch's indirect draw arguments; the render pass then
// issues one drawIndexedIndirect per (material, mesh) batch. Used by --strategy gpu-culling.
//   group 0 = frame    (GlobalUniforms)
//   group 1 = objects  (array<PerObjectUniforms> by object index + the visible list, bound once)
//   group 2 = material (texture, sampler, MaterialUniforms)
// @include cubes_common.wgsl

@group(0) @binding(0) var<uniform> glb: GlobalUniforms;
@group(1) @binding(0) var<storage, read> objects: array<PerObjectUniforms>;
@group(1) @binding(1) var<storage, read> visible: array<u32>;
@group(2) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(2) @binding(1) var diffuseSampler: sampler;
@group(2) @binding(2) var<uniform> material: MaterialUniforms;

@vertex fn vs(vert: Vertex, @builtin(instance_index) instance: u32) -> VSOutput {
  let obj = objects[visible[instance]];
  return vertex_out(vert, obj.world, obj.normalMatrix, glb);
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let texel = textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  return shade(vsOut, material.color, material.shininess, texel, material.alphaCutoff);
}
