// relative of inputs.md G03b: every line break here is LF; a // comment ends at it
struct Tint {
  rgb: vec3<f32>, /* a block comment */ gain: f32,
  steps: u32,
}
@group(0) @binding(0) var<uniform> tint: Tint;
@group(0) @binding(1) var<uniform> steps: array<u32, 3>; // line 7: stride 4 in uniform
