// SPDX-License-Identifier: MIT
// GPU-driven culling (--strategy gpu-driven): the article's animation, frustum culling, two-phase
// occlusion culling against a depth pyramid, and compaction into indirect draws, all on the GPU
// (seed 003's "further ideas"; the two-phase scheme of Haar & Aaltonen, SIGGRAPH 2015, and
// Wihlidal, GDC 2016). The CPU uploads the objects once and writes one DrivenFrame per frame.
//
// Per frame:  begin_frame  -> cull_phase1 -> [render phase 1]
//             -> (occlusion) depth pyramid -> begin_phase2 -> cull_phase2 -> [render phase 2]
// Phase 1 draws the objects inside the frustum that were visible last frame (all of them when
// occlusion culling is off). Phase 2 tests every object inside the frustum against the pyramid of
// phase 1's depth, records its visibility for the next frame, and draws the visible ones phase 1
// did not draw. An object is culled only when its nearest depth is behind the farthest depth of
// phase 1 under its screen rectangle, so the final image equals the one without occlusion
// culling.
// @include object_animation.wgsl

struct DrivenFrame {
  viewProjection: mat4x4f,
  lightWorldPosition: vec3f,
  time: f32,
  viewWorldPosition: vec3f,
  objectCount: u32,
  targetSize: vec2f,   // pixels
  batchCount: u32,
  occlusion: u32,      // 1: two-phase occlusion culling
  pyramidLevels: u32,
};

// One indirect draw: a mesh's range of the merged index buffer, its object-space bounds, and
// the window of `instances` its visible objects are compacted into.
struct BatchInfo {
  sphere: vec4f,   // bounding sphere: center xyz, radius w
  boxMin: vec4f,   // axis-aligned box (xyz)
  boxMax: vec4f,
  indexCount: u32,
  firstIndex: u32,
  baseVertex: i32,
  firstInstance: u32,
};

// GPUDrawIndexedIndirect arguments (WebGPU §17.2.3: five 32-bit values, 20 bytes).
struct DrawIndexedIndirect {
  indexCount: u32,
  instanceCount: atomic<u32>,
  firstIndex: u32,
  baseVertex: i32,
  firstInstance: u32,
};

// What the vertex stage reads per drawn object: the world matrix's three rows (rotation times a
// uniform scale, so it also carries normals: the fragment stage normalizes) and the material.
struct Instance {
  row0: vec4f,
  row1: vec4f,
  row2: vec4f,
  material: u32,
};

// The number of phase 2 candidates, and the frame's counts: inside the frustum, not occluded,
// drawn.
struct Counters {
  candidates: atomic<u32>,
  afterFrustum: atomic<u32>,
  afterOcclusion: atomic<u32>,
  drawn: atomic<u32>,
};

@group(0) @binding(0) var<uniform> frame: DrivenFrame;
@group(0) @binding(1) var<storage, read> objects: array<ObjectInput>;
@group(0) @binding(2) var<storage, read> batches: array<BatchInfo>;
@group(0) @binding(3) var<storage, read_write> draws: array<DrawIndexedIndirect>;
@group(0) @binding(4) var<storage, read_write> instances: array<Instance>;
@group(0) @binding(5) var<storage, read_write> visible: array<u32>;
@group(0) @binding(6) var<storage, read_write> candidates: array<u32>;
@group(0) @binding(7) var<storage, read_write> counters: Counters;
@group(0) @binding(8) var pyramid: texture_2d<f32>;

// Phase 2's indirect dispatch arguments (GPUDispatchIndirect: three u32). In a group of its own,
// bound only for begin_phase2: a buffer cannot be read-write storage and INDIRECT in the same
// dispatch (WebGPU usage scopes).
struct DispatchArgs {
  x: u32,
  y: u32,
  z: u32,
};
@group(1) @binding(0) var<storage, read_write> phase2Dispatch: DispatchArgs;

fn transform(w: array<vec4f, 3>, p: vec3f) -> vec3f {
  let q = vec4f(p, 1.0);
  return vec3f(dot(w[0], q), dot(w[1], q), dot(w[2], q));
}

fn row(m: mat4x4f, r: u32) -> vec4f {
  return vec4f(m[0][r], m[1][r], m[2][r], m[3][r]);
}

// Whether the world-space sphere is at least partly inside the six planes of the view-projection
// (WebGPU clip space: -w <= x, y <= w and 0 <= z <= w).
fn in_frustum(center: vec3f, radius: f32) -> bool {
  let m = frame.viewProjection;
  let r0 = row(m, 0u);
  let r1 = row(m, 1u);
  let r2 = row(m, 2u);
  let r3 = row(m, 3u);
  let planes = array<vec4f, 6>(r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2);
  for (var p = 0u; p < 6u; p++) {
    let plane = planes[p];
    if (dot(plane.xyz, center) + plane.w < -radius * length(plane.xyz)) {
      return false;
    }
  }
  return true;
}

// Appends object `i` to its batch's window of instances.
fn append(i: u32, o: ObjectInput, w: array<vec4f, 3>) {
  let slot = atomicAdd(&draws[o.batch].instanceCount, 1u);
  instances[batches[o.batch].firstInstance + slot] = Instance(w[0], w[1], w[2], o.material);
  atomicAdd(&counters.drawn, 1u);
}

// Resets every batch's instance count and the frame's counters.
@compute @workgroup_size(64)
fn begin_frame(@builtin(global_invocation_id) id: vec3u) {
  if (id.x == 0u) {
    atomicStore(&counters.candidates, 0u);
    atomicStore(&counters.afterFrustum, 0u);
    atomicStore(&counters.afterOcclusion, 0u);
    atomicStore(&counters.drawn, 0u);
  }
  reset_draw(id.x);
}

fn reset_draw(b: u32) {
  if (b >= frame.batchCount) {
    return;
  }
  let info = batches[b];
  draws[b].indexCount = info.indexCount;
  atomicStore(&draws[b].instanceCount, 0u);
  draws[b].firstIndex = info.firstIndex;
  draws[b].baseVertex = info.baseVertex;
  draws[b].firstInstance = info.firstInstance;
}

// Phase 1: animate, frustum-cull, and draw what was visible last frame.
@compute @workgroup_size(64)
fn cull_phase1(@builtin(global_invocation_id) id: vec3u,
               @builtin(num_workgroups) groups: vec3u) {
  let i = linear_index(id, groups);
  if (i >= frame.objectCount) {
    return;
  }
  let o = objects[i];
  let w = world_rows(o, frame.time);
  let sphere = batches[o.batch].sphere;
  if (!in_frustum(transform(w, sphere.xyz), sphere.w * o.scale)) {
    visible[i] = 0u;
    return;
  }
  atomicAdd(&counters.afterFrustum, 1u);
  if (frame.occlusion == 0u) {
    atomicAdd(&counters.afterOcclusion, 1u);
    append(i, o, w);
    return;
  }
  candidates[atomicAdd(&counters.candidates, 1u)] = i;
  if (visible[i] != 0u) {
    append(i, o, w);
  }
}

// Between the phases: phase 2's dispatch size from the candidate count, and the batches' instance
// counts reset (phase 1's draws are recorded before this runs, so their windows are free).
@compute @workgroup_size(64)
fn begin_phase2(@builtin(global_invocation_id) id: vec3u) {
  if (id.x == 0u) {
    let groups = (atomicLoad(&counters.candidates) + kWorkgroupSize - 1u) / kWorkgroupSize;
    phase2Dispatch.x = min(groups, kMaxWorkgroupsX);
    phase2Dispatch.y = (groups + kMaxWorkgroupsX - 1u) / kMaxWorkgroupsX;
    phase2Dispatch.z = 1u;
  }
  reset_draw(id.x);
}

// The farthest depth of phase 1 under pixels [lo, hi] (inclusive), from the smallest pyramid
// level where that rectangle spans at most 4 x 4 texels. Level L's texel t covers the pixels
// whose index shifted right by L is t (the last texel of a row also covers an odd remainder).
fn farthest_depth(lo: vec2u, hi: vec2u) -> f32 {
  var level = 0u;
  loop {
    if (level + 1u >= frame.pyramidLevels) {
      break;
    }
    let span = (hi >> vec2u(level)) - (lo >> vec2u(level));
    if (span.x <= 3u && span.y <= 3u) {
      break;
    }
    level += 1u;
  }
  // Level L is max(1, size >> L) texels wide and high (as created). Computed here rather than
  // with textureDimensions(pyramid, level): with a level that differs between invocations,
  // lavapipe (Mesa 25.0) returned wrong sizes (seen as visible cubes culled).
  let size = max(vec2u(frame.targetSize) >> vec2u(level), vec2u(1u));
  let a = min(lo >> vec2u(level), size - 1u);
  let b = min(hi >> vec2u(level), size - 1u);
  var depth = 0.0;
  for (var y = a.y; y <= b.y; y++) {
    for (var x = a.x; x <= b.x; x++) {
      depth = max(depth, textureLoad(pyramid, vec2u(x, y), level).r);
    }
  }
  return depth;
}

// Whether the object's box is certainly hidden behind phase 1's depth.
fn occluded(w: array<vec4f, 3>, info: BatchInfo) -> bool {
  var ndcMin = vec3f(1e30);
  var ndcMax = vec3f(-1e30);
  for (var c = 0u; c < 8u; c++) {
    let corner = select(info.boxMin.xyz, info.boxMax.xyz,
                        vec3<bool>((c & 1u) != 0u, (c & 2u) != 0u, (c & 4u) != 0u));
    let clip = frame.viewProjection * vec4f(transform(w, corner), 1.0);
    if (clip.w <= 1e-5 || clip.z < 0.0) {
      return false;  // reaches the near plane or behind the eye: keep it
    }
    let ndc = clip.xyz / clip.w;
    ndcMin = min(ndcMin, ndc);
    ndcMax = max(ndcMax, ndc);
  }
  // NDC to pixels (y down), widened by a pixel on each side for rasterization rounding.
  let size = frame.targetSize;
  let pxMin = vec2f((ndcMin.x * 0.5 + 0.5) * size.x, (0.5 - ndcMax.y * 0.5) * size.y) - 1.0;
  let pxMax = vec2f((ndcMax.x * 0.5 + 0.5) * size.x, (0.5 - ndcMin.y * 0.5) * size.y) + 1.0;
  let limit = size - 1.0;
  let lo = vec2u(clamp(floor(pxMin), vec2f(0.0), limit));
  let hi = vec2u(clamp(floor(pxMax), vec2f(0.0), limit));
  // Hidden only when strictly behind, by more than depth24plus's resolution and the difference
  // between this arithmetic and the vertex stage's, so that no depth tie is culled.
  return ndcMin.z > farthest_depth(lo, hi) + 1e-5;
}

// Phase 2: every object inside the frustum against the pyramid; remember visibility for the
// next frame; draw the visible ones phase 1 did not draw.
@compute @workgroup_size(64)
fn cull_phase2(@builtin(global_invocation_id) id: vec3u,
               @builtin(num_workgroups) groups: vec3u) {
  let c = linear_index(id, groups);
  if (c >= atomicLoad(&counters.candidates)) {
    return;
  }
  let i = candidates[c];
  let o = objects[i];
  let w = world_rows(o, frame.time);
  let wasDrawn = visible[i] != 0u;
  if (occluded(w, batches[o.batch])) {
    visible[i] = 0u;
    return;
  }
  visible[i] = 1u;
  atomicAdd(&counters.afterOcclusion, 1u);
  if (!wasDrawn) {
    append(i, o, w);
  }
}
