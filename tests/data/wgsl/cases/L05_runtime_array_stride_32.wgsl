// layout.md L05 (as: storage, runtime-sized). verdict: valid
struct E { v: vec3<u32>, a: u32, b: u32 }
@group(0) @binding(0) var<storage, read> es: array<E>;
