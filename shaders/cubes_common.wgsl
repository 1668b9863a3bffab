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

struct MaterialUniforms {
  color: vec4f,
  shininess: f32,
};

struct PerObjectUniforms {
  normalMatrix: mat3x3f,
  world: mat4x4f,
};

struct Vertex {
  @location(0) position: vec4f,
  @location(1) normal: vec3f,
  @location(2) texcoord: vec2f,
};

struct VSOutput {
  @builtin(position) position: vec4f,
  @location(0) normal: vec3f,
  @location(1) surfaceToLight: vec3f,
  @location(2) surfaceToView: vec3f,
  @location(3) texcoord: vec2f,
};

// The vertex stage of seed 003: clip position, normal, and the vectors to light and eye.
fn vertex_out(vert: Vertex, world: mat4x4f, normalMatrix: mat3x3f, glb: GlobalUniforms) -> VSOutput {
  var vsOut: VSOutput;
  vsOut.position = glb.viewProjection * world * vert.position;
  vsOut.normal = normalMatrix * vert.normal;
  let surfaceWorldPosition = (world * vert.position).xyz;
  vsOut.surfaceToLight = glb.lightWorldPosition - surfaceWorldPosition;
  vsOut.surfaceToView = glb.viewWorldPosition - surfaceWorldPosition;
  vsOut.texcoord = vert.texcoord;
  return vsOut;
}

// The fragment stage of seed 003: diffuse (colour x texel) times the light, plus specular.
fn shade(vsOut: VSOutput, color: vec4f, shininess: f32, texel: vec4f) -> vec4f {
  let normal = normalize(vsOut.normal);
  let surfaceToLightDirection = normalize(vsOut.surfaceToLight);
  let surfaceToViewDirection = normalize(vsOut.surfaceToView);
  let halfVector = normalize(surfaceToLightDirection + surfaceToViewDirection);
  let light = dot(normal, surfaceToLightDirection);
  var specular = dot(normal, halfVector);
  specular = select(0.0, pow(specular, shininess), specular > 0.0);
  let diffuse = color * texel;
  let shaded = diffuse.rgb * light + specular;
  return vec4f(shaded, diffuse.a);
}
