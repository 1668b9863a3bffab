// SPDX-License-Identifier: MIT
// The compute rasterizer's coverage and depth of one triangle (bindery/gpu_driven/cluster_raster.hpp),
// by the rules of the hardware path's rasterizer, so that the two meet without seams:
//   - window coordinates as WebGPU maps clip space (§23.3.5 "Rasterization": x right, y down,
//     pixel (i, j) sampled at its centre (i + 0.5, j + 0.5)), snapped to 1/256 pixel (8 subpixel
//     bits, Vulkan's subPixelPrecisionBits on the devices bindery runs on);
//   - the top-left rule: a centre exactly on an edge is covered when the edge is a top edge or a
//     left edge, so that two triangles sharing an edge cover each pixel once;
//   - front faces counter-clockwise in clip space, back faces culled (the scene pipeline's
//     cullMode back, frontFace ccw);
//   - depth: clip z / w interpolated linearly in window space; centres outside [0, 1] are
//     clipped, as the hardware's depth clipping does.
// The integer edge functions are exact while a triangle's bounding box spans at most
// kRasterMaxExtent pixels (differences of 2^14 subpixels, products below 2^29); the cluster
// stage sends a cluster to compute only when its screen bound is that small
// (cluster_culling.wgsl's rasterize_in_compute). A CPU model of the same steps is
// tests/support/raster_model.hpp.
// The store: `fn raster_store(pixel: u32, key: u32, id: u32)`, key the depth as an
// order-reversed u32 (nearer is larger, 0 is empty), pixel y * width + x: the rung's, spliced by
// ClusterRaster in place of raster_store_default.wgsl's block.
// @include cluster_records.wgsl
// @include raster_store_default.wgsl

const kRasterSubpixels = 256.0;

// The window position of clip-space `clip` (w > 0) in pixels, and its depth z / w.
fn raster_window(clip: vec4f, viewport: vec2f) -> vec3f {
  let ndc = clip.xyz / clip.w;
  return vec3f((ndc.x * 0.5 + 0.5) * viewport.x, (0.5 - ndc.y * 0.5) * viewport.y, ndc.z);
}

// The depth key of z in [0, 1]: positive floats order as their bits, so the reversed bits order
// nearer first; never 0 (the empty pixel).
fn raster_depth_key(z: f32) -> u32 {
  return 0xffffffffu - bitcast<u32>(max(z, 0.0));
}

// The edge function of edge a -> b at p (subpixels): twice the signed area of (a, b, p).
fn raster_edge(a: vec2i, b: vec2i, p: vec2i) -> i32 {
  return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// 0 for a top or left edge of a triangle wound clockwise as seen (positive area, y down), -1
// otherwise:
// added to the edge function, a centre on the edge is covered only on top and left edges.
fn raster_edge_bias(a: vec2i, b: vec2i) -> i32 {
  let top = a.y == b.y && b.x > a.x;
  let left = b.y < a.y;
  return select(-1, 0, top || left);
}

// Rasterizes the triangle of window positions wa, wb, wc (raster_window) as `id` into a target of
// `size` pixels.
fn raster_triangle(wa: vec3f, wb: vec3f, wc: vec3f, size: vec2u, id: u32) {
  let lo = floor(min(min(wa.xy, wb.xy), wc.xy));
  let hi = ceil(max(max(wa.xy, wb.xy), wc.xy));
  if (any(hi - lo > vec2f(kRasterMaxExtent + 2.0))) {
    return;  // outside the exact range: the cluster stage sends no such cluster here
  }
  // Subpixel positions relative to the box's corner (small integers: exact products).
  let origin = lo;
  var a = vec2i(round((wa.xy - origin) * kRasterSubpixels));
  var b = vec2i(round((wb.xy - origin) * kRasterSubpixels));
  var c = vec2i(round((wc.xy - origin) * kRasterSubpixels));
  var za = wa.z;
  var zb = wb.z;
  var zc = wc.z;
  let area = raster_edge(a, b, c);
  // Counter-clockwise as seen (a front face) is a negative cross product in window coordinates
  // (y down); swap b and c to make it positive, the winding the top-left rule below is written
  // for (clockwise as seen). Back faces and degenerate triangles are not drawn.
  if (area >= 0) {
    return;
  }
  let t = b;
  b = c;
  c = t;
  let tz = zb;
  zb = zc;
  zc = tz;
  let twiceArea = f32(-area);
  let biasA = raster_edge_bias(b, c);  // edge opposite a
  let biasB = raster_edge_bias(c, a);
  let biasC = raster_edge_bias(a, b);
  let x0 = u32(max(lo.x, 0.0));
  let y0 = u32(max(lo.y, 0.0));
  let x1 = u32(clamp(hi.x, 0.0, f32(size.x)));
  let y1 = u32(clamp(hi.y, 0.0, f32(size.y)));
  let half = i32(kRasterSubpixels) / 2;
  let step = i32(kRasterSubpixels);
  for (var y = y0; y < y1; y++) {
    let py = (i32(y) - i32(origin.y)) * step + half;
    for (var x = x0; x < x1; x++) {
      let p = vec2i((i32(x) - i32(origin.x)) * step + half, py);
      let ea = raster_edge(b, c, p);
      let eb = raster_edge(c, a, p);
      let ec = raster_edge(a, b, p);
      if (ea + biasA < 0 || eb + biasB < 0 || ec + biasC < 0) {
        continue;
      }
      let z = (f32(ea) * za + f32(eb) * zb + f32(ec) * zc) / twiceArea;
      if (z < 0.0 || z > 1.0) {
        continue;
      }
      raster_store(y * size.x + x, raster_depth_key(z), id);
    }
  }
}
