// layout.md L02 (as: both). verdict: valid
struct R { o: vec3<f32>, d: vec3<f32>, acc: vec3<f32>, n: u32 }
@group(0) @binding(0) var<uniform> u: R;
@group(0) @binding(1) var<storage, read_write> s: R;
