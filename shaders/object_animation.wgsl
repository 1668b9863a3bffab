// SPDX-License-Identifier: MIT
// The article's animation on the GPU (seed 003, "Calcular una matriz de mundo"), shared by the
// strategies that animate every object in a compute shader (gpu-driven: object_animate.wgsl;
// bundles-gpu: cubes_bundles_gpu.wgsl). The CPU uploads one ObjectInput per object once; each
// frame a compute invocation per object turns it into the world matrix for the frame's time.
// Pulled in with a `// @include object_animation.wgsl` line (cmake/EmbedShaders.cmake).

// One object of the article's scene: its animation parameters, the phases i, i * 3.721 and
// i * 9.721 reduced to [0, 2π) on the CPU, its material and its batch (its mesh: gpu-driven's
// indirect draw). C++ mirror: ObjectInputGpu (src/render/object_animation.hpp).
struct ObjectInput {
  axis: vec3f,
  speed: f32,
  radius: f32,
  rotationSpeed: f32,
  scale: f32,
  phase: f32,
  phaseZ1: f32,
  phaseZ2: f32,
  material: u32,
  batch: u32,
};

const kWorkgroupSize = 64u;
const kMaxWorkgroupsX = 65535u;  // WebGPU's default maxComputeWorkgroupsPerDimension

// The object index of an invocation of a 2D dispatch of 64-wide workgroups (rows of at most
// kMaxWorkgroupsX workgroups: animate_grid() in object_animation.hpp).
fn linear_index(id: vec3u, groups: vec3u) -> u32 {
  return id.x + id.y * groups.x * kWorkgroupSize;
}

// The article's world matrix (with the CPU's reduced phases): rotate(phase + t*speed, axis) *
// translate(0, 0, z1 + z2) * rotateX(t*rs + phase) * scale(s), as three rows of the affine
// matrix. The same steps as Scene::animate_range.
fn world_rows(o: ObjectInput, t: f32) -> array<vec4f, 3> {
  let angle = o.phase + t * o.speed;
  let c = cos(angle);
  let s = sin(angle);
  let a = o.axis;
  let k = (1.0 - c) * a;
  // Columns of the axis rotation (Rodrigues' formula, as glm::rotate builds it).
  let r0 = vec3f(c + k.x * a.x, k.x * a.y + s * a.z, k.x * a.z - s * a.y);
  let r1 = vec3f(k.y * a.x - s * a.z, c + k.y * a.y, k.y * a.z + s * a.x);
  let r2 = vec3f(k.z * a.x + s * a.y, k.z * a.y - s * a.x, c + k.z * a.z);
  let z = sin(o.phaseZ1 + t * o.speed) * o.radius + sin(o.phaseZ2 + t * 0.1) * o.radius;
  let ax = t * o.rotationSpeed + o.phase;
  let cx = cos(ax);
  let sx = sin(ax);
  let c0 = r0 * o.scale;
  let c1 = (cx * r1 + sx * r2) * o.scale;
  let c2 = (cx * r2 - sx * r1) * o.scale;
  let c3 = z * r2;
  return array<vec4f, 3>(vec4f(c0.x, c1.x, c2.x, c3.x), vec4f(c0.y, c1.y, c2.y, c3.y),
                         vec4f(c0.z, c1.z, c2.z, c3.z));
}
