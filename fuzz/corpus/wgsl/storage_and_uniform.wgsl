struct Light { position : vec3f, intensity : f32, color : vec3<f32> }
struct Lights { count : u32, items : array<Light, 4> }
@group(0) @binding(0) var<uniform> lights : Lights;
@group(0) @binding(1) var<storage, read> instances : array<mat4x4f>;
override scale : f32 = 1.0;
alias Weights = array<vec2h, 3>;
