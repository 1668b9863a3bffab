// Bind groups organised by frequency of change (seeds 001 and 003):
//   group 0 = frame    (GlobalUniforms: once per pass)
//   group 1 = material (texture, sampler, MaterialUniforms: once per material; draws sorted by it)
//   group 2 = object   (PerObjectUniforms: one bind group over one buffer, a dynamic offset per draw)
// Used by --strategy dynamic-offsets. The shading is the same as cubes_naive.wgsl, so both render
// the same image.
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

@group(0) @binding(0) var<uniform> glb: GlobalUniforms;
@group(1) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(1) @binding(1) var diffuseSampler: sampler;
@group(1) @binding(2) var<uniform> material: MaterialUniforms;
@group(2) @binding(0) var<uniform> obj: PerObjectUniforms;

@vertex fn vs(vert: Vertex) -> VSOutput {
  var vsOut: VSOutput;
  vsOut.position = glb.viewProjection * obj.world * vert.position;
  vsOut.normal = obj.normalMatrix * vert.normal;
  let surfaceWorldPosition = (obj.world * vert.position).xyz;
  vsOut.surfaceToLight = glb.lightWorldPosition - surfaceWorldPosition;
  vsOut.surfaceToView = glb.viewWorldPosition - surfaceWorldPosition;
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
  specular = select(0.0, pow(specular, material.shininess), specular > 0.0);
  let diffuse = material.color * textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  let color = diffuse.rgb * light + specular;
  return vec4f(color, diffuse.a);
}
