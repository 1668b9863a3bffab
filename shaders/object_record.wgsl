// SPDX-License-Identifier: MIT
// One object of bindery::gpu_driven::ObjectTable (include/bindery/gpu_driven/object_table.hpp):
// the GPU record every GPU-driven pass reads, 64 bytes, as ObjectTable::wgsl() returns it.
// C++ mirror: bindery::gpu_driven::ObjectRecord (checked against this struct when the table is
// created). Pulled into other shaders with a `// @include object_record.wgsl` line.

// The world matrix as three rows of a 3x4 affine matrix (row r = (m[0][r], m[1][r], m[2][r],
// m[3][r]) of the column-major mat4; the fourth row is (0, 0, 0, 1)), the mesh, the material,
// the flags (kObjectLive, the pipeline index in bits 8..15) and a value the application chooses.
struct ObjectRecord {
  world_rows: array<vec4f, 3>,
  mesh: u32,
  material: u32,
  flags: u32,
  user: u32,
};

// flags bit 0: the slot holds a live object (removed and never-used slots: flags 0).
const kObjectLive = 1u;
// flags bits 8..15: the object's pipeline index (bins are (pipeline, mesh)).
const kObjectPipelineShift = 8u;
const kObjectPipelineMask = 0xff00u;

// Whether the record is a live object.
fn object_is_live(r: ObjectRecord) -> bool {
  return (r.flags & kObjectLive) != 0u;
}

// The record's pipeline index (flags bits 8..15).
fn object_pipeline(r: ObjectRecord) -> u32 {
  return (r.flags & kObjectPipelineMask) >> kObjectPipelineShift;
}

// The record's world matrix as a mat4x4f (columns rebuilt from the three rows).
fn object_world(r: ObjectRecord) -> mat4x4f {
  let a = r.world_rows[0];
  let b = r.world_rows[1];
  let c = r.world_rows[2];
  return mat4x4f(vec4f(a.x, b.x, c.x, 0.0), vec4f(a.y, b.y, c.y, 0.0), vec4f(a.z, b.z, c.z, 0.0),
                 vec4f(a.w, b.w, c.w, 1.0));
}

// The world-space position of object-space point p.
fn object_transform(r: ObjectRecord, p: vec3f) -> vec3f {
  let q = vec4f(p, 1.0);
  return vec3f(dot(r.world_rows[0], q), dot(r.world_rows[1], q), dot(r.world_rows[2], q));
}

// The largest factor by which the world matrix stretches a length (its largest column norm): a
// sphere of radius s maps into one of radius s times this.
fn object_max_scale(r: ObjectRecord) -> f32 {
  let w = r.world_rows;
  let c0 = vec3f(w[0].x, w[1].x, w[2].x);
  let c1 = vec3f(w[0].y, w[1].y, w[2].y);
  let c2 = vec3f(w[0].z, w[1].z, w[2].z);
  return sqrt(max(dot(c0, c0), max(dot(c1, c1), dot(c2, c2))));
}
