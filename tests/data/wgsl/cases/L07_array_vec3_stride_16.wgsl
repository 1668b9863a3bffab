// layout.md L07 (storage), plus array<vec3<f32>, 24> in uniform. verdict: valid
@group(0) @binding(0) var<storage> a: array<vec3<f32>, 24>;
@group(0) @binding(1) var<storage> r: array<vec3<f32>>;
@group(0) @binding(2) var<uniform> au: array<vec3<f32>, 24>;
