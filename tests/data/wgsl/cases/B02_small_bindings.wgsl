// layout.md B02 (a), (b), (c). verdict: valid
struct S1 { d: vec3<f32> }
struct S2 { seed: u32, ext: vec2<u32> }
@group(0) @binding(0) var<uniform> a: vec3<f32>;
@group(0) @binding(1) var<uniform> b: S1;
@group(0) @binding(2) var<uniform> c: S2;
