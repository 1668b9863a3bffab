// SPDX-License-Identifier: MIT
// One mesh of the GPU-driven mesh pool (bindery/gpu_driven/mesh_pool.hpp): its bounds in object
// space and the drawIndexed arguments of its range of the pool's buffers. A removed mesh has
// indexCount 0. C++: MeshPool writes it through the reflected layout of this struct.
struct MeshRecord {
  sphere: vec4f,   // bounding sphere: center xyz, radius w
  boxMin: vec4f,   // axis-aligned box (xyz)
  boxMax: vec4f,
  indexCount: u32,
  firstIndex: u32,
  baseVertex: i32,
  vertexCount: u32,
};
