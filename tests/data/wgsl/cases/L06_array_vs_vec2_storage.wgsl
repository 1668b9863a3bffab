// layout.md L06, the valid half: X and Y in storage, Y in uniform. verdict: valid
struct X { a: array<u32, 2>, b: u32 }
struct Y { a: vec2<u32>, b: u32 }
@group(0) @binding(0) var<storage> x: X;
@group(0) @binding(1) var<storage> y: Y;
@group(0) @binding(2) var<uniform> yu: Y;
