// SPDX-License-Identifier: MIT
// Uniform-rule violations `bindery layout` reports (exit code 1); each line says the fix.
struct Pair { hi: f32, lo: f32 }          // align 4, size 8

struct Bad {
  weights: array<f32, 4>,   // stride 4: uniform needs 16 -> use array<vec4f, 1>
  a: Pair,                  // offset 16: fine
  b: Pair,                  // offset 24: not a multiple of 16, and only 8 bytes after a -> @align(16)
}

@group(0) @binding(0) var<uniform> bad: Bad;
