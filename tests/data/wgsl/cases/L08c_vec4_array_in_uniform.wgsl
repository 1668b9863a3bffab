// layout.md L08 (c): array<vec4<u32>, 1> in uniform. verdict: valid
@group(0) @binding(0) var<uniform> u: array<vec4<u32>, 1>;
