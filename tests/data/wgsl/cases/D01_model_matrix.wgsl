// layout.md D01. verdict: valid
@group(1) @binding(0) var<uniform> model: mat4x4<f32>;
