// layout.md U01. verdict: valid
@group(0) @binding(2) var<storage> t: array<u32>;
