// layout.md B03. verdict: valid
struct Sc { a: mat4x4<f32>, b: mat4x4<f32>, l: vec3<f32> }
@group(0) @binding(0) var<uniform> sc: Sc;
