// layout.md L06: X in uniform has array stride 4. verdict: invalid
struct X { a: array<u32, 2>, b: u32 }
@group(0) @binding(0) var<uniform> x: X;
