// SPDX-License-Identifier: MIT
// The frustum test the culling passes share (gpu_cull.wgsl: objects; cluster_culling.wgsl:
// clusters). Pulled in with a `// @include frustum.wgsl` line.

// Row r of `m` (a column-major mat4x4f).
fn matrix_row(m: mat4x4f, r: u32) -> vec4f {
  return vec4f(m[0][r], m[1][r], m[2][r], m[3][r]);
}

// Whether the world-space sphere (center, radius) is at least partly inside the six planes of
// the view-projection `m` (WebGPU clip space: -w <= x, y <= w and 0 <= z <= w).
fn sphere_in_frustum(m: mat4x4f, center: vec3f, radius: f32) -> bool {
  let r0 = matrix_row(m, 0u);
  let r1 = matrix_row(m, 1u);
  let r2 = matrix_row(m, 2u);
  let r3 = matrix_row(m, 3u);
  let planes = array<vec4f, 6>(r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2);
  for (var p = 0u; p < 6u; p++) {
    let plane = planes[p];
    if (dot(plane.xyz, center) + plane.w < -radius * length(plane.xyz)) {
      return false;
    }
  }
  return true;
}
