// layout.md L13 (b) and (c) in uniform. verdict: valid
struct H { hi: f32, lo: f32 }
struct B { p: vec2<f32>, q: vec2<f32>, r: vec2<f32> }
struct C { @align(16) p: H, @align(16) q: H, @align(16) r: H }
@group(0) @binding(0) var<uniform> b: B;
@group(0) @binding(1) var<uniform> c: C;
