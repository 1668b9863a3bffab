// SPDX-License-Identifier: MIT
// Indirect draws built on the GPU (bindery/gpu_driven/indirect_draws.hpp). A bin is a (pipeline,
// mesh) pair: bin = pipeline * binStride + mesh. A producer (the culling passes, gpu_cull.wgsl)
// appends each visible object to its bin: it takes a slot with atomicAdd on the bin's count and
// writes the entry (object, slot). Then, per phase:
//   scan     one workgroup: exclusive prefix sums over the bins of the instance counts (each
//            bin's first instance) and of the non-empty bins (each bin's compacted draw index);
//            the scatter dispatch's size from the entry count
//   args     one invocation per bin: the bin's DrawIndexedIndirect (WebGPU §17.2.3) in `args`
//            at [bin] (every bin, empty ones with instanceCount 0: fixed-count paths) and, for a
//            non-empty bin, at [bins + pipeline * binStride + draw index] (compacted per
//            pipeline, for multiDrawIndexedIndirectCount); each pipeline's draw count
//   scatter  one invocation per entry: remap[bin's first instance + slot] = object
// The vertex stage reads objects[remap[instance_index]] (instance_index counts from the draw's
// firstInstance: the "indirect-first-instance" feature).
// @include object_record.wgsl
// @include mesh_record.wgsl

struct DrawParams {
  bins: u32,       // pipelines * binStride
  binStride: u32,  // mesh ids (the mesh pool's id capacity)
  pipelines: u32,
  pad: u32,
};

// GPUDrawIndexedIndirect: five 32-bit values, 20 bytes.
struct DrawIndexedIndirect {
  indexCount: u32,
  instanceCount: u32,
  firstIndex: u32,
  baseVertex: i32,
  firstInstance: u32,
};

// Per bin: instances appended this phase, its first instance, its compacted draw index. One
// extra element past the last bin holds the totals' draw index (the number of non-empty bins).
struct Bin {
  count: u32,
  first: u32,
  draw: u32,
  pad: u32,
};

// @include draw_counters.wgsl

const kScanThreads = 256u;
const kGroup = 64u;
const kMaxGroupsX = 65535u;

@group(0) @binding(0) var<uniform> params: DrawParams;
@group(0) @binding(1) var<storage, read> objects: array<ObjectRecord>;
@group(0) @binding(2) var<storage, read> meshes: array<MeshRecord>;
@group(0) @binding(3) var<storage, read_write> bins: array<Bin>;
@group(0) @binding(4) var<storage, read_write> args: array<DrawIndexedIndirect>;
@group(0) @binding(5) var<storage, read> entries: array<vec2u>;
@group(0) @binding(6) var<storage, read_write> remap: array<u32>;
@group(0) @binding(7) var<storage, read_write> counters: DrawCounters;
// Written by `scan` only, in a group of its own: a buffer cannot be read-write storage and
// INDIRECT in one dispatch (WebGPU usage scopes), and `scatter` is dispatched from it.
@group(1) @binding(0) var<storage, read_write> scatterDispatch: DispatchArgs;

fn linear(id: vec3u, groups: vec3u) -> u32 {
  return id.x + id.y * groups.x * kGroup;
}

// Empties every bin and the entry count: the start of a phase.
@compute @workgroup_size(64)
fn reset(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let b = linear(id, groups);
  if (b == 0u) {
    atomicStore(&counters.entries, 0u);
  }
  if (b <= params.bins) {
    bins[b].count = 0u;
  }
}

var<workgroup> instanceSums: array<u32, kScanThreads>;
var<workgroup> drawSums: array<u32, kScanThreads>;

// Exclusive prefix sums over the bins, by one workgroup: each invocation sums a contiguous run
// of bins, the 256 run totals are scanned in workgroup memory (Hillis-Steele), then each
// invocation writes its run's prefixes.
@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_index) t: u32) {
  let n = params.bins;
  let per = (n + kScanThreads - 1u) / kScanThreads;
  let begin = min(t * per, n);
  let end = min(begin + per, n);
  var instances = 0u;
  var draws = 0u;
  for (var b = begin; b < end; b++) {
    let c = bins[b].count;
    instances += c;
    draws += select(0u, 1u, c > 0u);
  }
  instanceSums[t] = instances;
  drawSums[t] = draws;
  workgroupBarrier();
  for (var offset = 1u; offset < kScanThreads; offset *= 2u) {
    var a = 0u;
    var d = 0u;
    if (t >= offset) {
      a = instanceSums[t - offset];
      d = drawSums[t - offset];
    }
    workgroupBarrier();
    instanceSums[t] += a;
    drawSums[t] += d;
    workgroupBarrier();
  }
  var first = instanceSums[t] - instances;
  var draw = drawSums[t] - draws;
  for (var b = begin; b < end; b++) {
    let c = bins[b].count;
    bins[b].first = first;
    bins[b].draw = draw;
    first += c;
    draw += select(0u, 1u, c > 0u);
  }
  if (t == kScanThreads - 1u) {
    bins[n].draw = drawSums[t];
    bins[n].first = instanceSums[t];
    atomicAdd(&counters.subDraws, drawSums[t]);
    let groups = (atomicLoad(&counters.entries) + kGroup - 1u) / kGroup;
    scatterDispatch.x = min(groups, kMaxGroupsX);
    scatterDispatch.y = (groups + kMaxGroupsX - 1u) / kMaxGroupsX;
    scatterDispatch.z = 1u;
  }
}

// Every bin's indirect arguments, the compacted ones, and each pipeline's draw count.
@compute @workgroup_size(64)
fn write_args(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let b = linear(id, groups);
  if (b >= params.bins) {
    return;
  }
  let pipeline = b / params.binStride;
  let segment = pipeline * params.binStride;
  let mesh = meshes[b - segment];
  let bin = bins[b];
  let a = DrawIndexedIndirect(mesh.indexCount, bin.count, mesh.firstIndex, mesh.baseVertex,
                              bin.first);
  args[b] = a;
  if (bin.count > 0u) {
    args[params.bins + segment + bin.draw - bins[segment].draw] = a;
  }
  if (b == segment) {
    let next = min(segment + params.binStride, params.bins);
    counters.drawCounts[pipeline] = bins[next].draw - bins[segment].draw;
  }
}

// Each appended object into its bin's window of `remap`.
@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = linear(id, groups);
  if (e >= atomicLoad(&counters.entries)) {
    return;
  }
  let entry = entries[e];
  let o = objects[entry.x];
  let b = object_pipeline(o) * params.binStride + o.mesh;
  remap[bins[b].first + entry.y] = entry.x;
}
