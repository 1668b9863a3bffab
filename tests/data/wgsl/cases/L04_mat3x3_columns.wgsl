// layout.md L04 (as: both), with mat2x3 and mat4x3. verdict: valid
struct M { n: mat3x3<f32>, s: f32 }
struct Others { a: mat2x3<f32>, b: mat4x3<f32> }
@group(0) @binding(0) var<uniform> u: M;
@group(0) @binding(1) var<storage> s: M;
@group(0) @binding(2) var<uniform> o: Others;
