// SPDX-License-Identifier: MIT
// GPU culling over the object table (bindery/gpu_driven/culling.hpp): frustum culling by each
// mesh's bounding sphere and two-phase occlusion culling by its box against a depth pyramid
// (Haar & Aaltonen, SIGGRAPH 2015; Wihlidal, GDC 2016; docs/REFERENCES.md). Visible objects are
// appended to their (pipeline, mesh) bin of the indirect draws (indirect_draws.wgsl).
//
// Per frame:  begin_frame -> cull_phase1 -> [indirect draws: scan, args, scatter; render phase 1]
//             occlusion on: [depth pyramid] -> begin_phase2 -> cull_phase2 -> [indirect draws;
//             render phase 2]
// Phase 1 appends the objects inside the frustum that were visible last frame (all of them
// inside the frustum when occlusion culling is off). Phase 2 tests every object inside the
// frustum against the pyramid of phase 1's depth, records its visibility for the next frame, and
// appends the visible ones phase 1 did not. An object is culled only when its nearest depth is
// behind the farthest depth under its screen rectangle, so the image equals the one without
// occlusion culling.
// @include object_record.wgsl
// @include frustum.wgsl
// @include mesh_record.wgsl
// @include occlusion.wgsl

struct CullFrame {
  viewProjection: mat4x4f,
  targetSize: vec2f,    // pixels
  objectEnd: u32,       // one past the highest object id
  binStride: u32,       // mesh ids: bin = pipeline * binStride + mesh
  pyramidLevels: u32,
  flags: u32,           // bit 0: frustum culling, bit 1: occlusion culling, bit 2: a list only
  candidateBase: u32,   // where the phase 2 candidates start in `state`
  pad: u32,
};

// The frame's counts: phase 2 candidates, inside the frustum, not occluded, appended (drawn).
struct CullCounters {
  candidates: atomic<u32>,
  afterFrustum: atomic<u32>,
  afterOcclusion: atomic<u32>,
  drawn: atomic<u32>,
};

// indirect_draws.wgsl's Bin, with the count this shader appends through atomic.
struct Bin {
  count: atomic<u32>,
  first: u32,
  draw: u32,
  pad: u32,
};
// @include draw_counters.wgsl

const kGroup = 64u;
const kMaxGroupsX = 65535u;
const kFrustum = 1u;
const kOcclusion = 2u;
const kListOnly = 4u;

@group(0) @binding(0) var<uniform> frame: CullFrame;
@group(0) @binding(1) var<storage, read> objects: array<ObjectRecord>;
@group(0) @binding(2) var<storage, read> meshes: array<MeshRecord>;
// [0, candidateBase): each object's visibility in the last frame (0 at first: phase 2 draws
// them all); [candidateBase, ...): the phase 2 candidates.
@group(0) @binding(3) var<storage, read_write> state: array<u32>;
@group(0) @binding(4) var<storage, read_write> counters: CullCounters;
@group(0) @binding(5) var<storage, read_write> bins: array<Bin>;
@group(0) @binding(6) var<storage, read_write> entries: array<vec2u>;
@group(0) @binding(7) var<storage, read_write> draws: DrawCounters;
@group(0) @binding(8) var pyramid: texture_2d<f32>;
// Phase 2's indirect dispatch, written by begin_phase2 alone (see indirect_draws.wgsl's note on
// usage scopes).
@group(1) @binding(0) var<storage, read_write> phase2Dispatch: DispatchArgs;

fn linear(id: vec3u, groups: vec3u) -> u32 {
  return id.x + id.y * groups.x * kGroup;
}

// Whether the world-space sphere is at least partly inside the frame's frustum (frustum.wgsl).
fn in_frustum(center: vec3f, radius: f32) -> bool {
  return sphere_in_frustum(frame.viewProjection, center, radius);
}

// Appends object i to its bin, or with kListOnly to the list of visible instances alone (the
// entries, which the cluster stage reads).
fn append(i: u32, o: ObjectRecord) {
  if ((frame.flags & kListOnly) != 0u) {
    entries[atomicAdd(&draws.entries, 1u)] = vec2u(i, 0u);
    atomicAdd(&counters.drawn, 1u);
    return;
  }
  let b = object_pipeline(o) * frame.binStride + o.mesh;
  let slot = atomicAdd(&bins[b].count, 1u);
  entries[atomicAdd(&draws.entries, 1u)] = vec2u(i, slot);
  atomicAdd(&counters.drawn, 1u);
}

// Resets the frame's counts (before the indirect draws' own reset of the bins).
@compute @workgroup_size(1)
fn begin_frame() {
  atomicStore(&counters.candidates, 0u);
  atomicStore(&counters.afterFrustum, 0u);
  atomicStore(&counters.afterOcclusion, 0u);
  atomicStore(&counters.drawn, 0u);
  atomicStore(&draws.subDraws, 0u);
}

// Whether object i can be drawn at all: live, with a live mesh, inside the frustum (when frustum
// culling is on). Counts the ones inside.
fn frustum_visible(i: u32, o: ObjectRecord) -> bool {
  if ((o.flags & kObjectLive) == 0u) {
    return false;
  }
  let mesh = meshes[o.mesh];
  if (mesh.indexCount == 0u) {
    return false;
  }
  if ((frame.flags & kFrustum) != 0u &&
      !in_frustum(object_transform(o, mesh.sphere.xyz), mesh.sphere.w * object_max_scale(o))) {
    return false;
  }
  atomicAdd(&counters.afterFrustum, 1u);
  return true;
}

// Phase 1: frustum-cull every object; append those visible last frame (every one inside the
// frustum without occlusion culling).
@compute @workgroup_size(64)
fn cull_phase1(@builtin(global_invocation_id) id: vec3u,
               @builtin(num_workgroups) groups: vec3u) {
  let i = linear(id, groups);
  if (i >= frame.objectEnd) {
    return;
  }
  let o = objects[i];
  if (!frustum_visible(i, o)) {
    state[i] = 0u;
    return;
  }
  if ((frame.flags & kOcclusion) == 0u) {
    atomicAdd(&counters.afterOcclusion, 1u);
    append(i, o);
    return;
  }
  state[frame.candidateBase + atomicAdd(&counters.candidates, 1u)] = i;
  if (state[i] != 0u) {
    append(i, o);
  }
}

// Between the phases: phase 2's dispatch size from the candidate count.
@compute @workgroup_size(1)
fn begin_phase2() {
  let groups = (atomicLoad(&counters.candidates) + kGroup - 1u) / kGroup;
  phase2Dispatch.x = min(groups, kMaxGroupsX);
  phase2Dispatch.y = (groups + kMaxGroupsX - 1u) / kMaxGroupsX;
  phase2Dispatch.z = 1u;
}

// Whether the object's box is certainly hidden behind phase 1's depth (occlusion.wgsl).
fn occluded(o: ObjectRecord, mesh: MeshRecord) -> bool {
  return box_occluded(pyramid, frame.viewProjection * object_world(o), mesh.boxMin.xyz,
                      mesh.boxMax.xyz, frame.targetSize, frame.pyramidLevels);
}

// Phase 2: every candidate against the pyramid; remember visibility for the next frame; append
// the visible ones phase 1 did not.
@compute @workgroup_size(64)
fn cull_phase2(@builtin(global_invocation_id) id: vec3u,
               @builtin(num_workgroups) groups: vec3u) {
  let c = linear(id, groups);
  if (c >= atomicLoad(&counters.candidates)) {
    return;
  }
  let i = state[frame.candidateBase + c];
  let o = objects[i];
  let wasDrawn = state[i] != 0u;
  if (occluded(o, meshes[o.mesh])) {
    state[i] = 0u;
    return;
  }
  state[i] = 1u;
  atomicAdd(&counters.afterOcclusion, 1u);
  if (!wasDrawn) {
    append(i, o);
  }
}
