// SPDX-License-Identifier: MIT
// The occlusion test against a depth pyramid (depth_pyramid.wgsl: each texel holds the farthest
// depth of the pixels it covers), shared by the object culling (gpu_cull.wgsl) and the cluster
// stage (cluster_culling.wgsl), each passing its own binding of the pyramid.

// The farthest depth under pixels [lo, hi] (inclusive) of `pyramid`, whose level 0 is `size`
// texels and which has `levels` levels, from the smallest level where that rectangle spans at
// most 4 x 4 texels. Level L's texel t covers the pixels whose index shifted right by L is t (the
// last texel of a row also covers an odd remainder).
fn pyramid_farthest_depth(pyramid: texture_2d<f32>, lo: vec2u, hi: vec2u, size0: vec2f,
                          levels: u32) -> f32 {
  var level = 0u;
  loop {
    if (level + 1u >= levels) {
      break;
    }
    let span = (hi >> vec2u(level)) - (lo >> vec2u(level));
    if (span.x <= 3u && span.y <= 3u) {
      break;
    }
    level += 1u;
  }
  // Level L is max(1, size >> L) texels wide and high (as created); computed rather than asked
  // with textureDimensions(pyramid, level), which lavapipe (Mesa 25.0) answered wrongly for a
  // level that differs between invocations.
  let size = max(vec2u(size0) >> vec2u(level), vec2u(1u));
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

// Whether the box [boxMin, boxMax] (the space `mvp` takes to clip space: WebGPU's, z in [0, 1])
// lies certainly behind `pyramid`'s depth under its screen rectangle (target `size` pixels).
// A box reaching the near plane or behind the eye is never hidden. The rectangle is widened by a
// pixel on each side for rasterization rounding, and hidden means strictly behind by more than
// depth24plus's resolution and the difference between this arithmetic and the vertex stage's,
// so that no depth tie is culled.
fn box_occluded(pyramid: texture_2d<f32>, mvp: mat4x4f, boxMin: vec3f, boxMax: vec3f, size: vec2f,
                levels: u32) -> bool {
  var ndcMin = vec3f(1e30);
  var ndcMax = vec3f(-1e30);
  for (var c = 0u; c < 8u; c++) {
    let corner = select(boxMin, boxMax,
                        vec3<bool>((c & 1u) != 0u, (c & 2u) != 0u, (c & 4u) != 0u));
    let clip = mvp * vec4f(corner, 1.0);
    if (clip.w <= 1e-5 || clip.z < 0.0) {
      return false;
    }
    let ndc = clip.xyz / clip.w;
    ndcMin = min(ndcMin, ndc);
    ndcMax = max(ndcMax, ndc);
  }
  // NDC to pixels (y down).
  let pxMin = vec2f((ndcMin.x * 0.5 + 0.5) * size.x, (0.5 - ndcMax.y * 0.5) * size.y) - 1.0;
  let pxMax = vec2f((ndcMax.x * 0.5 + 0.5) * size.x, (0.5 - ndcMin.y * 0.5) * size.y) + 1.0;
  let limit = size - 1.0;
  let lo = vec2u(clamp(floor(pxMin), vec2f(0.0), limit));
  let hi = vec2u(clamp(floor(pxMax), vec2f(0.0), limit));
  return ndcMin.z > pyramid_farthest_depth(pyramid, lo, hi, size, levels) + 1e-5;
}
