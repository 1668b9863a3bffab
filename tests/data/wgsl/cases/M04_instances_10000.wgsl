// layout.md M04 with N = 10000: SizeOf(I) = 64 * N (the binding-size limit is checked at
// createBindGroup, not in the shader). verdict: valid
struct I { m: array<mat4x4<f32>, 10000> }
@group(0) @binding(0) var<uniform> inst: I;
