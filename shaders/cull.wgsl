// SPDX-License-Identifier: MIT
// Frustum culling on the GPU (--strategy gpu-culling). One invocation per object: its bounding
// sphere (object space: center xyz, radius w) is moved by the object's world matrix (radius
// scaled by the largest axis scale) and tested against the six planes of the view-projection
// (WebGPU clip space: -w <= x, y <= w and 0 <= z <= w). A visible object is appended to its
// batch's window of `visible`, and the batch's indirect instanceCount counts it.
struct PerObjectUniforms {
  normalMatrix: mat3x3f,
  world: mat4x4f,
};

struct CullUniforms {
  viewProjection: mat4x4f,
  objectCount: u32,
};

// GPUDrawIndexedIndirect arguments (WebGPU §17.2.3: five 32-bit values, 20 bytes).
struct DrawIndexedIndirect {
  indexCount: u32,
  instanceCount: atomic<u32>,
  firstIndex: u32,
  baseVertex: i32,
  firstInstance: u32,
};

struct CullObject {
  sphere: vec4f,  // object-space bounding sphere: center xyz, radius w
  batch: u32,     // index of the object's indirect draw
};

@group(0) @binding(0) var<uniform> cull: CullUniforms;
@group(0) @binding(1) var<storage, read> objects: array<PerObjectUniforms>;
@group(0) @binding(2) var<storage, read> cullObjects: array<CullObject>;
@group(0) @binding(3) var<storage, read_write> draws: array<DrawIndexedIndirect>;
@group(0) @binding(4) var<storage, read_write> visible: array<u32>;

fn row(m: mat4x4f, r: u32) -> vec4f {
  return vec4f(m[0][r], m[1][r], m[2][r], m[3][r]);
}

// Signed distance of a world-space point to a clip plane given as vec4 (a, b, c, d).
fn distanceTo(plane: vec4f, p: vec3f) -> f32 {
  return (dot(plane.xyz, p) + plane.w) / length(plane.xyz);
}

@compute @workgroup_size(64)
fn cull_objects(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  if (i >= cull.objectCount) {
    return;
  }
  let world = objects[i].world;
  let o = cullObjects[i];
  let center = (world * vec4f(o.sphere.xyz, 1.0)).xyz;
  let scale = max(length(world[0].xyz), max(length(world[1].xyz), length(world[2].xyz)));
  let radius = o.sphere.w * scale;

  let m = cull.viewProjection;
  let r0 = row(m, 0u);
  let r1 = row(m, 1u);
  let r2 = row(m, 2u);
  let r3 = row(m, 3u);
  let planes = array<vec4f, 6>(r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2);
  for (var p = 0u; p < 6u; p++) {
    if (distanceTo(planes[p], center) < -radius) {
      return;
    }
  }
  let slot = atomicAdd(&draws[o.batch].instanceCount, 1u);
  visible[draws[o.batch].firstInstance + slot] = i;
}
