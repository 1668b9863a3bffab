// GPU-driven culling + indirect draws: a compute pass (shaders/cull.wgsl) tests every object's
// bounding sphere against the view frustum and appends the visible ones to `visible`, counting
// them into the instanceCount of their batch's indirect draw arguments; the render pass then
// issues one drawIndexedIndirect per (material, mesh) batch. Used by --strategy gpu-culling.
//   group 0 = frame    (GlobalUniforms)
//   group 1 = objects  (array<PerObjectUniforms> by object index + the visible list, bound once)
//   group 2 = material (texture, sampler, MaterialUniforms)
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
@group(1) @binding(0) var<storage, read> objects: array<PerObjectUniforms>;
@group(1) @binding(1) var<storage, read> visible: array<u32>;
@group(2) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(2) @binding(1) var diffuseSampler: sampler;
@group(2) @binding(2) var<uniform> material: MaterialUniforms;

@vertex fn vs(vert: Vertex, @builtin(instance_index) instance: u32) -> VSOutput {
  let obj = objects[visible[instance]];
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
