// SPDX-License-Identifier: MIT
// BEGIN cluster draw
// What bindery::gpu_driven::ClusterCulling::wgsl(2) generates, so that gpu_driven_draw.wgsl is a
// whole module on its own (`bindery layout` checks it); the strategy puts the generated text in
// its place.
struct ClusterDrawRecord {
  sphere: vec4f,
  selfSphere: vec4f,
  parentSphere: vec4f,
  selfError: f32,
  parentError: f32,
  vertexOffset: u32,
  triangleOffset: u32,
  triangleCount: u32,
  vertexBase: i32,
  vertexCount: u32,
  level: u32,
  coneApex: vec4f,
  coneAxis: vec4f,
};
@group(2) @binding(0) var<storage, read> clusterSlots: array<vec4u>;
@group(2) @binding(1) var<storage, read> clusterRecords: array<ClusterDrawRecord>;
@group(2) @binding(2) var<storage, read> clusterWords: array<u32>;
@group(2) @binding(3) var<storage, read> poolVertices: array<u32>;
struct ClusterVertex {
  object: u32,
  vertex: u32,
};
fn cluster_vertex(index: u32) -> ClusterVertex {
  let slot = clusterSlots[index >> 8u];
  let c = clusterRecords[slot.y];
  return ClusterVertex(slot.x, u32(i32(clusterWords[c.vertexOffset + (index & 0xffu)]) + c.vertexBase));
}
// END cluster draw
