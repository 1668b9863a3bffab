// SPDX-License-Identifier: MIT
// --strategy bundles-gpu: the draws recorded once into render bundles, the per-object data
// written each frame by a compute pass (the article's animation, object_animation.wgsl), so the
// CPU writes one BundlesFrame uniform per frame and nothing per object.
//   compute `animate`: objects[i] = PerObjectUniforms of ObjectInput i at frame.time
//   render  `vs`/`fs`: one drawIndexed per object, firstInstance = the object's index, which
//                      @builtin(instance_index) reads objects[] with (storage-instancing's
//                      vertex stage, one instance per draw)
// Bind groups:
//   compute group 0:   frame (uniform), inputs (read), animated (read_write: the same buffer the
//                      render pass reads as `objects`)
//   render group 0:    frame (uniform), objects (read), bound once per bundle
//   render group 1:    material (texture, sampler, MaterialUniforms), once per material
// @include cubes_common.wgsl
// @include object_animation.wgsl

// The frame's values: GlobalUniforms' three plus the animation time and the object count.
struct BundlesFrame {
  viewProjection: mat4x4f,
  lightWorldPosition: vec3f,
  time: f32,  // seconds
  viewWorldPosition: vec3f,
  objectCount: u32,
};

@group(0) @binding(0) var<uniform> frame: BundlesFrame;
@group(0) @binding(1) var<storage, read> objects: array<PerObjectUniforms>;
@group(0) @binding(2) var<storage, read> inputs: array<ObjectInput>;
@group(0) @binding(3) var<storage, read_write> animated: array<PerObjectUniforms>;
@group(1) @binding(0) var diffuseTexture: texture_2d<f32>;
@group(1) @binding(1) var diffuseSampler: sampler;
@group(1) @binding(2) var<uniform> material: MaterialUniforms;

// Object i's world matrix and its normal matrix. The world matrix is a rotation times the uniform
// scale s, so its inverse transpose is its upper 3x3 divided by s² (the shortcut
// Scene::animate_range takes: the same normals as the CPU-animated strategies).
@compute @workgroup_size(64)
fn animate(@builtin(global_invocation_id) id: vec3u,
           @builtin(num_workgroups) groups: vec3u) {
  let i = linear_index(id, groups);
  if (i >= frame.objectCount) {
    return;
  }
  let o = inputs[i];
  let w = world_rows(o, frame.time);
  let world = transpose(mat4x4f(w[0], w[1], w[2], vec4f(0.0, 0.0, 0.0, 1.0)));
  let inv = 1.0 / (o.scale * o.scale);
  animated[i] = PerObjectUniforms(mat3x3f(world[0].xyz * inv, world[1].xyz * inv,
                                          world[2].xyz * inv), world);
}

@vertex fn vs(vert: Vertex, @builtin(instance_index) instance: u32) -> VSOutput {
  let obj = objects[instance];
  let glb = GlobalUniforms(frame.viewProjection, frame.lightWorldPosition,
                           frame.viewWorldPosition);
  return vertex_out(vert, obj.world, obj.normalMatrix, glb);
}

@fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
  let texel = textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
  return shade(vsOut, material.color, material.shininess, texel, material.alphaCutoff);
}
