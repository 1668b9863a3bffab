// layout.md L08 (a): a runtime-sized array in uniform. verdict: invalid
@group(0) @binding(0) var<uniform> u: array<u32>;
