// layout.md L13 (a): 8-byte struct members at 8 and 16 in uniform. verdict: invalid
struct H { hi: f32, lo: f32 }
struct A { p: H, q: H, r: H }
@group(0) @binding(0) var<uniform> a: A;
