// SPDX-License-Identifier: MIT
// The render pipeline of the GPU-driven parts (--strategy gpu-driven, and any application that
// draws through bindery/gpu_driven/): the indirect draws' firstInstance points each (pipeline,
// mesh) bin at its window of `remap`, which the culling passes filled with the ids of the bin's
// visible objects; the vertex stage reads the object's record (world matrix rows, material) from
// the object table, the fragment stage the material from the material table, whose textures are
// grouped by size into 2D arrays. One bind group per frame for the objects, one for the
// materials: draws of any mesh and material need no bind group change.
// @include cubes_common.wgsl
// @include object_record.wgsl

struct DrawFrame {
  viewProjection: mat4x4f,
  lightWorldPosition: vec3f,
  pad0: f32,
  viewWorldPosition: vec3f,
  pad1: f32,
};

@group(0) @binding(0) var<uniform> frame: DrawFrame;
@group(0) @binding(1) var<storage, read> objects: array<ObjectRecord>;
@group(0) @binding(2) var<storage, read> remap: array<u32>;

struct DrawVSOutput {
  @builtin(position) position: vec4f,
  @location(0) normal: vec3f,
  @location(1) surfaceToLight: vec3f,
  @location(2) surfaceToView: vec3f,
  @location(3) texcoord: vec2f,
  @location(4) @interpolate(flat) material: u32,
  @location(5) color: vec4f,
};

@vertex fn vs(vert: Vertex, @builtin(instance_index) instance: u32) -> DrawVSOutput {
  return draw_vertex(vert, objects[remap[instance]]);
}

// The cluster path (bindery/gpu_driven/cluster_culling.hpp): one indexed draw of every visible
// cluster, each index slot << 8 | corner (cluster_culling.wgsl's emit_pass). The slot gives the
// instance and the cluster, the corner the cluster's vertex, which is pulled from the mesh pool's
// vertex buffer (bindery::Vertex: 9 words: position, normal, texcoord, unorm8x4 colour).
// @include cluster_draw_default.wgsl

@vertex fn vs_clusters(@builtin(vertex_index) index: u32) -> DrawVSOutput {
  let cv = cluster_vertex(index);
  let v = cv.vertex * 9u;
  var vert: Vertex;
  vert.position = vec4f(bitcast<f32>(poolVertices[v]), bitcast<f32>(poolVertices[v + 1u]),
                        bitcast<f32>(poolVertices[v + 2u]), 1.0);
  vert.normal = vec3f(bitcast<f32>(poolVertices[v + 3u]), bitcast<f32>(poolVertices[v + 4u]),
                      bitcast<f32>(poolVertices[v + 5u]));
  vert.texcoord = vec2f(bitcast<f32>(poolVertices[v + 6u]), bitcast<f32>(poolVertices[v + 7u]));
  vert.color = unpack4x8unorm(poolVertices[v + 8u]);
  return draw_vertex(vert, objects[cv.object]);
}

// The vertex stage of both paths for vertex `vert` of object `o`.
fn draw_vertex(vert: Vertex, o: ObjectRecord) -> DrawVSOutput {
  let world = object_transform(o, vert.position.xyz);
  // The normal matrix inverse(transpose(M)) is cofactor(M) / det(M) for the 3x3 part M: the
  // cofactor matrix's columns are the cross products of M's columns, and the fragment stage's
  // normalize() leaves only det's sign (a mirrored object). M is divided by its largest entry
  // first, so that the products stay where normalize() can square them (a node scaled by 1e10).
  let w = o.world_rows;
  let largest = max(max(abs(w[0].xyz), abs(w[1].xyz)), abs(w[2].xyz));
  let k = max(max(largest.x, largest.y), largest.z);
  let unit = select(1.0 / k, 1.0, k == 0.0);
  let c0 = vec3f(w[0].x, w[1].x, w[2].x) * unit;
  let c1 = vec3f(w[0].y, w[1].y, w[2].y) * unit;
  let c2 = vec3f(w[0].z, w[1].z, w[2].z) * unit;
  let x01 = cross(c0, c1);
  let x12 = cross(c1, c2);
  let x20 = cross(c2, c0);
  let det = dot(c0, x12);
  let n = vert.normal;
  var out: DrawVSOutput;
  out.position = frame.viewProjection * vec4f(world, 1.0);
  out.normal = select(1.0, -1.0, det < 0.0) * (x12 * n.x + x20 * n.y + x01 * n.z);
  out.surfaceToLight = frame.lightWorldPosition - world;
  out.surfaceToView = frame.viewWorldPosition - world;
  out.texcoord = vert.texcoord;
  out.material = o.material;
  out.color = vert.color;
  return out;
}

@fragment fn fs(in: DrawVSOutput) -> @location(0) vec4f {
  // Derivatives in uniform control flow: material_texel samples with textureSampleGrad, since
  // which array and sampler it reads differs between the fragments of one draw.
  let ddx = dpdx(in.texcoord);
  let ddy = dpdy(in.texcoord);
  let material = materialRecords[in.material];
  let texel = material_texel(material, in.texcoord, ddx, ddy);
  var v: VSOutput;
  v.position = in.position;
  v.normal = in.normal;
  v.surfaceToLight = in.surfaceToLight;
  v.surfaceToView = in.surfaceToView;
  v.texcoord = in.texcoord;
  v.color = in.color;
  return shade(v, material.color, material.shininess, texel, material.alphaCutoff);
}
// @include material_table_default.wgsl
