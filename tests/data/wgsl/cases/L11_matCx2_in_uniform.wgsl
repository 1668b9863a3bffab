// layout.md L11 (as: uniform). verdict: valid
struct Q { t: mat3x2<f32>, x: u32, y: u32 }
struct U { q: array<Q, 64> }
struct V { m: array<mat2x2<f32>, 3> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<uniform> v: V;
