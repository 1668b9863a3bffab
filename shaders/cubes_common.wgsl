// SPDX-License-Identifier: MIT
// What every cube-scene shader shares (seed 003's point light + specular shading): the vertex
// layout, the inter-stage values, the uniform structs of the frequency-organised strategies, and
// the two functions that do the maths, so that every strategy renders the same image.
// Strategy shaders pull this file in with a `// @include cubes_common.wgsl` line, expanded when
// the shaders are embedded (cmake/EmbedShaders.cmake) and by `bindery layout`.
struct GlobalUniforms {
  viewProjection: mat4x4f,
  lightWorldPosition: vec3f,
  viewWorldPosition: vec3f,
};

// alphaCutoff encodes the glTF alphaMode: 0 = OPAQUE (alpha >= 0 always passes), > 0 = MASK
// (fragments with alpha below it are discarded), < 0 = BLEND approximated by screen-door
// transparency (see alpha_test). Packing the mode into the cutoff keeps the struct at 32 bytes.
struct MaterialUniforms {
  color: vec4f,
  shininess: f32,
  alphaCutoff: f32,
};

struct PerObjectUniforms {
  normalMatrix: mat3x3f,
  world: mat4x4f,
};

// color: glTF COLOR_0 (unorm8x4 in the vertex buffer; white for cubes), multiplies the base colour.
struct Vertex {
  @location(0) position: vec4f,
  @location(1) normal: vec3f,
  @location(2) texcoord: vec2f,
  @location(3) color: vec4f,
};

struct VSOutput {
  @builtin(position) position: vec4f,
  @location(0) normal: vec3f,
  @location(1) surfaceToLight: vec3f,
  @location(2) surfaceToView: vec3f,
  @location(3) texcoord: vec2f,
  @location(4) color: vec4f,
};

// The vertex stage of seed 003: clip position, normal, and the vectors to light and eye.
fn vertex_out(vert: Vertex, world: mat4x4f, normalMatrix: mat3x3f, glb: GlobalUniforms) -> VSOutput {
  var vsOut: VSOutput;
  // world first, then the view-projection (as gpu_driven_draw.wgsl): (viewProjection * world)
  // would fold a large placement into one float matrix and cancel it against the position,
  // losing the detail of a model far from the camera-independent origin.
  vsOut.position = glb.viewProjection * (world * vert.position);
  vsOut.normal = normalMatrix * vert.normal;
  let surfaceWorldPosition = (world * vert.position).xyz;
  vsOut.surfaceToLight = glb.lightWorldPosition - surfaceWorldPosition;
  vsOut.surfaceToView = glb.viewWorldPosition - surfaceWorldPosition;
  vsOut.texcoord = vert.texcoord;
  vsOut.color = vert.color;
  return vsOut;
}

// glTF alpha coverage with one pipeline (no blending state): discards the fragment when `alpha` is
// below the cutoff. BLEND (alphaCutoff < 0) uses the 4x4 ordered-dither (Bayer) threshold of the
// fragment's pixel, (m + 0.5) / 16 for m in 0..15, so alpha a keeps round(16 a) of every 4x4
// pixels: what lies behind shows through in proportion to 1 - a, independent of draw order.
fn alpha_test(alpha: f32, alphaCutoff: f32, fragCoord: vec2f) {
  var cutoff = alphaCutoff;
  if (alphaCutoff < 0.0) {
    var bayer = array<f32, 16>(0.0, 8.0, 2.0, 10.0, 12.0, 4.0, 14.0, 6.0,
                               3.0, 11.0, 1.0, 9.0, 15.0, 7.0, 13.0, 5.0);
    let p = vec2u(fragCoord) % vec2u(4u, 4u);
    cutoff = (bayer[p.y * 4u + p.x] + 0.5) / 16.0;
  }
  if (alpha < cutoff) {
    discard;
  }
}

// The fragment stage of seed 003: diffuse (colour x texel x vertex colour) times the light, plus
// specular; alpha decides coverage (alpha_test) and the written colour is opaque.
fn shade(vsOut: VSOutput, color: vec4f, shininess: f32, texel: vec4f, alphaCutoff: f32) -> vec4f {
  let normal = normalize(vsOut.normal);
  let surfaceToLightDirection = normalize(vsOut.surfaceToLight);
  let surfaceToViewDirection = normalize(vsOut.surfaceToView);
  let halfVector = normalize(surfaceToLightDirection + surfaceToViewDirection);
  let light = dot(normal, surfaceToLightDirection);
  var specular = dot(normal, halfVector);
  specular = select(0.0, pow(specular, shininess), specular > 0.0);
  let diffuse = color * texel * vsOut.color;
  alpha_test(diffuse.a, alphaCutoff, vsOut.position.xy);
  let shaded = diffuse.rgb * light + specular;
  return vec4f(shaded, 1.0);
}
