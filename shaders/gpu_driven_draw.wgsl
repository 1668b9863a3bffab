// SPDX-License-Identifier: MIT
// The render pipeline of the GPU-driven parts (--strategy gpu-driven, and any application that
// draws through bindery/gpu_driven/): the indirect draws' firstInstance points each (pipeline,
// mesh) bin at its window of `remap`, which the culling passes filled with the ids of the bin's
// visible objects; the vertex stage reads the object's record (world matrix rows, material) from
// the object table, the fragment stage the material from the material table, whose textures are
// grouped by size into 2D arrays. One bind group per frame for the objects, one for the
// materials: draws of any mesh and material need no bind group change.
// @include cubes_common.wgsl
// @include object_record.wgsl

struct DrawFrame {
  viewProjection: mat4x4f,
  lightWorldPosition: vec3f,
  debugColors: u32,  // the cluster path's colouring: 0 shaded, 1 clusters, 2 levels
  viewWorldPosition: vec3f,
  pad1: f32,
};

@group(0) @binding(0) var<uniform> frame: DrawFrame;
@group(0) @binding(1) var<storage, read> objects: array<ObjectRecord>;
@group(0) @binding(2) var<storage, read> remap: array<u32>;

struct DrawVSOutput {
  @builtin(position) position: vec4f,
  @location(0) normal: vec3f,
  @location(1) surfaceToLight: vec3f,
  @location(2) surfaceToView: vec3f,
  @location(3) texcoord: vec2f,
  @location(4) @interpolate(flat) material: u32,
  @location(5) color: vec4f,
  @location(6) @interpolate(flat) debugColor: vec4f,  // the cluster path's debug colour
};

@vertex fn vs(vert: Vertex, @builtin(instance_index) instance: u32) -> DrawVSOutput {
  return draw_vertex(vert, objects[remap[instance]]);
}

// The cluster path (bindery/gpu_driven/cluster_culling.hpp): one indexed draw of every visible
// cluster, each index slot << 8 | corner (cluster_culling.wgsl's emit_pass). The slot gives the
// instance and the cluster, the corner the cluster's vertex, which is pulled from the mesh pool's
// vertex buffer (bindery::Vertex: 9 words: position, normal, texcoord, unorm8x4 colour).
// @include cluster_draw_default.wgsl

@vertex fn vs_clusters(@builtin(vertex_index) index: u32) -> DrawVSOutput {
  let cv = cluster_vertex(index);
  var out = draw_vertex(pool_vertex(cv.vertex), objects[cv.object]);
  if (frame.debugColors != 0u) {
    let cluster = clusterSlots[index >> 8u].y;
    out.debugColor = debug_color(cv.object, cluster, clusterRecords[cluster].level);
  }
  return out;
}

// The debug colours of the cluster path (RenderOptions::debug_colors), unlit so that a pixel's
// colour names what drew it. "levels": the legend below (bindery/render/renderer.hpp's
// kDebugLevelColors), level l taking entry min(l, 15); level 0 is full detail. "clusters": a
// colour hashed from (object, cluster), each channel in 96..255 (never the background's grey).
const kLevelColors = array<vec3u, 16>(
    vec3u(230u, 25u, 75u), vec3u(60u, 180u, 75u), vec3u(255u, 225u, 25u), vec3u(0u, 130u, 200u),
    vec3u(245u, 130u, 48u), vec3u(145u, 30u, 180u), vec3u(70u, 240u, 240u),
    vec3u(240u, 50u, 230u), vec3u(210u, 245u, 60u), vec3u(250u, 190u, 212u),
    vec3u(0u, 128u, 128u), vec3u(220u, 190u, 255u), vec3u(170u, 110u, 40u), vec3u(128u, 0u, 0u),
    vec3u(0u, 0u, 128u), vec3u(255u, 255u, 255u));

// A 32-bit integer hash (PCG's output permutation).
fn debug_hash(x: u32) -> u32 {
  let state = x * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

fn debug_color(object: u32, cluster: u32, level: u32) -> vec4f {
  if (frame.debugColors == 2u) {
    var legend = kLevelColors;
    return vec4f(vec3f(legend[min(level, 15u)]) / 255.0, 1.0);
  }
  let h = debug_hash(cluster ^ debug_hash(object));
  let rgb = vec3u(h & 0xffu, (h >> 8u) & 0xffu, (h >> 16u) & 0xffu);
  return vec4f(vec3f(96u + rgb * 159u / 255u) / 255.0, 1.0);
}

// Vertex `vertex` of the mesh pool's vertex buffer.
fn pool_vertex(vertex: u32) -> Vertex {
  let v = vertex * 9u;
  var vert: Vertex;
  vert.position = vec4f(bitcast<f32>(poolVertices[v]), bitcast<f32>(poolVertices[v + 1u]),
                        bitcast<f32>(poolVertices[v + 2u]), 1.0);
  vert.normal = vec3f(bitcast<f32>(poolVertices[v + 3u]), bitcast<f32>(poolVertices[v + 4u]),
                      bitcast<f32>(poolVertices[v + 5u]));
  vert.texcoord = vec2f(bitcast<f32>(poolVertices[v + 6u]), bitcast<f32>(poolVertices[v + 7u]));
  vert.color = unpack4x8unorm(poolVertices[v + 8u]);
  return vert;
}

// The vertex stage of both paths for vertex `vert` of object `o`.
fn draw_vertex(vert: Vertex, o: ObjectRecord) -> DrawVSOutput {
  let world = object_transform(o, vert.position.xyz);
  // The normal matrix inverse(transpose(M)) is cofactor(M) / det(M) for the 3x3 part M: the
  // cofactor matrix's columns are the cross products of M's columns, and the fragment stage's
  // normalize() leaves only det's sign (a mirrored object). M is divided by its largest entry
  // first, so that the products stay where normalize() can square them (a node scaled by 1e10).
  let w = o.world_rows;
  let largest = max(max(abs(w[0].xyz), abs(w[1].xyz)), abs(w[2].xyz));
  let k = max(max(largest.x, largest.y), largest.z);
  let unit = select(1.0 / k, 1.0, k == 0.0);
  let c0 = vec3f(w[0].x, w[1].x, w[2].x) * unit;
  let c1 = vec3f(w[0].y, w[1].y, w[2].y) * unit;
  let c2 = vec3f(w[0].z, w[1].z, w[2].z) * unit;
  let x01 = cross(c0, c1);
  let x12 = cross(c1, c2);
  let x20 = cross(c2, c0);
  let det = dot(c0, x12);
  let n = vert.normal;
  var out: DrawVSOutput;
  out.position = frame.viewProjection * vec4f(world, 1.0);
  out.normal = select(1.0, -1.0, det < 0.0) * (x12 * n.x + x20 * n.y + x01 * n.z);
  out.surfaceToLight = frame.lightWorldPosition - world;
  out.surfaceToView = frame.viewWorldPosition - world;
  out.texcoord = vert.texcoord;
  out.material = o.material;
  out.color = vert.color;
  return out;
}

@fragment fn fs(in: DrawVSOutput) -> @location(0) vec4f {
  // Derivatives in uniform control flow: material_texel samples with textureSampleGrad, since
  // which array and sampler it reads differs between the fragments of one draw.
  let shaded = draw_fragment(in, dpdx(in.texcoord), dpdy(in.texcoord));
  // The debug colours keep the material's alpha test (draw_fragment discards), not its colour.
  return select(shaded, in.debugColor, frame.debugColors != 0u);
}

// The fragment stage of every path for the interpolated `in` and its texture coordinates'
// derivatives along x and y.
fn draw_fragment(in: DrawVSOutput, ddx: vec2f, ddy: vec2f) -> vec4f {
  let material = materialRecords[in.material];
  return shade_fragment(in, material, material_texel(material, in.texcoord, ddx, ddy));
}

// The shading of `in` with `material` and its texel.
fn shade_fragment(in: DrawVSOutput, material: MaterialRecord, texel: vec4f) -> vec4f {
  var v: VSOutput;
  v.position = in.position;
  v.normal = in.normal;
  v.surfaceToLight = in.surfaceToLight;
  v.surfaceToView = in.surfaceToView;
  v.texcoord = in.texcoord;
  v.color = in.color;
  return shade(v, material.color, material.shininess, texel, material.alphaCutoff);
}
// @include material_table_default.wgsl

// The resolve of the compute rasterizer (bindery/gpu_driven/cluster_raster.hpp): the rectangle
// of the phase's compute clusters after the phase's hardware draw, with the depth test. Each pixel the compute
// rasterizer covered is shaded as the hardware path shades it: the triangle's three vertices
// through draw_vertex(), interpolated with perspective-correct barycentrics at the pixel centre
// (and across its 2x2 quad for the texture derivatives), and written with the compute
// depth, so that the depth test keeps the nearer of the two rasterizers and the next phase's
// pyramid sees both.
// @include cluster_resolve_default.wgsl

@vertex fn vs_resolve(@builtin(vertex_index) index: u32) -> @builtin(position) vec4f {
  return raster_bounds_corner(index);
}

struct ResolveOutput {
  @location(0) color: vec4f,
  @builtin(frag_depth) depth: f32,
};

// Perspective-correct barycentrics of clip-space triangle (a, b, c) at NDC point `ndc`: the
// weights w with sum 1 whose combination of a, b, c projects to ndc (2D homogeneous
// rasterization: the inverse of the matrix of the vertices' x, y, w, up to a factor).
fn clip_barycentrics(a: vec4f, b: vec4f, c: vec4f, ndc: vec2f) -> vec3f {
  let q = vec3f(ndc, 1.0);
  let pa = a.xyw;
  let pb = b.xyw;
  let pc = c.xyw;
  let w = vec3f(dot(cross(pb, pc), q), dot(cross(pc, pa), q), dot(cross(pa, pb), q));
  return w / (w.x + w.y + w.z);
}

fn mix3f(a: vec3f, b: vec3f, c: vec3f, w: vec3f) -> vec3f {
  return a * w.x + b * w.y + c * w.z;
}

fn mix2f(a: vec2f, b: vec2f, c: vec2f, w: vec3f) -> vec2f {
  return a * w.x + b * w.y + c * w.z;
}

@fragment fn fs_resolve(@builtin(position) position: vec4f) -> ResolveOutput {
  let s = raster_sample(vec2u(position.xy));
  if (!s.covered) {
    discard;
  }
  let o = objects[s.object];
  let c = clusterRecords[s.cluster];
  let packed = clusterWords[c.triangleOffset + s.triangle];
  let corner = vec3u(packed & 0xffu, (packed >> 8u) & 0xffu, (packed >> 16u) & 0xffu);
  let va = draw_vertex(pool_vertex(u32(i32(clusterWords[c.vertexOffset + corner.x]) + c.vertexBase)), o);
  let vb = draw_vertex(pool_vertex(u32(i32(clusterWords[c.vertexOffset + corner.y]) + c.vertexBase)), o);
  let vc = draw_vertex(pool_vertex(u32(i32(clusterWords[c.vertexOffset + corner.z]) + c.vertexBase)), o);
  let size = vec2f(rasterTarget.size);
  let ndc = vec2f(position.x / size.x * 2.0 - 1.0, 1.0 - position.y / size.y * 2.0);
  let w = clip_barycentrics(va.position, vb.position, vc.position, ndc);
  // The texture derivatives as a fragment quad takes them (fine derivatives: the difference
  // across the pixel's 2x2 quad, in its row and its column), on this triangle's plane.
  let quad = vec2f(floor(position.xy * 0.5) * 2.0) + 0.5;
  let pair = vec2f(quad.x / size.x * 2.0 - 1.0, 1.0 - quad.y / size.y * 2.0);
  let rowX0 = vec2f(pair.x, pair.y);
  let columnY0 = vec2f(pair.x, pair.y);
  let step = vec2f(2.0 / size.x, -2.0 / size.y);
  let wx0 = clip_barycentrics(va.position, vb.position, vc.position, rowX0);
  let wx1 = clip_barycentrics(va.position, vb.position, vc.position, rowX0 + vec2f(step.x, 0.0));
  let wy0 = clip_barycentrics(va.position, vb.position, vc.position, columnY0);
  let wy1 = clip_barycentrics(va.position, vb.position, vc.position, columnY0 + vec2f(0.0, step.y));
  var in: DrawVSOutput;
  in.position = vec4f(position.xy, s.depth, 1.0);
  in.normal = mix3f(va.normal, vb.normal, vc.normal, w);
  in.surfaceToLight = mix3f(va.surfaceToLight, vb.surfaceToLight, vc.surfaceToLight, w);
  in.surfaceToView = mix3f(va.surfaceToView, vb.surfaceToView, vc.surfaceToView, w);
  in.texcoord = mix2f(va.texcoord, vb.texcoord, vc.texcoord, w);
  in.material = o.material;
  in.color = va.color * w.x + vb.color * w.y + vc.color * w.z;
  let ddx = mix2f(va.texcoord, vb.texcoord, vc.texcoord, wx1) -
            mix2f(va.texcoord, vb.texcoord, vc.texcoord, wx0);
  let ddy = mix2f(va.texcoord, vb.texcoord, vc.texcoord, wy1) -
            mix2f(va.texcoord, vb.texcoord, vc.texcoord, wy0);
  var out: ResolveOutput;
  // The derivatives are this triangle's, not the quad's (whose pixels may show other
  // triangles): always textureSampleGrad.
  let material = materialRecords[in.material];
  out.color = shade_fragment(in, material, material_texel_grad(material, in.texcoord, ddx, ddy));
  if (frame.debugColors != 0u) {
    out.color = debug_color(s.object, s.cluster, c.level);
  }
  out.depth = s.depth;
  return out;
}
