// SPDX-License-Identifier: MIT
// The depth pyramid (bindery::gpu_driven::DepthPyramid) of the occlusion test (gpu_cull.wgsl): level
// 0 is the depth buffer as r32float, and each texel of level L+1 is the farthest (max) depth of
// the texels of level L it covers: 2 x 2, or 3 along a row or column whose last texel absorbs an
// odd remainder, so that every pixel is covered at every level.

@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var level0: texture_storage_2d<r32float, write>;

@compute @workgroup_size(8, 8)
fn from_depth(@builtin(global_invocation_id) id: vec3u) {
  let size = textureDimensions(depth);
  if (id.x >= size.x || id.y >= size.y) {
    return;
  }
  textureStore(level0, id.xy, vec4f(textureLoad(depth, id.xy, 0), 0.0, 0.0, 1.0));
}

@group(0) @binding(2) var source: texture_2d<f32>;
@group(0) @binding(3) var destination: texture_storage_2d<r32float, write>;

@compute @workgroup_size(8, 8)
fn reduce(@builtin(global_invocation_id) id: vec3u) {
  let dst = textureDimensions(destination);
  if (id.x >= dst.x || id.y >= dst.y) {
    return;
  }
  let src = textureDimensions(source);
  let first = min(id.xy * 2u, src - 1u);
  let last = select(min(id.xy * 2u + 1u, src - 1u), src - 1u, id.xy == dst - 1u);
  var farthest = 0.0;
  for (var y = first.y; y <= last.y; y++) {
    for (var x = first.x; x <= last.x; x++) {
      farthest = max(farthest, textureLoad(source, vec2u(x, y), 0).r);
    }
  }
  textureStore(destination, id.xy, vec4f(farthest, 0.0, 0.0, 1.0));
}
