// The article's starting point (seed 003): every object has one uniform buffer holding all of its
// values and one bind group (texture, sampler, uniforms). Used by --strategy naive.
struct Uniforms {
  normalMatrix: mat3x3f,
  viewProjection: mat4x4f,
  world: mat4x4f,
  color: vec4f,
  lightWorldPosition: vec3f,
  viewWorldPosition: vec3f,
  shininess: f32,
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

@group(0) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(0) @binding(1) var diffuseSampler: sampler;
@group(0) @binding(2) var<uniform> uni: Uniforms;

@vertex fn vs(vert: Vertex) -> VSOutput {
  var vsOut: VSOutput;
  vsOut.position = uni.viewProjection * uni.world * vert.position;
  vsOut.normal = uni.normalMatrix * vert.normal;
  let surfaceWorldPosition = (uni.world * vert.position).xyz;
  vsOut.surfaceToLight = uni.lightWorldPosition - surfaceWorldPosition;
  vsOut.surfaceToView = uni.viewWorldPosition - surfaceWorldPosition;
  vsOut.texcoord = vert.texcoord;
  return vsOut;
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let normal = normalize(vsOut.normal);
  let surfaceToLightDirection = normalize(vsOut.surfaceToLight);
  let surfaceToViewDirection = normalize(vsOut.surfaceToView);
  let halfVector = normalize(surfaceToLightDirection + surfaceToViewDirection);
  let light = dot(normal, surfaceToLightDirection);
  var specular = dot(normal, halfVector);
  specular = select(0.0, pow(specular, uni.shininess), specular > 0.0);
  let diffuse = uni.color * textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  let color = diffuse.rgb * light + specular;
  return vec4f(color, diffuse.a);
}
