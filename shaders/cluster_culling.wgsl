// SPDX-License-Identifier: MIT
// The cluster stage of the GPU-driven parts (bindery/gpu_driven/cluster_culling.hpp): from the
// list of visible instances (the instance culling's entries, indirect_draws.wgsl's `entries`) to
// the list of visible clusters and one index buffer that draws them all.
//
// Per phase:
//   begin_phase  one invocation: the phase's counts reset; the instance dispatch's size
//   instances    one invocation per visible instance: the levels of its mesh's hierarchy that may
//                hold a cluster of the cut (the CPU's level_may_hold_cut()), their clusters
//                appended as chunks of at most 8 (instance, first cluster, count)
//   begin_test   one invocation: the test dispatch's size (a workgroup per 64 chunks)
//   test         one invocation per chunk, its (instance, cluster)s one after another (most far
//                instances have one cluster in their cut): in the cut (its self error
//                projects to at most tau pixels, its parent's to more: cluster_hierarchy.hpp's
//                cluster_in_cut()), inside the frustum, not facing away (its normal cone:
//                cluster_faces_away()) and not occluded; the visible ones get a slot and a run of
//                the output's triangles
// Occlusion per cluster, two phases (as the object culling, gpu_cull.wgsl, per object): phase 1
// tests its clusters against the pyramid the last frame left (last frame's phase 1 depth, seen
// through last frame's view-projection) and defers the ones it hides to phase 2, as chunks of
// one after the phase 2 region's start; phase 2 tests those and the clusters of its own newly
// visible instances against the pyramid of this frame's phase 1. A wrong verdict of phase 1 (an
// object that moved) only moves a cluster to phase 2, so the image equals the one without
// occlusion culling.
//   finalize     one invocation: the emit dispatch's size and the draw's DrawIndexedIndirect
//   emit         one workgroup per slot: each triangle's three indices slot << 8 | corner, which
//                the draw's vertex stage (gpu_driven_draw.wgsl's vs_clusters) turns back into the
//                slot's instance and the cluster's vertex
// @include object_record.wgsl
// @include frustum.wgsl
// @include cluster_records.wgsl
// @include occlusion.wgsl

struct ClusterMesh {
  sphere: vec4f,    // the hierarchy's bounding sphere (object space): where reaches start
  firstLevel: u32,  // into `levels`
  levelCount: u32,  // 0: the mesh has no hierarchy (drawn by nobody)
  pad0: u32,
  pad1: u32,
};

struct ClusterLevelRecord {
  firstCluster: u32,  // into `clusters`
  clusterCount: u32,
  minSelfError: f32,
  selfReach: f32,
  maxParentError: f32,
  parentReach: f32,
  pad0: u32,
  pad1: u32,
};

// Per phase: chunks, slots and triangles handed out; per frame: cluster-instances tested, visible
// clusters, triangles submitted, clusters dropped for want of room.
// The compute rasterizer's slots and, per frame, the triangles it was given.
struct ClusterCounts {
  chunks: atomic<u32>,
  slots: atomic<u32>,
  triangles: atomic<u32>,
  rasterSlots: atomic<u32>,
  tested: atomic<u32>,
  visible: atomic<u32>,
  submitted: atomic<u32>,
  dropped: atomic<u32>,
  rasterized: atomic<u32>,
  // The phase's compute clusters' screen bound, whole pixels: where the resolve draws.
  boundsMinX: atomic<u32>,
  boundsMinY: atomic<u32>,
  boundsMaxX: atomic<u32>,
  boundsMaxY: atomic<u32>,
  pad3: u32,
  deferred: atomic<u32>,  // clusters phase 1 deferred to phase 2 (chunks from maxChunks on)
  pad2: u32,
};

// What the one-invocation passes write: three dispatches and the draw.
struct ClusterIndirect {
  instances: vec3u,
  pad0: u32,
  test: vec3u,
  pad1: u32,
  emit: vec3u,
  pad2: u32,
  indexCount: u32,
  instanceCount: u32,
  firstIndex: u32,
  baseVertex: i32,
  firstInstance: u32,
  raster: vec3u,  // the compute rasterizer's dispatch: a workgroup per raster slot
  // The resolve's DrawIndirect: 6 vertices (the bound's rectangle), one instance when any
  // cluster went to compute.
  resolveVertexCount: u32,
  resolveInstanceCount: u32,
  resolveFirstVertex: u32,
  resolveFirstInstance: u32,
};

const kGroup = 64u;
const kChunk = 8u;  // clusters per chunk; kGroup / kChunk chunks per test workgroup
const kMaxGroupsX = 65535u;
const kFrustum = 1u;
const kOcclusion = 2u;
const kHistory = 4u;
const kCone = 8u;
const kConeMargin = 1.0e-3;  // cluster_hierarchy.hpp's kConeMargin
const kMaterialHardwareOnly = 1u;  // materialFlags: alpha-masked (drawn by the hardware path)
const kRootError = 3.0e38;

@group(0) @binding(0) var<uniform> frame: ClusterFrame;
@group(0) @binding(1) var<storage, read> objects: array<ObjectRecord>;
@group(0) @binding(2) var<storage, read> clusterMeshes: array<ClusterMesh>;
@group(0) @binding(3) var<storage, read> levels: array<ClusterLevelRecord>;
@group(0) @binding(4) var<storage, read> clusters: array<ClusterRecord>;
// The visible instances: indirect_draws.wgsl's entries (object, slot) and, first in its counters,
// their number.
@group(0) @binding(5) var<storage, read> instances: array<vec2u>;
@group(0) @binding(6) var<storage, read> instanceCount: array<u32>;
@group(0) @binding(7) var<storage, read_write> chunks: array<vec4u>;
@group(0) @binding(8) var<storage, read_write> slots: array<vec4u>;
@group(0) @binding(9) var<storage, read_write> counts: ClusterCounts;
@group(0) @binding(10) var<storage, read> words: array<u32>;
@group(0) @binding(11) var<storage, read_write> indices: array<u32>;
// The clusters the compute rasterizer draws: (object id, cluster index) each.
@group(0) @binding(12) var<storage, read_write> rasterSlots: array<vec2u>;
// Per material of the object table's records: kMaterialHardwareOnly.
@group(0) @binding(13) var<storage, read> materialFlags: array<u32>;
// The depth pyramid (occlusion.wgsl); a 1 x 1 stand-in without occlusion culling.
@group(0) @binding(14) var pyramid: texture_2d<f32>;
// Which phase the dispatch belongs to: a uniform (a group per phase), so that no invocation
// reads a shared atomic to learn it.
struct ClusterPhase {
  index: u32,  // 1 or 2
  pad0: u32,
  pad1: u32,
  pad2: u32,
};
@group(0) @binding(15) var<uniform> phase: ClusterPhase;
// Written by the one-invocation passes alone: a buffer cannot be read-write storage and INDIRECT
// in one dispatch (WebGPU usage scopes).
@group(1) @binding(0) var<storage, read_write> indirect: ClusterIndirect;

fn linear_group(wg: vec3u, groups: vec3u) -> u32 {
  return wg.x + wg.y * groups.x;
}

fn grid(workgroups: u32) -> vec3u {
  return vec3u(min(workgroups, kMaxGroupsX), (workgroups + kMaxGroupsX - 1u) / kMaxGroupsX, 1u);
}

// Whether the world-space sphere is at least partly inside the frame's frustum (frustum.wgsl).
fn in_frustum(center: vec3f, radius: f32) -> bool {
  return sphere_in_frustum(frame.viewProjection, center, radius);
}

// Whether the visible cluster `c` of object `o` (largest scale s) goes to the compute rasterizer:
// its material is not alpha-masked, the cube around its bounding sphere lies wholly in front of
// the near plane and projects into a box of at most kRasterMaxExtent pixels a side (exact integer
// edge functions: raster_core.wgsl), and that box's area per triangle is at most rasterMaxArea.
// The box (pixels) goes to `bounds`.
fn rasterize_in_compute(o: ObjectRecord, s: f32, c: ClusterRecord,
                        bounds: ptr<function, vec4f>) -> bool {
  if (frame.rasterMaxArea <= 0.0 || (materialFlags[o.material] & kMaterialHardwareOnly) != 0u) {
    return false;
  }
  let center = object_transform(o, c.sphere.xyz);
  let r = c.sphere.w * s;
  var lo = vec2f(3.0e38);
  var hi = vec2f(-3.0e38);
  for (var k = 0u; k < 8u; k++) {
    let corner = center + r * vec3f(select(-1.0, 1.0, (k & 1u) != 0u),
                                    select(-1.0, 1.0, (k & 2u) != 0u),
                                    select(-1.0, 1.0, (k & 4u) != 0u));
    let clip = frame.viewProjection * vec4f(corner, 1.0);
    if (clip.w < frame.zNear) {
      return false;
    }
    let ndc = clip.xy / clip.w;
    let win = vec2f((ndc.x * 0.5 + 0.5) * frame.viewport.x, (0.5 - ndc.y * 0.5) * frame.viewport.y);
    lo = min(lo, win);
    hi = max(hi, win);
  }
  let extent = hi - lo;
  if (max(extent.x, extent.y) > kRasterMaxExtent) {
    return false;
  }
  *bounds = vec4f(lo, hi);
  return extent.x * extent.y <= frame.rasterMaxArea * f32(c.triangleCount);
}

// Projected error in pixels of a (sphere, error) of an object with world rows `o` and largest
// scale `s`: cluster_hierarchy.cpp's projected_error(), in the same order of operations.
fn projected_error(o: ObjectRecord, s: f32, sphere: vec4f, error: f32) -> f32 {
  if (error >= kRootError) {
    return 3.4e38;
  }
  let center = object_transform(o, sphere.xyz);
  let d = max(length(center - frame.eye) - sphere.w * s, frame.zNear);
  return error * s * frame.pixelsPerUnit / d;
}

// cluster_hierarchy.cpp's cluster_faces_away(), in the same order of operations: every triangle of
// cluster c of object o faces away from the eye.
fn faces_away(o: ObjectRecord, c: ClusterRecord) -> bool {
  if (!(c.coneAxis.w < 1.0)) {
    return false;
  }
  let w = o.world_rows;
  let c0 = vec3f(w[0].x, w[1].x, w[2].x);
  let c1 = vec3f(w[0].y, w[1].y, w[2].y);
  let c2 = vec3f(w[0].z, w[1].z, w[2].z);
  let n0 = dot(c0, c0);
  let n1 = dot(c1, c1);
  let n2 = dot(c2, c2);
  if (max(n0, max(n1, n2)) > min(n0, min(n1, n2)) * 1.0002) {
    return false;
  }
  if (dot(c0, cross(c1, c2)) <= 0.0) {
    return false;  // a mirror: the cone says nothing
  }
  let apex = object_transform(o, c.coneApex.xyz);
  let axis = normalize(c0 * c.coneAxis.x + c1 * c.coneAxis.y + c2 * c.coneAxis.z);
  return dot(normalize(apex - frame.eye), axis) >= c.coneAxis.w + kConeMargin;
}

// Whether the cube around cluster c's bounding sphere (object o, largest scale s) is hidden
// behind the pyramid's depth seen through `viewProjection`.
fn cluster_occluded(o: ObjectRecord, s: f32, c: ClusterRecord, viewProjection: mat4x4f) -> bool {
  let center = object_transform(o, c.sphere.xyz);
  let r = vec3f(c.sphere.w * s);
  return box_occluded(pyramid, viewProjection, center - r, center + r, frame.pyramidSize,
                      frame.pyramidLevels);
}

// Where the phase's chunks start in `chunks`: phase 2's after phase 1's maxChunks.
fn chunk_base() -> u32 {
  return select(0u, frame.maxChunks, phase.index >= 2u);
}

// cluster_hierarchy.cpp's level_may_hold_cut().
fn level_may_hold_cut(level: ClusterLevelRecord, dist: f32, s: f32) -> bool {
  let selfLowest = level.minSelfError * s * frame.pixelsPerUnit /
                   max(dist + level.selfReach * s, frame.zNear);
  if (selfLowest * 0.999 > frame.tau) {
    return false;
  }
  if (level.maxParentError >= kRootError) {
    return true;
  }
  let parentHighest = level.maxParentError * s * frame.pixelsPerUnit /
                      max(dist - level.parentReach * s, frame.zNear);
  return parentHighest * 1.001 > frame.tau;
}

@compute @workgroup_size(1)
fn begin_frame() {
  atomicStore(&counts.tested, 0u);
  atomicStore(&counts.visible, 0u);
  atomicStore(&counts.submitted, 0u);
  atomicStore(&counts.dropped, 0u);
  atomicStore(&counts.rasterized, 0u);
  atomicStore(&counts.deferred, 0u);
}

@compute @workgroup_size(1)
fn begin_phase() {
  // Phase 2 starts with the clusters phase 1 deferred.
  atomicStore(&counts.chunks,
              select(0u, min(atomicLoad(&counts.deferred), frame.maxChunks), phase.index >= 2u));
  atomicStore(&counts.slots, 0u);
  atomicStore(&counts.triangles, 0u);
  atomicStore(&counts.rasterSlots, 0u);
  atomicStore(&counts.boundsMinX, 0xffffffffu);
  atomicStore(&counts.boundsMinY, 0xffffffffu);
  atomicStore(&counts.boundsMaxX, 0u);
  atomicStore(&counts.boundsMaxY, 0u);
  indirect.instances = grid((instanceCount[0] + kGroup - 1u) / kGroup);
}

// The chunks (of at most kChunk) of the clusters [first, end) of instance i; written from chunk
// `at` of the phase on when `write`, each with `multi` (whether the instance's cut may hold more
// than one cluster) in w. Returns their number.
fn chunks_of_run(i: u32, first: u32, end: u32, at: u32, write: bool, multi: u32) -> u32 {
  let n = (end - first + kChunk - 1u) / kChunk;
  if (write) {
    let base = chunk_base();
    for (var k = 0u; k < n; k++) {
      let start = first + k * kChunk;
      if (at + k >= frame.maxChunks) {
        atomicAdd(&counts.dropped, min(kChunk, end - start));
        continue;
      }
      chunks[base + at + k] = vec4u(i, start, min(kChunk, end - start), multi);
    }
  }
  return n;
}

const kKeptRuns = 4u;  // runs of levels an invocation keeps between counting and writing

// What the count of an instance's cut found: chunks, clusters, and its first kKeptRuns runs of
// clusters (first, end); more runs than that are found again when writing.
struct CutRuns {
  chunks: u32,
  clusters: u32,
  count: u32,
  runs: array<vec2u, kKeptRuns>,
};

// The levels of instance i's mesh that may hold its cut, runs of consecutive ones as one run of
// clusters: their chunks (written from `at` on when `write`).
fn chunks_of_cut(i: u32, at: u32, write: bool, multi: u32) -> CutRuns {
  let o = objects[i];
  let mesh = clusterMeshes[o.mesh];
  let s = object_max_scale(o);
  let dist = length(object_transform(o, mesh.sphere.xyz) - frame.eye);
  var runFirst = 0u;
  var runEnd = 0u;
  var open = false;
  var r = CutRuns(0u, 0u, 0u, array<vec2u, kKeptRuns>());
  for (var l = 0u; l <= mesh.levelCount; l++) {
    var take = false;
    var level: ClusterLevelRecord;
    if (l < mesh.levelCount) {
      level = levels[mesh.firstLevel + l];
      take = level_may_hold_cut(level, dist, s);
      if (take && open && runEnd == level.firstCluster) {
        runEnd += level.clusterCount;
        continue;
      }
    }
    // A run ends: at a level that starts another, and after the last level.
    if (open && (take || l == mesh.levelCount)) {
      r.chunks += chunks_of_run(i, runFirst, runEnd, at + r.chunks, write, multi);
      r.clusters += runEnd - runFirst;
      if (r.count < kKeptRuns) {
        r.runs[r.count] = vec2u(runFirst, runEnd);
      }
      r.count += 1u;
      open = false;
    }
    if (take) {
      runFirst = level.firstCluster;
      runEnd = runFirst + level.clusterCount;
      open = true;
    }
  }
  return r;
}

var<workgroup> groupChunks: atomic<u32>;
var<workgroup> groupChunkBase: u32;

// One invocation per visible instance: its chunks counted, a run of the phase's chunks taken
// with one global atomic per workgroup, then written.
@compute @workgroup_size(64)
fn instances_pass(@builtin(global_invocation_id) id: vec3u,
                  @builtin(num_workgroups) groups: vec3u,
                  @builtin(local_invocation_index) lane: u32) {
  if (lane == 0u) {
    atomicStore(&groupChunks, 0u);
  }
  workgroupBarrier();
  let e = id.x + id.y * groups.x * kGroup;
  let live = e < instanceCount[0];
  var i = 0u;
  var cut = CutRuns(0u, 0u, 0u, array<vec2u, kKeptRuns>());
  var local = 0u;
  if (live) {
    i = instances[e].x;
    cut = chunks_of_cut(i, 0u, false, 0u);
    local = atomicAdd(&groupChunks, cut.chunks);
  }
  workgroupBarrier();
  if (lane == 0u) {
    groupChunkBase = atomicAdd(&counts.chunks, atomicLoad(&groupChunks));
  }
  workgroupBarrier();
  if (!live || cut.chunks == 0u) {
    return;
  }
  let multi = select(0u, 1u, cut.clusters > 1u);
  if (cut.count > kKeptRuns) {
    chunks_of_cut(i, groupChunkBase + local, true, multi);
    return;
  }
  var at = groupChunkBase + local;
  for (var k = 0u; k < cut.count; k++) {
    at += chunks_of_run(i, cut.runs[k].x, cut.runs[k].y, at, true, multi);
  }
}

@compute @workgroup_size(1)
fn begin_test() {
  let n = min(atomicLoad(&counts.chunks), frame.maxChunks);
  indirect.test = grid((n + kGroup - 1u) / kGroup);
}

var<workgroup> groupSlots: atomic<u32>;
var<workgroup> groupTriangles: atomic<u32>;
var<workgroup> groupTested: atomic<u32>;
var<workgroup> groupRaster: atomic<u32>;
var<workgroup> groupRasterized: atomic<u32>;
var<workgroup> slotBase: u32;
var<workgroup> triangleBase: u32;
var<workgroup> rasterBase: u32;
var<workgroup> groupBounds: array<atomic<u32>, 4>;  // min x, min y, max x, max y

const kHidden = 0u;
const kHardware = 1u;
const kCompute = 2u;

// Whether cluster `index` (its record `c`) of object `id` is drawn this phase (kHidden, kHardware or kCompute):
// in the cut, inside the frustum, not facing away and not occluded; phase 1 defers what last
// frame's pyramid hides (`multi`: the instance's cut may hold more than one cluster). A cluster
// for the compute rasterizer widens `bounds` (its screen box, pixels).
fn cluster_verdict(id: u32, index: u32, c: ClusterRecord, multi: bool,
                   bounds: ptr<function, vec4f>) -> u32 {
  let o = objects[id];
  let s = object_max_scale(o);
  if (!(projected_error(o, s, c.selfSphere, c.selfError) <= frame.tau &&
        projected_error(o, s, c.parentSphere, c.parentError) > frame.tau)) {
    return kHidden;
  }
  if ((frame.flags & kFrustum) != 0u &&
      !in_frustum(object_transform(o, c.sphere.xyz), c.sphere.w * s)) {
    return kHidden;
  }
  if ((frame.flags & kCone) != 0u && faces_away(o, c)) {
    return kHidden;
  }
  // A cut of one cluster is the instance, which the object culling tested already.
  if ((frame.flags & kOcclusion) != 0u && multi) {
    if (phase.index >= 2u) {
      if (cluster_occluded(o, s, c, frame.viewProjection)) {
        return kHidden;
      }
    } else if ((frame.flags & kHistory) != 0u &&
               cluster_occluded(o, s, c, frame.prevViewProjection)) {
      // Deferred to phase 2 while there is room (drawn now otherwise).
      let d = atomicAdd(&counts.deferred, 1u);
      if (d < frame.maxChunks) {
        chunks[frame.maxChunks + d] = vec4u(id, index, 1u, 1u);
        return kHidden;
      }
    }
  }
  var box = vec4f(0.0);
  if (rasterize_in_compute(o, s, c, &box)) {
    *bounds = vec4f(min((*bounds).xy, box.xy), max((*bounds).zw, box.zw));
    return kCompute;
  }
  return kHardware;
}

// One invocation per chunk (its clusters, at most kChunk, one after another: most chunks of a
// far instance hold one), kGroup chunks per workgroup. Slots and triangles are counted in
// workgroup memory first, so that a workgroup takes its runs with one global atomic each.
@compute @workgroup_size(64)
fn test_pass(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) groups: vec3u,
             @builtin(local_invocation_index) lane: u32) {
  if (lane == 0u) {
    atomicStore(&groupSlots, 0u);
    atomicStore(&groupTriangles, 0u);
    atomicStore(&groupTested, 0u);
    atomicStore(&groupRaster, 0u);
    atomicStore(&groupRasterized, 0u);
    atomicStore(&groupBounds[0], 0xffffffffu);
    atomicStore(&groupBounds[1], 0xffffffffu);
    atomicStore(&groupBounds[2], 0u);
    atomicStore(&groupBounds[3], 0u);
  }
  workgroupBarrier();
  let chunkIndex = linear_group(wg, groups) * kGroup + lane;
  var chunk = vec4u(0u);
  if (chunkIndex < min(atomicLoad(&counts.chunks), frame.maxChunks)) {
    chunk = chunks[chunk_base() + chunkIndex];
  }
  // Per cluster of the chunk: its verdict, and its index among the workgroup's slots (hardware)
  // or raster slots (compute) and first triangle.
  var verdict = array<u32, kChunk>();
  var localSlot = array<u32, kChunk>();
  var localTriangle = array<u32, kChunk>();
  var triangles = array<u32, kChunk>();
  var bounds = vec4f(3.0e38, 3.0e38, -3.0e38, -3.0e38);
  var hardware = 0u;
  var hardwareTriangles = 0u;
  var compute = 0u;
  var computeTriangles = 0u;
  for (var k = 0u; k < chunk.z; k++) {
    let c = clusters[chunk.y + k];
    let v = cluster_verdict(chunk.x, chunk.y + k, c, chunk.w != 0u, &bounds);
    verdict[k] = v;
    let t = c.triangleCount;
    triangles[k] = t;
    if (v == kHardware) {
      localSlot[k] = hardware;
      localTriangle[k] = hardwareTriangles;
      hardware += 1u;
      hardwareTriangles += t;
    } else if (v == kCompute) {
      localSlot[k] = compute;
      compute += 1u;
      computeTriangles += t;
    }
  }
  // This invocation's runs among the workgroup's.
  var slotBase0 = 0u;
  var triangleBase0 = 0u;
  var rasterBase0 = 0u;
  if (chunk.z > 0u) {
    atomicAdd(&groupTested, chunk.z);
  }
  if (hardware > 0u) {
    slotBase0 = atomicAdd(&groupSlots, hardware);
    triangleBase0 = atomicAdd(&groupTriangles, hardwareTriangles);
  }
  if (compute > 0u) {
    rasterBase0 = atomicAdd(&groupRaster, compute);
    atomicAdd(&groupRasterized, computeTriangles);
    let lo = vec2u(clamp(floor(bounds.xy), vec2f(0.0), frame.viewport));
    let hi = vec2u(clamp(ceil(bounds.zw), vec2f(0.0), frame.viewport));
    atomicMin(&groupBounds[0], lo.x);
    atomicMin(&groupBounds[1], lo.y);
    atomicMax(&groupBounds[2], hi.x);
    atomicMax(&groupBounds[3], hi.y);
  }
  workgroupBarrier();
  if (lane == 0u) {
    let n = atomicLoad(&groupSlots);
    slotBase = atomicAdd(&counts.slots, n);
    triangleBase = atomicAdd(&counts.triangles, atomicLoad(&groupTriangles));
    atomicAdd(&counts.tested, atomicLoad(&groupTested));
    let r = atomicLoad(&groupRaster);
    rasterBase = atomicAdd(&counts.rasterSlots, r);
    atomicAdd(&counts.rasterized, atomicLoad(&groupRasterized));
    if (r > 0u) {
      atomicMin(&counts.boundsMinX, atomicLoad(&groupBounds[0]));
      atomicMin(&counts.boundsMinY, atomicLoad(&groupBounds[1]));
      atomicMax(&counts.boundsMaxX, atomicLoad(&groupBounds[2]));
      atomicMax(&counts.boundsMaxY, atomicLoad(&groupBounds[3]));
    }
    atomicAdd(&counts.visible, n + r);
  }
  workgroupBarrier();
  for (var k = 0u; k < chunk.z; k++) {
    if (verdict[k] == kCompute) {
      let r = rasterBase + rasterBase0 + localSlot[k];
      if (r >= frame.maxRasterSlots) {
        atomicAdd(&counts.dropped, 1u);
        continue;
      }
      rasterSlots[r] = vec2u(chunk.x, chunk.y + k);
    } else if (verdict[k] == kHardware) {
      let slot = slotBase + slotBase0 + localSlot[k];
      let first = triangleBase + triangleBase0 + localTriangle[k];
      if (slot >= frame.maxSlots || first + triangles[k] > frame.maxTriangles) {
        atomicAdd(&counts.dropped, 1u);
        continue;
      }
      slots[slot] = vec4u(chunk.x, chunk.y + k, first, 0u);
    }
  }
}

@compute @workgroup_size(1)
fn finalize() {
  let n = min(atomicLoad(&counts.slots), frame.maxSlots);
  let triangles = min(atomicLoad(&counts.triangles), frame.maxTriangles);
  indirect.emit = grid(n);
  indirect.indexCount = 3u * triangles;
  indirect.instanceCount = select(0u, 1u, triangles > 0u);
  indirect.firstIndex = 0u;
  indirect.baseVertex = 0;
  indirect.firstInstance = 0u;
  let raster = min(atomicLoad(&counts.rasterSlots), frame.maxRasterSlots);
  indirect.raster = grid(raster);
  indirect.resolveVertexCount = 6u;
  indirect.resolveInstanceCount = select(0u, 1u, raster > 0u);
  indirect.resolveFirstVertex = 0u;
  indirect.resolveFirstInstance = 0u;
  atomicAdd(&counts.submitted, triangles);
}

// One workgroup per slot: its cluster's triangles as indices slot << 8 | corner. A run that
// passes maxTriangles is cut there (the clusters it drops were counted).
@compute @workgroup_size(64)
fn emit_pass(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) groups: vec3u,
             @builtin(local_invocation_index) lane: u32) {
  let s = linear_group(wg, groups);
  let slot = slots[s];
  let c = clusters[slot.y];
  for (var t = lane; t < c.triangleCount; t += kGroup) {
    let triangle = slot.z + t;
    if (triangle >= frame.maxTriangles) {
      return;
    }
    let packed = words[c.triangleOffset + t];
    let high = s << 8u;
    indices[3u * triangle] = high | (packed & 0xffu);
    indices[3u * triangle + 1u] = high | ((packed >> 8u) & 0xffu);
    indices[3u * triangle + 2u] = high | ((packed >> 16u) & 0xffu);
  }
}
