// SPDX-License-Identifier: MIT
// The records the cluster stage (cluster_culling.wgsl) and the compute rasterizer
// (cluster_raster.wgsl) share: the frame's terms and one cluster of the geometry
// (bindery/gpu_driven/cluster_culling.hpp, ClusterGeometry).

// The largest side in pixels of a cluster's screen bound that the compute rasterizer takes.
const kRasterMaxExtent = 64.0;

struct ClusterFrame {
  viewProjection: mat4x4f,
  eye: vec3f,
  pixelsPerUnit: f32,  // target height / 2 * projection[1][1]
  zNear: f32,
  tau: f32,            // pixels
  maxChunks: u32,
  maxSlots: u32,
  maxTriangles: u32,
  flags: u32,          // bits: 1 frustum, 2 occlusion, 4 history (prevViewProjection valid), 8 cone
  maxRasterSlots: u32,
  rasterMaxArea: f32,  // pixels of screen bound per triangle up to which compute rasterizes; 0: never
  viewport: vec2f,     // the target's size in pixels
  pyramidSize: vec2f,  // the depth pyramid's level 0 in texels
  pyramidLevels: u32,
  pad0: u32,
  // The view-projection of the frame whose depth the pyramid holds when phase 1 runs.
  prevViewProjection: mat4x4f,
};

struct ClusterRecord {
  sphere: vec4f,        // bounding sphere of its triangles (object space)
  selfSphere: vec4f,    // the group that made it
  parentSphere: vec4f,  // the group it was simplified in
  selfError: f32,
  parentError: f32,     // >= kRootError: a root
  vertexOffset: u32,    // into `words`: its vertices, mesh vertex numbers
  triangleOffset: u32,  // into `words`: its triangles, three 8-bit corners each
  triangleCount: u32,
  vertexBase: i32,      // the mesh's first vertex in the pool's vertex buffer
  vertexCount: u32,
  level: u32,           // the hierarchy level that made it (0 = full detail): debug colours
  coneApex: vec4f,      // the back-facing cone's apex (object space), w unused
  coneAxis: vec4f,      // its axis (unit), w its cutoff: 1 when it has none
};

