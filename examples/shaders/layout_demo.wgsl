// SPDX-License-Identifier: MIT
// A shader for `bindery layout`: the usual traps of WGSL memory layout, all valid in uniform.
// Try: bindery layout examples/shaders/layout_demo.wgsl --json
const MAX_LIGHTS = 4;

struct Light {
  position: vec3f,   // 12 bytes, align 16
  intensity: f32,    // fills the vec3's spare 4 bytes: offset 12
  color: vec4f,      // 16
}

struct Frame {
  viewProjection: mat4x4f,             // 0
  normalMatrix: mat3x3f,               // 64, 48 bytes (columns 16 apart)
  lights: array<Light, MAX_LIGHTS>,    // 112, stride 32
  lightCount: u32,                     // 240
}                                      // size 256 (align 16)

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<uniform> tint: vec3f;                     // minBindingSize 12, portable 16
@group(1) @binding(0) var<storage, read> instances: array<mat4x4f>; // runtime-sized: minBindingSize 64
@group(1) @binding(1) var albedo: texture_2d<f32>;
@group(1) @binding(2) var albedoSampler: sampler;

@vertex fn vs(@builtin(instance_index) i: u32) -> @builtin(position) vec4f {
  return frame.viewProjection * instances[i] * vec4f(0.0, 0.0, 0.0, 1.0);
}
