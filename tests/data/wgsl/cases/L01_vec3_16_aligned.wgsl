// layout.md L01 (as: uniform). verdict: valid
struct A { p: vec3<f32>, s: f32 }
struct B { p: vec3<f32>, q: vec3<f32> }
struct C { p: vec3<f32>, s: f32, m: mat3x3<f32> }
@group(0) @binding(0) var<uniform> a: A;
@group(0) @binding(1) var<uniform> b: B;
@group(0) @binding(2) var<uniform> c: C;
