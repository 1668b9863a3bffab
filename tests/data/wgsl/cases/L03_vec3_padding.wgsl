// layout.md L03 (as: uniform). verdict: valid
struct P1 { k: f32, pad: vec3<f32> }
struct P2 { k: f32, p0: f32, p1: f32, p2: f32 }
@group(0) @binding(0) var<uniform> a: P1;
@group(0) @binding(1) var<uniform> b: P2;
