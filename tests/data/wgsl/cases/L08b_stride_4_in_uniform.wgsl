// layout.md L08 (b): array<u32, 4> in uniform, stride 4. verdict: invalid
@group(0) @binding(0) var<uniform> u: array<u32, 4>;
