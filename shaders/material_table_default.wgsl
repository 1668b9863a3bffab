// SPDX-License-Identifier: MIT
// BEGIN material table
// What bindery::gpu_driven::MaterialTable::wgsl(1, 0) generates for one array texture and one
// sampler, so that gpu_driven_draw.wgsl is a whole module on its own (`bindery layout` checks it);
// the strategy puts the table's own generated text in its place.
struct MaterialRecord {
  color: vec4f,
  shininess: f32,
  alphaCutoff: f32,
  textureArray: u32,
  layer: u32,
  samplerIndex: u32,
};

@group(1) @binding(0) var<storage, read> materialRecords: array<MaterialRecord>;
@group(1) @binding(1) var materialArray0: texture_2d_array<f32>;
@group(1) @binding(2) var materialSampler0: sampler;

fn material_texel(m: MaterialRecord, uv: vec2f, ddx: vec2f, ddy: vec2f) -> vec4f {
  return textureSample(materialArray0, materialSampler0, uv, m.layer);
}

fn material_texel_grad(m: MaterialRecord, uv: vec2f, ddx: vec2f, ddy: vec2f) -> vec4f {
  return textureSampleGrad(materialArray0, materialSampler0, uv, m.layer, ddx, ddy);
}
// END material table
