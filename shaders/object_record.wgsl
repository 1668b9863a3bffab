// SPDX-License-Identifier: MIT
// One object of the GPU-driven object table (bindery/gpu_driven/object_table.hpp): its world
// matrix as the three rows of a 3x4 affine matrix, its mesh (an id of the mesh pool), its
// material (an index of the material table), flags and a value of the application's. C++ mirror:
// bindery::gpu_driven::ObjectRecord, checked against this struct's reflected layout.
struct ObjectRecord {
  world0: vec4f,
  world1: vec4f,
  world2: vec4f,
  mesh: u32,
  material: u32,
  flags: u32,  // bit 0: live; bits 8..15: the pipeline index (bins are (pipeline, mesh))
  user: u32,
};

const kObjectLive = 1u;

fn object_pipeline(o: ObjectRecord) -> u32 {
  return (o.flags >> 8u) & 0xffu;
}

// The world-space position of object-space point p.
fn object_transform(o: ObjectRecord, p: vec3f) -> vec3f {
  let q = vec4f(p, 1.0);
  return vec3f(dot(o.world0, q), dot(o.world1, q), dot(o.world2, q));
}

// The largest factor by which the world matrix stretches a length (its largest column norm): a
// sphere of radius r maps into one of radius r times this.
fn object_max_scale(o: ObjectRecord) -> f32 {
  let c0 = vec3f(o.world0.x, o.world1.x, o.world2.x);
  let c1 = vec3f(o.world0.y, o.world1.y, o.world2.y);
  let c2 = vec3f(o.world0.z, o.world1.z, o.world2.z);
  return sqrt(max(dot(c0, c0), max(dot(c1, c1), dot(c2, c2))));
}
