// SPDX-License-Identifier: MIT
// The compute rasterizer of the GPU-driven parts (bindery/gpu_driven/cluster_raster.hpp): one
// workgroup per cluster the cluster stage sent to compute (cluster_culling.wgsl's rasterSlots):
// its vertices pulled from the mesh pool and projected once into workgroup memory, then one
// invocation per triangle rasterizes it (raster_core.wgsl) into the visibility buffer, each
// covered pixel keeping the nearest (depth key, id); id = raster slot << 7 | triangle.
// The visibility store is the rung's (ClusterRaster splices it in place of
// raster_store_default.wgsl's block, which raster_core.wgsl includes):
//   int64 atomic max:  one atomic<u64> per pixel, atomicMax(key << 32 | id)
//   core (32-bit):     two passes over the same clusters: atomicMax of the key into word p, then
//                      where the key is the pixel's nearest, atomicMax of the id into word N + p
// @include object_record.wgsl
// @include raster_core.wgsl

@group(0) @binding(0) var<uniform> frame: ClusterFrame;
@group(0) @binding(1) var<storage, read> objects: array<ObjectRecord>;
@group(0) @binding(2) var<storage, read> clusters: array<ClusterRecord>;
@group(0) @binding(3) var<storage, read> words: array<u32>;
@group(0) @binding(4) var<storage, read> poolVertices: array<u32>;
@group(0) @binding(5) var<storage, read> rasterSlots: array<vec2u>;
// ClusterCounts as words: the phase's raster slots at word 3.
@group(0) @binding(6) var<storage, read> counts: array<u32>;

const kRasterGroup = 64u;
const kVertexWords = 9u;  // bindery::Vertex: position, normal, texcoord, unorm8x4 colour

var<workgroup> windowPositions: array<vec3f, 256>;

@compute @workgroup_size(64)
fn raster_pass(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) groups: vec3u,
               @builtin(local_invocation_index) lane: u32) {
  let s = wg.x + wg.y * groups.x;
  let inRange = s < min(counts[3], frame.maxRasterSlots);
  var c: ClusterRecord;
  if (inRange) {
    let slot = rasterSlots[s];
    let o = objects[slot.x];
    c = clusters[slot.y];
    for (var v = lane; v < c.vertexCount; v += kRasterGroup) {
      let at = u32(i32(words[c.vertexOffset + v]) + c.vertexBase) * kVertexWords;
      let p = vec3f(bitcast<f32>(poolVertices[at]), bitcast<f32>(poolVertices[at + 1u]),
                    bitcast<f32>(poolVertices[at + 2u]));
      // The hardware path's vertex stage computes the same product (gpu_driven_draw.wgsl).
      let clip = frame.viewProjection * vec4f(object_transform(o, p), 1.0);
      windowPositions[v] = raster_window(clip, frame.viewport);
    }
  }
  workgroupBarrier();
  if (!inRange) {
    return;
  }
  let size = vec2u(frame.viewport);
  for (var t = lane; t < c.triangleCount; t += kRasterGroup) {
    let packed = words[c.triangleOffset + t];
    raster_triangle(windowPositions[packed & 0xffu], windowPositions[(packed >> 8u) & 0xffu],
                    windowPositions[(packed >> 16u) & 0xffu], size, (s << 7u) | t);
  }
}
