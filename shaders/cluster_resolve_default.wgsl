// SPDX-License-Identifier: MIT
// BEGIN cluster resolve
// The resolve's view of the compute rasterizer's output (bindery::gpu_driven::ClusterRaster's
// resolve_layout(), at group 3 here; ClusterRaster::resolve_wgsl(group) generates it for another
// group): the visibility buffer as u32 words, whichever rung wrote it, and the raster clusters.
struct RasterTarget {
  size: vec2u,      // pixels
  keyStride: u32,   // the key of pixel p is word p * keyStride + keyOffset
  keyOffset: u32,
  idStride: u32,    // its id word p * idStride + idOffset
  idOffset: u32,
  pad0: u32,
  pad1: u32,
};
@group(3) @binding(0) var<uniform> rasterTarget: RasterTarget;
@group(3) @binding(1) var<storage, read> rasterClusters: array<vec2u>;
@group(3) @binding(2) var<storage, read> visibilityWords: array<u32>;
// The cluster stage's counts as words: the phase's compute clusters' bound at words 9..12.
@group(3) @binding(3) var<storage, read> rasterCounts: array<u32>;

// Corner `index` (0..5) of the rectangle the phase's compute clusters cover, in clip space.
fn raster_bounds_corner(index: u32) -> vec4f {
  let lo = vec2f(f32(rasterCounts[9]), f32(rasterCounts[10]));
  let hi = vec2f(f32(rasterCounts[11]), f32(rasterCounts[12]));
  let corners = array<vec2f, 6>(vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0),
                                vec2f(0.0, 1.0), vec2f(1.0, 0.0), vec2f(1.0, 1.0));
  let p = mix(lo, hi, corners[index]);
  let size = vec2f(rasterTarget.size);
  return vec4f(p.x / size.x * 2.0 - 1.0, 1.0 - p.y / size.y * 2.0, 0.0, 1.0);
}

// What the compute rasterizer left at a pixel: covered (key != 0), the object, the cluster, the
// triangle in the cluster and the depth.
struct RasterSample {
  covered: bool,
  object: u32,
  cluster: u32,
  triangle: u32,
  depth: f32,
};

fn raster_sample(pixel: vec2u) -> RasterSample {
  let p = pixel.y * rasterTarget.size.x + pixel.x;
  let key = visibilityWords[p * rasterTarget.keyStride + rasterTarget.keyOffset];
  var s: RasterSample;
  s.covered = key != 0u;
  if (!s.covered) {
    return s;
  }
  let id = visibilityWords[p * rasterTarget.idStride + rasterTarget.idOffset];
  let slot = rasterClusters[id >> 7u];
  s.object = slot.x;
  s.cluster = slot.y;
  s.triangle = id & 0x7fu;
  s.depth = bitcast<f32>(0xffffffffu - key);
  return s;
}
// END cluster resolve
